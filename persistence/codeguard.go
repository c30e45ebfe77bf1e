package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// The ceiling of access codes: a recipient's wrong codes, counted in access_code_guards against
// the signing link they were typed on (its link version) (envelope.CheckCodeEntry is the rule). Every read and
// write happens under the envelope's row lock, so concurrent guesses are counted one by one.

// codeGuard is a recipient's row of access_code_guards as it counts now: zero for a recipient
// with none, or whose row belongs to a link since replaced.
type codeGuard struct {
	envelope.CodeEntry
	Locks int // times the entry locked, ever
}

// readCodeGuard reads recipientID's guard; the caller holds the envelope's row lock.
func (tx *Tx) readCodeGuard(ctx context.Context, recipientID int64) (codeGuard, error) {
	var g codeGuard
	var current *bool // NULL without a guard row
	var failures, locks *int
	var last *time.Time
	err := tx.q.QueryRow(ctx, `SELECT g.link_version = r.link_version, g.failures, g.last_failed_at, g.locks
		FROM recipients r LEFT JOIN access_code_guards g ON g.recipient_id = r.id WHERE r.id = $1`, recipientID).
		Scan(&current, &failures, &last, &locks)
	if err != nil {
		return g, notFound(err, "Recipient")
	}
	if locks != nil {
		g.Locks = *locks
	}
	if current != nil && *current && failures != nil {
		g.Failures = *failures
		if last != nil {
			g.LastFailed = *last
		}
	}
	return g, nil
}

// countCodeFailure records one more wrong code for recipientID at now, on its current link, and
// reports whether the entry locked with it (at max failures). The caller holds the envelope's
// row lock and read g with readCodeGuard.
func (tx *Tx) countCodeFailure(ctx context.Context, recipientID int64, g codeGuard, max int, now time.Time) (locked bool, err error) {
	failures := g.Failures + 1
	locked = max > 0 && failures >= max
	locks := g.Locks
	var lockedAt *time.Time
	if locked {
		locks++
		lockedAt = &now
	}
	if _, err := tx.q.Exec(ctx, `INSERT INTO access_code_guards (recipient_id, link_version, failures, last_failed_at, locked_at, locks)
		SELECT id, link_version, $2, $3, $4, $5 FROM recipients WHERE id = $1
		ON CONFLICT (recipient_id) DO UPDATE SET link_version = EXCLUDED.link_version, failures = EXCLUDED.failures,
			last_failed_at = EXCLUDED.last_failed_at, locked_at = EXCLUDED.locked_at, locks = EXCLUDED.locks`,
		recipientID, failures, now, lockedAt, locks); err != nil {
		return false, fmt.Errorf("count a wrong access code of recipient %d: %w", recipientID, err)
	}
	return locked, nil
}

// openCodeEntries clears the wrong-code count of recipients sent the envelope again: their code
// entry takes codes again, locked or not.
func (tx *Tx) openCodeEntries(ctx context.Context, ids []int64) error {
	if _, err := tx.q.Exec(ctx, `UPDATE access_code_guards SET failures = 0, last_failed_at = NULL, locked_at = NULL
		WHERE recipient_id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("open the code entries of recipients %v: %w", ids, err)
	}
	return nil
}

// CodeLock is a recipient whose code entry is locked, and the lock's number (the recipient's
// locks so far, counting this one): one owner mail per number.
type CodeLock struct {
	RecipientID int64
	Lock        int
}

// codeLocks lists the recipients of envelopeID whose code entry is locked on their current link.
func codeLocks(ctx context.Context, q querier, envelopeID string) ([]CodeLock, error) {
	rows, err := q.Query(ctx, `SELECT g.recipient_id, g.locks FROM access_code_guards g JOIN recipients r ON r.id = g.recipient_id
		WHERE r.envelope_id = $1 AND g.link_version = r.link_version AND g.locked_at IS NOT NULL ORDER BY g.recipient_id`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("read locked code entries of %s: %w", envelopeID, err)
	}
	locks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (CodeLock, error) {
		var l CodeLock
		err := row.Scan(&l.RecipientID, &l.Lock)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("read locked code entries of %s: %w", envelopeID, err)
	}
	return locks, nil
}

// CodeEntryLocked reports whether rec's code entry is locked on its current link.
func (s *Store) CodeEntryLocked(ctx context.Context, rec envelope.Recipient, max int) (bool, error) {
	var failures int
	err := s.pool.QueryRow(ctx, `SELECT g.failures FROM access_code_guards g JOIN recipients r ON r.id = g.recipient_id
		WHERE g.recipient_id = $1 AND g.link_version = r.link_version`, rec.ID).Scan(&failures)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the access-code guard of recipient %d: %w", rec.ID, err)
	}
	return envelope.CodeEntry{Failures: failures}.Locked(max), nil
}
