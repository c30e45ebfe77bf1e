// Signer account passkeys: registered credentials and WebAuthn challenges.

package persistence

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Purposes of a WebAuthn challenge (webauthn_challenges.purpose). A challenge is taken only for
// the purpose it was made for: an assertion asked for a signing page never confirms a factor on
// the account page, nor the other way round.
const (
	WebAuthnRegister = "register"
	// WebAuthnAssert is an assertion that proves PASSKEY action auth on a signing page.
	WebAuthnAssert = "assert"
	// WebAuthnFactor is an assertion that confirms a second factor on the account page.
	WebAuthnFactor = "factor"
)

// AccountPasskey is a WebAuthn credential of an account: Credential is the WebAuthn library's
// credential record as JSON.
type AccountPasskey struct {
	ID           int64
	AccountID    int64
	CredentialID []byte
	Credential   []byte
	Name         string
	CreatedAt    time.Time
	LastUsedAt   *time.Time
}

const accountPasskeyColumns = `id, account_id, credential_id, credential, name, created_at, last_used_at`

func scanAccountPasskey(row pgx.Row) (AccountPasskey, error) {
	var p AccountPasskey
	return p, row.Scan(&p.ID, &p.AccountID, &p.CredentialID, &p.Credential, &p.Name, &p.CreatedAt, &p.LastUsedAt)
}

// AccountPasskeys returns account id's passkeys, oldest first.
func (s *Store) AccountPasskeys(ctx context.Context, id int64) ([]AccountPasskey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+accountPasskeyColumns+` FROM account_passkeys WHERE account_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("list the passkeys of account %d: %w", id, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AccountPasskey, error) { return scanAccountPasskey(row) })
}

// AddAccountPasskey keeps a new passkey of account id: credential is the library's record as
// JSON. A credential registered already (on any account) is ALREADY_EXISTS. ev is recorded.
func (s *Store) AddAccountPasskey(ctx context.Context, id int64, credentialID, credential []byte, name string, ev AccountEvent, now time.Time) (AccountPasskey, error) {
	var p AccountPasskey
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		p, err = scanAccountPasskey(tx.q.QueryRow(ctx, `INSERT INTO account_passkeys (account_id, credential_id, credential, name, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING `+accountPasskeyColumns, id, credentialID, credential, name, now))
		if err != nil {
			return fmt.Errorf("store a passkey of account %d: %w", id, err)
		}
		ev.Data = map[string]any{"credentialId": base64.RawURLEncoding.EncodeToString(credentialID), "name": name}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return p, err
}

// RemoveAccountPasskey removes passkey pid of account id, records ev and returns the passkey's
// name; a passkey of another account, or none, is not found.
func (s *Store) RemoveAccountPasskey(ctx context.Context, id, pid int64, ev AccountEvent, now time.Time) (string, error) {
	var name string
	err := s.InTx(ctx, func(tx *Tx) error {
		var credentialID []byte
		err := tx.q.QueryRow(ctx, `DELETE FROM account_passkeys WHERE id = $2 AND account_id = $1 RETURNING credential_id, name`, id, pid).
			Scan(&credentialID, &name)
		if err != nil {
			return notFound(err, "passkey")
		}
		ev.Data = map[string]any{"credentialId": base64.RawURLEncoding.EncodeToString(credentialID), "name": name}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return name, err
}

// UsePasskey records an assertion by account id's passkey credentialID at now: the credential
// record becomes credential (its new sign count, signCount) and last_used_at now. A sign count
// that is not above the stored one (when either is not zero) changes nothing and reports false:
// another assertion with that count or a later one was taken already.
func (s *Store) UsePasskey(ctx context.Context, id int64, credentialID, credential []byte, signCount uint32, now time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE account_passkeys SET credential = $3, last_used_at = $5
		WHERE account_id = $1 AND credential_id = $2
		AND (($4 = 0 AND coalesce((credential->'authenticator'->>'signCount')::bigint, 0) = 0)
			OR coalesce((credential->'authenticator'->>'signCount')::bigint, 0) < $4)`,
		id, credentialID, credential, int64(signCount), now)
	if err != nil {
		return false, fmt.Errorf("record the use of a passkey of account %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// SaveWebAuthnChallenge keeps a WebAuthn ceremony under way: data (the library's session data as
// JSON) under its challenge, bound to the account session sessionID, for purpose, until expires.
func (s *Store) SaveWebAuthnChallenge(ctx context.Context, challenge, sessionID, purpose string, data []byte, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO webauthn_challenges (challenge, account_session_id, purpose, data, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, challenge, sessionID, purpose, data, expires)
	if err != nil {
		return fmt.Errorf("store a WebAuthn challenge: %w", err)
	}
	return nil
}

// TakeWebAuthnChallenge uses the challenge of account session sessionID for purpose, at now,
// and returns its data; it never works again. An unknown, used or expired challenge, or one of
// another session or purpose, is not found.
func (s *Store) TakeWebAuthnChallenge(ctx context.Context, challenge, sessionID, purpose string, now time.Time) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `UPDATE webauthn_challenges SET used_at = $4
		WHERE challenge = $1 AND account_session_id = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $4
		RETURNING data`, challenge, sessionID, purpose, now).Scan(&data)
	if err != nil {
		return nil, notFound(err, "challenge")
	}
	return data, nil
}
