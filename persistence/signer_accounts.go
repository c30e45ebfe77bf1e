package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// Signer accounts (migration 00016): the accounts of people asked to sign, their mailed links,
// browser sessions, authenticator secrets, recovery codes, passkeys, WebAuthn challenges and
// events. Secrets never reach the database in the clear: a session, a link and a recovery code
// are kept by their SHA-256, a password by its argon2id hash, an authenticator secret sealed with
// the Store's keyring and bound to its account. The caller passes the time (now) to every
// statement that compares with it, so that one clock rules the account's locks and expiries.

// SignerAccount is a signer account as stored.
type SignerAccount struct {
	ID              int64
	Email           string
	EmailVerifiedAt *time.Time
	PasswordHash    string
	TOTPEnabledAt   *time.Time
	FailedAttempts  int // wrong passwords in a row
	// FailedFactorAttempts counts wrong codes and failed passkey assertions in a row.
	FailedFactorAttempts int
	// PasswordLockedUntil is until when the account takes no password (wrong passwords); a
	// password reset lifts it.
	PasswordLockedUntil *time.Time
	// FactorLockedUntil is until when the account takes no authenticator or recovery code and no
	// passkey assertion (wrong ones); only time lifts it.
	FactorLockedUntil *time.Time
	Language          string
	CreatedAt         time.Time
}

// LockedAt reports whether the account takes no proof of kind at now, and until when.
func (a SignerAccount) LockedAt(kind AccountFailures, now time.Time) (time.Time, bool) {
	until := a.PasswordLockedUntil
	if kind == FactorFailures {
		until = a.FactorLockedUntil
	}
	if until != nil && until.After(now) {
		return *until, true
	}
	return time.Time{}, false
}

const signerAccountColumns = `a.id, a.email, a.email_verified_at, a.password_hash, a.totp_enabled_at, a.failed_attempts,
	a.failed_factor_attempts, a.password_locked_until, a.factor_locked_until, a.language, a.created_at`

func signerAccountDest(a *SignerAccount) []any {
	return []any{&a.ID, &a.Email, &a.EmailVerifiedAt, &a.PasswordHash, &a.TOTPEnabledAt, &a.FailedAttempts,
		&a.FailedFactorAttempts, &a.PasswordLockedUntil, &a.FactorLockedUntil, &a.Language, &a.CreatedAt}
}

func scanSignerAccount(row pgx.Row, extra ...any) (SignerAccount, error) {
	var a SignerAccount
	return a, row.Scan(append(signerAccountDest(&a), extra...)...)
}

// UpsertSignerAccount creates the account of email, unverified, with passwordHash and language.
// When the address has an account already (compared without regard to case) an unverified one
// takes the new address spelling, hash and language, and a verified one is left as it is. It
// returns the account as it now stands, and whether it was created.
func (s *Store) UpsertSignerAccount(ctx context.Context, email, passwordHash, language string, now time.Time) (SignerAccount, bool, error) {
	var created bool
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `
		INSERT INTO signer_accounts AS a (email, password_hash, language, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (lower(email)) DO UPDATE SET
			email         = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.email ELSE a.email END,
			password_hash = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.password_hash ELSE a.password_hash END,
			language      = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.language ELSE a.language END,
			updated_at    = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.updated_at ELSE a.updated_at END
		RETURNING `+signerAccountColumns+`, (xmax = 0)`, email, passwordHash, language, now), &created)
	if err != nil {
		return a, false, fmt.Errorf("store the signer account of %s: %w", email, err)
	}
	return a, created, nil
}

// SignerAccountByEmail returns the account of email (compared without regard to case).
func (s *Store) SignerAccountByEmail(ctx context.Context, email string) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+` FROM signer_accounts a WHERE lower(a.email) = lower($1)`, email))
	if err != nil {
		return a, notFound(err, "account")
	}
	return a, nil
}

// SignerAccountByID returns account id.
func (s *Store) SignerAccountByID(ctx context.Context, id int64) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+` FROM signer_accounts a WHERE a.id = $1`, id))
	if err != nil {
		return a, notFound(err, "account")
	}
	return a, nil
}

// SetSignerPasswordHash replaces the password hash of account id (a rehash under stronger
// parameters: the password is the same).
func (s *Store) SetSignerPasswordHash(ctx context.Context, id int64, old, hash string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET password_hash = $3 WHERE id = $1 AND password_hash = $2`, id, old, hash); err != nil {
		return fmt.Errorf("rehash the password of account %d: %w", id, err)
	}
	return nil
}

// RecipientEnvelope is an envelope one of whose recipients has an account's email.
type RecipientEnvelope struct {
	EnvelopeID string
	Title      string
	OwnerName  string
	OwnerEmail string
	Status     envelope.Status
	Role       envelope.Role
	Token      string // the recipient's signing token, opened; "" for a Store without a keyring
	SentAt     *time.Time
}

// EnvelopesForEmail returns the envelopes (neither drafts nor deleted, nor hidden by the
// recipient) one of whose recipients has email (compared without regard to case) and was sent
// the envelope (recipients.sent_at set: a recipient whose turn has not come, in a signing order,
// is left out until it has), newest first, at most limit: each with the recipient's role and
// signing token and the owner's name.
func (s *Store) EnvelopesForEmail(ctx context.Context, email string, limit int) ([]RecipientEnvelope, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT e.id, e.title, u.name, u.email, e.status, r.role, r.id, r.token, r.token_sealed, r.token_key_id, r.sent_at
		FROM recipients r JOIN envelopes e ON e.id = r.envelope_id JOIN users u ON u.id = e.user_id
		WHERE lower(r.email) = lower($1) AND e.type = 'DOCUMENT' AND e.status <> 'DRAFT' AND e.deleted_at IS NULL
			AND r.document_deleted_at IS NULL AND r.sent_at IS NOT NULL
		ORDER BY r.sent_at DESC, r.id DESC LIMIT $2`, email, limit)
	if err != nil {
		return nil, fmt.Errorf("list the envelopes sent to %s: %w", email, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (RecipientEnvelope, error) {
		var e RecipientEnvelope
		var recipientID int64
		var tok storedToken
		if err := row.Scan(&e.EnvelopeID, &e.Title, &e.OwnerName, &e.OwnerEmail, &e.Status, &e.Role, &recipientID,
			&tok.plain, &tok.sealed, &tok.keyID, &e.SentAt); err != nil {
			return e, err
		}
		var err error
		e.Token, err = tok.open(s.ring, recipientID)
		return e, err
	})
}
