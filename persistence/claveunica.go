// Clave Única logins: begun, taken once, and the identity they proved.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// BeginClaveUnica records an authorization request: its state (as stateHash) and nonce, bound to
// the session and its recipient, valid until expiresAt.
func (s *Store) BeginClaveUnica(ctx context.Context, c Ceremony, stateHash []byte, nonce string, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		stateHash, c.IDHash, c.RecipientID, nonce, expiresAt); err != nil {
		return fmt.Errorf("record Clave Única login: %w", err)
	}
	return nil
}

// ClaveUnicaLogin is an authorization request taken back at the callback.
type ClaveUnicaLogin struct {
	RecipientID int64
	Nonce       string
}

// ErrStateUnknown is a callback whose state is unknown, used, expired or begun in another browser.
var ErrStateUnknown = errors.New("this Clave Única login is unknown, was already used or has expired")

// TakeClaveUnica spends the login with stateHash begun by one of the sessions sessionHashes, in
// one statement, and returns it with that session as it stands (expired or not: the caller
// says which). It works once; an unknown, used or expired state, or one begun by another
// session, is ErrStateUnknown.
func (s *Store) TakeClaveUnica(ctx context.Context, stateHash []byte, sessionHashes [][]byte) (ClaveUnicaLogin, Ceremony, error) {
	return s.takeClaveUnica(ctx, `session_hash = ANY($2)`, stateHash, sessionHashes)
}

// takeClaveUnica spends the login with state hash args[0] that also meets the condition which,
// and returns it with its session.
func (s *Store) takeClaveUnica(ctx context.Context, which string, args ...any) (ClaveUnicaLogin, Ceremony, error) {
	var l ClaveUnicaLogin
	row := s.pool.QueryRow(ctx, `WITH taken AS (
			UPDATE claveunica_logins SET used_at = now()
			WHERE state_hash = $1 AND `+which+` AND used_at IS NULL AND expires_at > now()
			RETURNING session_hash, recipient_id, nonce)
		SELECT taken.recipient_id, taken.nonce, `+qualified("c", ceremonyColumns)+`
		FROM taken JOIN ceremony_sessions c ON c.id_hash = taken.session_hash`, args...)
	c, err := scanCeremony(leadingColumns{row, []any{&l.RecipientID, &l.Nonce}})
	if errors.Is(err, pgx.ErrNoRows) {
		return l, c, ErrStateUnknown
	}
	if err != nil {
		return l, c, fmt.Errorf("take Clave Única login: %w", err)
	}
	return l, c, nil
}

// RecordClaveUnica keeps the RUN and name that Clave Única verified on the session that logged in,
// while the envelope is PENDING and the recipient has not acted. It changes nothing else: no
// other session, no field. The recipient's RUT_FIRMADO fields take the RUN of the session that
// completes, when it completes (CompleteRecipient). When this session already holds an advanced
// signature, its certificate's RUT and the RUN must agree.
func (s *Store) RecordClaveUnica(ctx context.Context, c Ceremony, run, name string, a envelope.Actor) error {
	var refused error
	err := s.InTx(ctx, func(tx *Tx) error {
		r, err := tx.lockActing(ctx, c.RecipientID)
		if err != nil {
			return err
		}
		cur, err := scanCeremony(tx.q.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions WHERE id_hash = $1 FOR UPDATE`, c.IDHash))
		if err != nil {
			return notFound(err, "Signing session")
		}
		if !r.MayBe(run) {
			refused, err = tx.recordIdentityMismatch(ctx, *r, run, envelope.ActionAuthClaveUnica, a)
			return err
		}
		if cur.FEA != nil && cur.FEA.RUT != run {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The RUN verified by Clave Única (%s) is not the RUT of the signing certificate (%s)", run, cur.FEA.RUT)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET claveunica_run = $2, claveunica_name = $3, claveunica_at = now() WHERE id_hash = $1`,
			c.IDHash, run, name); err != nil {
			return fmt.Errorf("record Clave Única on the session: %w", err)
		}
		var rutFirmado bool
		if cur.FEA != nil && cur.ClaveUnicaRUN != run {
			if err := tx.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM fields WHERE recipient_id = $1 AND type = $2)`,
				r.ID, envelope.FieldRUTFirmado).Scan(&rutFirmado); err != nil {
				return fmt.Errorf("read the RUT_FIRMADO fields of recipient %d: %w", r.ID, err)
			}
		}
		if rutFirmado {
			// The digest an FAO_HASH signature covers holds the verified RUN in its RUT_FIRMADO
			// values: one given before this login covered another digest, and must be given again.
			if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET fea_rut = NULL, fea_subject = NULL, fea_issuer = NULL,
				fea_serial = NULL, fea_digest = NULL, fea_cms = NULL, fea_at = NULL, fea_ocsp = NULL, fea_revocation = NULL
				WHERE id_hash = $1`, c.IDHash); err != nil {
				return fmt.Errorf("drop the session's earlier FAO_HASH signature: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return refused
}
