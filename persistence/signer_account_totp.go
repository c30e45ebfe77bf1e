// Signer account TOTP: the authenticator app's secret and the recovery codes.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrTOTPEnabled: an account whose authenticator app is on cannot start enrolling another.
var ErrTOTPEnabled = errors.New("persistence: the account's authenticator app is enabled already")

// TOTPSecret is an account's authenticator secret, opened, and where its enrolment stands.
type TOTPSecret struct {
	Secret   string // base32, as the app takes it
	Enabled  bool
	LastStep int64 // the last 30-second step whose code was accepted
	sealed   []byte
}

// totpContext binds a sealed authenticator secret to its account: a sealed value copied to
// another account does not open there.
func totpContext(accountID int64) []byte {
	return []byte("sobre/account-totp/" + strconv.FormatInt(accountID, 10))
}

// SetPendingTOTPSecret keeps secret as account id's authenticator secret being enrolled (sealed
// with the Store's keyring, bound to the account), replacing one being enrolled. An account whose
// app is enabled keeps it: ErrTOTPEnabled.
func (s *Store) SetPendingTOTPSecret(ctx context.Context, id int64, secret string) error {
	if s.ring == nil {
		return ErrNoKeyring
	}
	keyID, sealed := s.ring.Seal([]byte(secret), totpContext(id))
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET totp_secret_sealed = $2, totp_key_id = $3, updated_at = now()
		WHERE id = $1 AND totp_enabled_at IS NULL`, id, sealed, keyID)
	if err != nil {
		return fmt.Errorf("store the authenticator secret of account %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrTOTPEnabled
	}
	return nil
}

// AccountTOTPSecret returns account id's authenticator secret, enabled or being enrolled, opened;
// false when it has none.
func (s *Store) AccountTOTPSecret(ctx context.Context, id int64) (TOTPSecret, bool, error) {
	var t TOTPSecret
	var keyID *string
	err := s.pool.QueryRow(ctx, `SELECT totp_secret_sealed, totp_key_id, totp_enabled_at IS NOT NULL, totp_last_step
		FROM signer_accounts WHERE id = $1`, id).Scan(&t.sealed, &keyID, &t.Enabled, &t.LastStep)
	if err != nil {
		return t, false, notFound(err, "account")
	}
	if t.sealed == nil {
		return TOTPSecret{}, false, nil
	}
	if s.ring == nil {
		return TOTPSecret{}, false, ErrNoKeyring
	}
	plain, err := s.ring.Open(deref(keyID), t.sealed, totpContext(id))
	if err != nil {
		return TOTPSecret{}, false, fmt.Errorf("open the authenticator secret of account %d: %w", id, err)
	}
	t.Secret = string(plain)
	return t, true, nil
}

// EnableTOTP turns on the authenticator secret being enrolled, sec (as AccountTOTPSecret read
// it), proved by a code of step: the step is taken as the last accepted, the account's recovery
// codes become codeHashes (SHA-256 of each), its count of failed codes and assertions is cleared
// and ev recorded. It
// reports false, changing nothing, when the enrolment changed meanwhile (another secret, enabled
// already) or step is not after the last accepted one.
func (s *Store) EnableTOTP(ctx context.Context, id int64, sec TOTPSecret, step int64, codeHashes [][]byte, ev AccountEvent, now time.Time) (bool, error) {
	ok := false
	err := s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET totp_enabled_at = $4, totp_last_step = $3, failed_factor_attempts = 0, updated_at = $4
			WHERE id = $1 AND totp_enabled_at IS NULL AND totp_secret_sealed = $2 AND totp_last_step < $3`, id, sec.sealed, step, now)
		if err != nil {
			return fmt.Errorf("enable the authenticator of account %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		ok = true
		if err := tx.replaceRecoveryCodes(ctx, id, codeHashes); err != nil {
			return err
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return ok && err == nil, err
}

func (tx *Tx) replaceRecoveryCodes(ctx context.Context, id int64, codeHashes [][]byte) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM account_recovery_codes WHERE account_id = $1`, id); err != nil {
		return fmt.Errorf("delete the recovery codes of account %d: %w", id, err)
	}
	if len(codeHashes) == 0 {
		return nil
	}
	if _, err := tx.q.Exec(ctx, `INSERT INTO account_recovery_codes (account_id, code_hash) SELECT $1, unnest($2::bytea[])`, id, codeHashes); err != nil {
		return fmt.Errorf("store the recovery codes of account %d: %w", id, err)
	}
	return nil
}

// AcceptTOTPStep takes step as account id's last accepted authenticator step, and clears its
// count of failed codes and assertions, when the app is enabled and step is after the last accepted one; it reports whether
// it did. Of two uses of one code at once, one is accepted.
func (s *Store) AcceptTOTPStep(ctx context.Context, id int64, step int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET totp_last_step = $2, failed_factor_attempts = 0
		WHERE id = $1 AND totp_enabled_at IS NOT NULL AND totp_last_step < $2`, id, step)
	if err != nil {
		return false, fmt.Errorf("accept an authenticator code of account %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// UseRecoveryCode spends the unused recovery code of account id whose SHA-256 is codeHash, at
// now: it reports whether there was one; when there was, the account's count of failed codes and
// assertions is cleared and ev recorded. Of two uses of one code at once, one wins.
func (s *Store) UseRecoveryCode(ctx context.Context, id int64, codeHash []byte, ev AccountEvent, now time.Time) (bool, error) {
	used := false
	err := s.InTx(ctx, func(tx *Tx) error {
		var one int
		err := tx.q.QueryRow(ctx, `UPDATE account_recovery_codes c SET used_at = $3
			FROM signer_accounts a
			WHERE c.account_id = $1 AND c.code_hash = $2 AND c.used_at IS NULL AND a.id = c.account_id AND a.totp_enabled_at IS NOT NULL
			RETURNING 1`, id, codeHash, now).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("use a recovery code of account %d: %w", id, err)
		}
		used = true
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET failed_factor_attempts = 0 WHERE id = $1 AND failed_factor_attempts <> 0`, id); err != nil {
			return fmt.Errorf("clear the failed codes of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return used && err == nil, err
}

// RecoveryCodesLeft counts account id's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, id int64) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM account_recovery_codes WHERE account_id = $1 AND used_at IS NULL`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the recovery codes of account %d: %w", id, err)
	}
	return n, nil
}

// DisableTOTP turns account id's authenticator app off at now: its secret and recovery codes are
// deleted, ev recorded. The last accepted step stays: a code of it is never taken again.
func (s *Store) DisableTOTP(ctx context.Context, id int64, ev AccountEvent, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET totp_secret_sealed = NULL, totp_key_id = NULL, totp_enabled_at = NULL,
			updated_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("disable the authenticator of account %d: %w", id, err)
		}
		if err := tx.replaceRecoveryCodes(ctx, id, nil); err != nil {
			return err
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
}
