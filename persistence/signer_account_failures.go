// Signer account failures: counted per kind of proof, each with its own lock.

package persistence

import (
	"context"
	"fmt"
	"time"
)

// AccountFailures names one of an account's two kinds of proof, each with its count of failures
// in a row and its lock. A count is cleared only by a success of its own kind, so that a right
// password never gives back the attempts at a second factor; a count reaching the limit locks
// only its own kind of proof, so that wrong passwords typed by whoever knows the address never
// refuse the holder's second factor.
type AccountFailures int

const (
	// PasswordFailures counts wrong passwords (signer_accounts.failed_attempts).
	PasswordFailures AccountFailures = iota
	// FactorFailures counts wrong authenticator and recovery codes and failed passkey assertions
	// (signer_accounts.failed_factor_attempts).
	FactorFailures
)

// column is the column that keeps the count k.
func (k AccountFailures) column() string {
	if k == FactorFailures {
		return "failed_factor_attempts"
	}
	return "failed_attempts"
}

// String names the kind of proof k: "password" or "factor".
func (k AccountFailures) String() string {
	if k == FactorFailures {
		return "factor"
	}
	return "password"
}

// lockColumn is the column that keeps until when proofs of kind k are refused.
func (k AccountFailures) lockColumn() string {
	if k == FactorFailures {
		return "factor_locked_until"
	}
	return "password_locked_until"
}

// ReserveAccountAttempt counts an attempt to prove account id with a secret of kind before the
// secret is tested, so that attempts made at once cannot outnumber what the lock allows: the
// account's count kind of failures in a row rises, unless proofs of kind are locked at now or
// maxFailures attempts of kind are counted already. The lock of the other kind does not matter.
// It reports whether the attempt may go on and, when it may not because kind is locked, until
// when. The attempt counts as a failure until the caller records how it ended:
// ClearAccountFailures (or a store method that clears the count) or RecordAccountFailure.
func (s *Store) ReserveAccountAttempt(ctx context.Context, id int64, kind AccountFailures, maxFailures int, now time.Time) (bool, *time.Time, error) {
	col, lock := kind.column(), kind.lockColumn()
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET `+col+` = `+col+` + 1
		WHERE id = $1 AND (`+lock+` IS NULL OR `+lock+` <= $3) AND `+col+` < $2`, id, maxFailures, now)
	if err != nil {
		return false, nil, fmt.Errorf("count an attempt on account %d: %w", id, err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil, nil
	}
	var until *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT CASE WHEN `+lock+` > $2 THEN `+lock+` END FROM signer_accounts WHERE id = $1`, id, now).
		Scan(&until); err != nil {
		return false, nil, notFound(err, "account")
	}
	return false, until, nil
}

// RecordAccountFailure records that an attempt of kind on account id (ReserveAccountAttempt)
// failed, ev, at now. When the account's count kind has reached maxFailures, proofs of kind are
// locked until now+lock, that count starts again and ACCOUNT_LOCKED is recorded (with the kind:
// "password" or "factor"). It returns until when proofs of kind are locked, or nil when they are
// not.
func (s *Store) RecordAccountFailure(ctx context.Context, id int64, kind AccountFailures, ev AccountEvent, maxFailures int, lock time.Duration, now time.Time) (*time.Time, error) {
	var until *time.Time
	col, lockCol := kind.column(), kind.lockColumn()
	err := s.InTx(ctx, func(tx *Tx) error {
		var locked bool
		err := tx.q.QueryRow(ctx, `WITH old AS (SELECT `+lockCol+` AS was FROM signer_accounts WHERE id = $1 FOR UPDATE)
			UPDATE signer_accounts a SET
				`+col+` = CASE WHEN a.`+col+` >= $2 THEN 0 ELSE a.`+col+` END,
				`+lockCol+` = CASE WHEN a.`+col+` >= $2 THEN $3::timestamptz ELSE a.`+lockCol+` END
			FROM old WHERE a.id = $1
			RETURNING CASE WHEN a.`+lockCol+` > $4 THEN a.`+lockCol+` END, a.`+lockCol+` IS DISTINCT FROM old.was`,
			id, maxFailures, now.Add(lock), now).Scan(&until, &locked)
		if err != nil {
			return notFound(err, "account")
		}
		if err := insertAccountEvent(ctx, tx.q, id, ev, now); err != nil {
			return err
		}
		if !locked {
			return nil
		}
		return insertAccountEvent(ctx, tx.q, id, AccountEvent{Type: AccountEventLocked, IP: ev.IP, UserAgent: ev.UserAgent,
			Data: map[string]any{"until": until.UTC().Format(time.RFC3339), "proofs": kind.String()}}, now)
	})
	return until, err
}

// ClearAccountFailures starts account id's count kind of failures in a row again (a right secret
// of that kind); the other count stays.
func (s *Store) ClearAccountFailures(ctx context.Context, id int64, kind AccountFailures) error {
	col := kind.column()
	if _, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET `+col+` = 0 WHERE id = $1 AND `+col+` <> 0`, id); err != nil {
		return fmt.Errorf("clear the failures of account %d: %w", id, err)
	}
	return nil
}
