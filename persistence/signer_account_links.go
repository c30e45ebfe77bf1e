// Signer account links: mailed links that verify an address or reset a password.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// Purposes of a mailed account link (account_links.purpose).
const (
	AccountLinkVerify = "verify"
	AccountLinkReset  = "reset"
)

// CreateAccountLink stores a mailed link of account id (by the SHA-256 of its token) for purpose,
// leading to next once used, working until expires. Earlier links of the account for the same
// purpose that were not used stop working: only the newest mail's link does.
func (s *Store) CreateAccountLink(ctx context.Context, id int64, purpose string, tokenHash []byte, next string, expires, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.Exec(ctx, `UPDATE account_links SET expires_at = $3
			WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3`, id, purpose, now); err != nil {
			return fmt.Errorf("end earlier %s links of account %d: %w", purpose, id, err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO account_links (token_hash, account_id, purpose, next, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, tokenHash, id, purpose, next, now, expires); err != nil {
			return fmt.Errorf("store a %s link of account %d: %w", purpose, id, err)
		}
		return nil
	})
}

// AccountOfLink returns the account of the working (unused, unexpired at now) link whose token
// hashes to tokenHash, for purpose, without using it.
func (s *Store) AccountOfLink(ctx context.Context, tokenHash []byte, purpose string, now time.Time) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+`
		FROM account_links l JOIN signer_accounts a ON a.id = l.account_id
		WHERE l.token_hash = $1 AND l.purpose = $2 AND l.used_at IS NULL AND l.expires_at > $3`, tokenHash, purpose, now))
	if err != nil {
		return a, notFound(err, "link")
	}
	return a, nil
}

// takeAccountLink uses the working link whose token hashes to tokenHash, for purpose: it
// returns its account and next, and never works again. Two uses at once: one wins.
func (tx *Tx) takeAccountLink(ctx context.Context, tokenHash []byte, purpose string, now time.Time) (int64, string, error) {
	var id int64
	var next string
	err := tx.q.QueryRow(ctx, `UPDATE account_links SET used_at = $3
		WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
		RETURNING account_id, next`, tokenHash, purpose, now).Scan(&id, &next)
	if err != nil {
		return 0, "", notFound(err, "link")
	}
	return id, next, nil
}

// VerifySignerEmail uses a verification link (tokenHash) at now, for an account whose password
// hash is still passwordHash (the one the caller tested the password against): the account's
// email is verified, ev recorded. It returns the account and the link's next. A used, expired or
// unknown link is not found, and so is a link whose account took another password meanwhile
// (changing nothing: the link stays as it was).
func (s *Store) VerifySignerEmail(ctx context.Context, tokenHash []byte, passwordHash string, ev AccountEvent, now time.Time) (SignerAccount, string, error) {
	var a SignerAccount
	var next string
	err := s.InTx(ctx, func(tx *Tx) error {
		id, n, err := tx.takeAccountLink(ctx, tokenHash, AccountLinkVerify, now)
		if err != nil {
			return err
		}
		next = n
		a, err = scanSignerAccount(tx.q.QueryRow(ctx, `UPDATE signer_accounts a
			SET email_verified_at = coalesce(email_verified_at, $2), updated_at = $2 WHERE id = $1 AND password_hash = $3
			RETURNING `+signerAccountColumns, id, now, passwordHash))
		if errors.Is(err, pgx.ErrNoRows) {
			return errLinkStale
		}
		if err != nil {
			return fmt.Errorf("verify the email of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	if errors.Is(err, errLinkStale) {
		return SignerAccount{}, "", envelope.NotFound("link")
	}
	return a, next, err
}

// errLinkStale rolls back the use of a verification link whose account's password changed.
var errLinkStale = errors.New("persistence: the account's password changed")

// ResetSignerPassword uses a reset link (tokenHash) at now: the account takes passwordHash, its
// email counts as verified (verified or not before: the link proved the mailbox), its count of
// wrong passwords and its password lock are cleared (the count of wrong codes and assertions,
// and their lock, stay), every session of it ends, its other reset links and its verification
// links stop working, and ev is recorded. It returns the account and the link's next.
func (s *Store) ResetSignerPassword(ctx context.Context, tokenHash []byte, passwordHash string, ev AccountEvent, now time.Time) (SignerAccount, string, error) {
	var a SignerAccount
	var next string
	err := s.InTx(ctx, func(tx *Tx) error {
		id, n, err := tx.takeAccountLink(ctx, tokenHash, AccountLinkReset, now)
		if err != nil {
			return err
		}
		next = n
		if a, err = scanSignerAccount(tx.q.QueryRow(ctx, `UPDATE signer_accounts a
			SET password_hash = $2, email_verified_at = coalesce(email_verified_at, $3), failed_attempts = 0, password_locked_until = NULL,
				updated_at = $3
			WHERE id = $1 RETURNING `+signerAccountColumns, id, passwordHash, now)); err != nil {
			return fmt.Errorf("reset the password of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE account_sessions SET ended_at = $2 WHERE account_id = $1 AND ended_at IS NULL`, id, now); err != nil {
			return fmt.Errorf("end the sessions of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE account_links SET expires_at = $2
			WHERE account_id = $1 AND used_at IS NULL AND expires_at > $2`, id, now); err != nil {
			return fmt.Errorf("end the other links of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return a, next, err
}
