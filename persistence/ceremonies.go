package persistence

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// The signing ceremony's records: sessions bound to a browser, mailed access codes, Clave Única
// logins under way and the identity a recipient proved. Secrets never reach the database: a
// session is kept by the SHA-256 of its cookie, a code by an HMAC keyed by the session's secret,
// a Clave Única state by its SHA-256.

// Ceremony is one browser's session with one recipient, and what was proved in it.
type Ceremony struct {
	IDHash []byte
	// ID names the session without being its secret or its lookup key (hex SHA-256 of IDHash):
	// completion carries it through the workflow.
	ID               string
	RecipientID      int64
	ExpiresAt        time.Time
	AccessVerifiedAt *time.Time
	ClaveUnicaRUN    string
	ClaveUnicaName   string
	ClaveUnicaAt     *time.Time
	FEA              *FEASignature // the advanced electronic signature given in this session
	FEAAt            *time.Time
	// The signer account this browser was signed in to when it last acted on the link (its
	// session's public id), and the proofs that account gave here for this recipient.
	AccountID           int64
	AccountSessionID    string
	PasswordAt          *time.Time
	TOTPAt              *time.Time
	PasskeyAt           *time.Time
	PasskeyCredentialID string
}

// Proofs is what the session proved, for envelope.CheckCompletion.
func (c Ceremony) Proofs() envelope.SessionProofs {
	p := envelope.SessionProofs{RecipientID: c.RecipientID, AccessVerified: c.AccessVerifiedAt != nil,
		ClaveUnicaRUN: c.ClaveUnicaRUN, ClaveUnicaAt: c.ClaveUnicaAt}
	if c.FEA != nil {
		p.FEARUT, p.FEADigest, p.FEAAt = c.FEA.RUT, c.FEA.Digest, c.FEAAt
	}
	p.PasswordAt, p.TOTPAt, p.PasskeyAt, p.PasskeyCredentialID = c.PasswordAt, c.TOTPAt, c.PasskeyAt, c.PasskeyCredentialID
	return p
}

// ceremonyColumns are read by scanCeremony.
const ceremonyColumns = `id_hash, id, recipient_id, expires_at, access_verified_at, claveunica_run, claveunica_name, claveunica_at,
	fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at, fea_ocsp, fea_revocation,
	account_id, account_session_id, password_at, totp_at, passkey_at, passkey_credential_id`

func scanCeremony(row pgx.Row) (Ceremony, error) {
	var c Ceremony
	var run, name, rut, subject, issuer, serial, digest, revocation, accountSession, passkey *string
	var account *int64
	var cms, ocsp []byte
	if err := row.Scan(&c.IDHash, &c.ID, &c.RecipientID, &c.ExpiresAt, &c.AccessVerifiedAt, &run, &name, &c.ClaveUnicaAt,
		&rut, &subject, &issuer, &serial, &digest, &cms, &c.FEAAt, &ocsp, &revocation,
		&account, &accountSession, &c.PasswordAt, &c.TOTPAt, &c.PasskeyAt, &passkey); err != nil {
		return c, err
	}
	c.ClaveUnicaRUN, c.ClaveUnicaName = deref(run), deref(name)
	c.AccountSessionID, c.PasskeyCredentialID = deref(accountSession), deref(passkey)
	if account != nil {
		c.AccountID = *account
	}
	if rut != nil {
		c.FEA = &FEASignature{RUT: *rut, Subject: deref(subject), Issuer: deref(issuer), Serial: deref(serial), Digest: deref(digest), CMS: cms,
			OCSP: ocsp, Revocation: deref(revocation)}
	}
	return c, nil
}

// StartCeremony records a new session for the recipient whose signing token is token, as long as
// that token is still the recipient's: a link replaced while its page was loading starts nothing
// (the recipient's row is share-locked, so a replacement in progress is waited for and then seen).
func (s *Store) StartCeremony(ctx context.Context, idHash []byte, recipientID int64, token string, expiresAt time.Time) error {
	tag, err := s.pool.Exec(ctx, `WITH current AS (SELECT id FROM recipients WHERE id = $2 AND token_hash = $4 FOR SHARE)
		INSERT INTO ceremony_sessions (id_hash, recipient_id, expires_at) SELECT $1, current.id, $3 FROM current`,
		idHash, recipientID, expiresAt, TokenHash(token))
	if err != nil {
		return fmt.Errorf("start ceremony for recipient %d: %w", recipientID, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrLinkReplaced
	}
	return nil
}

// ErrLinkReplaced is a signing link that a newer one replaced while it was in use.
var ErrLinkReplaced = envelope.Errorf(envelope.CodeLinkReplaced, "This signing link was replaced by a newer one; use the link in the latest email")

// CeremonyByHash returns the unexpired session whose cookie hashes to idHash.
func (s *Store) CeremonyByHash(ctx context.Context, idHash []byte) (Ceremony, error) {
	c, err := scanCeremony(s.pool.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions WHERE id_hash = $1 AND expires_at > now()`, idHash))
	if err != nil {
		return c, notFound(err, "Signing session")
	}
	return c, nil
}

// leadingColumns scans extra columns that come before those a scan function reads.
type leadingColumns struct {
	pgx.Row
	extra []any
}

func (r leadingColumns) Scan(dest ...any) error { return r.Row.Scan(append(r.extra, dest...)...) }

// qualified prefixes each column of a comma-separated list with alias.
func qualified(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// lockActing locks the envelope of recipient id (its row, as every change of it does) and
// returns the recipient as it is under that lock, as long as the envelope is PENDING and the
// recipient has not acted: a proof is kept only for someone who may still act.
func (tx *Tx) lockActing(ctx context.Context, id int64) (*envelope.Recipient, error) {
	var envelopeID string
	if err := tx.q.QueryRow(ctx, `SELECT envelope_id FROM recipients WHERE id = $1`, id).Scan(&envelopeID); err != nil {
		return nil, notFound(err, "Recipient")
	}
	snap, err := tx.lockSnapshot(ctx, envelopeID)
	if err != nil {
		return nil, err
	}
	if err := envelope.RequirePending(snap.Status); err != nil {
		return nil, err
	}
	r := snap.Recipient(id)
	if r == nil {
		return nil, envelope.NotFound("Recipient")
	}
	if err := envelope.ParticipantOf(*r).Unacted(); err != nil {
		return nil, err
	}
	return r, nil
}
