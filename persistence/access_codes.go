package persistence

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// The ceiling of access codes: a recipient's wrong codes, counted in access_code_guards against
// the signing link they were typed on (its link version) (envelope.CheckCodeEntry is the rule). Every read and
// write happens under the envelope's row lock, so concurrent guesses are counted one by one.

// AccessCodePolicy bounds mailed access codes.
type AccessCodePolicy struct {
	TTL         time.Duration // how long a code is valid
	MaxRequests int           // codes a recipient may ask for within Window
	Window      time.Duration
	MaxAttempts int // wrong guesses before a code is spent
	// MaxFailures is how many wrong codes in all (every session, every code) lock the recipient's
	// code entry (envelope.DefaultMaxCodeFailures when 0).
	MaxFailures int
}

// Ceiling is the number of wrong codes that locks a code entry.
func (p AccessCodePolicy) Ceiling() int {
	if p.MaxFailures > 0 {
		return p.MaxFailures
	}
	return envelope.DefaultMaxCodeFailures
}

// RequestAccessCode stores a new code (as codeHMAC) for the session's recipient and appends
// DOCUMENT_ACCESS_AUTH_2FA_REQUESTED, unless the recipient's code entry is locked
// (ACCESS_CODE_LOCKED), waits after a wrong code (TOO_MANY_REQUESTS with RetryAfter: see
// envelope.CheckCodeEntry, at now) or asked for too many codes lately (TOO_MANY_REQUESTS).
// Earlier codes of the session stop working.
func (s *Store) RequestAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a envelope.Actor, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.lockCodeEntry(ctx, r, p, now); err != nil {
			return err
		}
		var recent int
		if err := tx.q.QueryRow(ctx, `SELECT count(*) FROM access_codes WHERE recipient_id = $1 AND created_at > now() - $2::interval`,
			r.ID, p.Window.String()).Scan(&recent); err != nil {
			return fmt.Errorf("count access codes of recipient %d: %w", r.ID, err)
		}
		if recent >= p.MaxRequests {
			return envelope.Errorf(envelope.CodeTooManyRequests, "Too many codes were requested; wait a few minutes and try again")
		}
		if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET used_at = now() WHERE session_hash = $1 AND used_at IS NULL`, c.IDHash); err != nil {
			return fmt.Errorf("retire earlier access codes: %w", err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO access_codes (recipient_id, session_hash, code_hmac, expires_at) VALUES ($1, $2, $3, now() + $4::interval)`,
			r.ID, c.IDHash, codeHMAC, p.TTL.String()); err != nil {
			return fmt.Errorf("store access code: %w", err)
		}
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeRequestedAudit(r), a)
	})
}

// Results of VerifyAccessCode.
var (
	ErrCodeWrong   = errors.New("the code is wrong")
	ErrCodeExpired = errors.New("the code has expired or was used; ask for a new one")
	// ErrCodeLocked: this wrong code was the one that locked the recipient's code entry.
	ErrCodeLocked = errors.New("the code is wrong, and the code entry is now locked")
)

// VerifyAccessCode checks codeHMAC against the session's current code, at now. A recipient whose
// code entry is locked, or who must still wait after a wrong code, is refused first, the right
// code included (envelope.CheckCodeEntry), and nothing is counted. A match marks the session
// verified (DOCUMENT_ACCESS_AUTH_2FA_VALIDATED). A miss is recorded
// (DOCUMENT_ACCESS_AUTH_2FA_FAILED) and counted twice: against the code, spent after
// p.MaxAttempts misses, and against the recipient's current token, over every session and code;
// the miss that reaches p.Ceiling() locks the code entry (DOCUMENT_ACCESS_AUTH_2FA_LOCKED) and
// returns ErrCodeLocked. All of it happens under the envelope's row lock, so guesses sent at
// once are counted one after the other and never pass the ceiling. The failure is committed
// before ErrCodeWrong, ErrCodeExpired or ErrCodeLocked is returned.
func (s *Store) VerifyAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a envelope.Actor, now time.Time) error {
	var result error
	err := s.InTx(ctx, func(tx *Tx) error {
		g, err := tx.lockCodeEntry(ctx, r, p, now)
		if err != nil {
			return err
		}
		var id int64
		var stored []byte
		var attempts int
		err = tx.q.QueryRow(ctx, `SELECT id, code_hmac, attempts FROM access_codes
			WHERE session_hash = $1 AND used_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1 FOR UPDATE`, c.IDHash).
			Scan(&id, &stored, &attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			result = ErrCodeExpired
			return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeFailedAudit(r), a)
		}
		if err != nil {
			return fmt.Errorf("read access code: %w", err)
		}
		if subtle.ConstantTimeCompare(stored, codeHMAC) == 1 {
			if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET used_at = now() WHERE id = $1`, id); err != nil {
				return fmt.Errorf("spend access code: %w", err)
			}
			if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET access_verified_at = now() WHERE id_hash = $1`, c.IDHash); err != nil {
				return fmt.Errorf("mark session verified: %w", err)
			}
			return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeValidatedAudit(r), a)
		}
		result = ErrCodeWrong
		if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET attempts = attempts + 1,
			used_at = CASE WHEN attempts + 1 >= $2 THEN now() END WHERE id = $1`, id, p.MaxAttempts); err != nil {
			return fmt.Errorf("count a wrong access code: %w", err)
		}
		locked, err := tx.countCodeFailure(ctx, r.ID, g, p.Ceiling(), now)
		if err != nil {
			return err
		}
		if err := tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeFailedAudit(r), a); err != nil {
			return err
		}
		if !locked {
			return nil
		}
		result = ErrCodeLocked
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeLockedAudit(r, g.Failures+1), a)
	})
	if err != nil {
		return err
	}
	return result
}

// codeGuard is a recipient's row of access_code_guards as it counts now: zero for a recipient
// with none, or whose row belongs to a link since replaced.
type codeGuard struct {
	envelope.CodeEntry
	Locks int // times the entry locked, ever
}

// lockCodeEntry locks recipient r's envelope row and reads their code guard, refusing a code
// entry that is locked or must still wait after a wrong code (envelope.CheckCodeEntry at now):
// asking for a code and trying one both pass it first.
func (tx *Tx) lockCodeEntry(ctx context.Context, r envelope.Recipient, p AccessCodePolicy, now time.Time) (codeGuard, error) {
	if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
		return codeGuard{}, err
	}
	g, err := tx.readCodeGuard(ctx, r.ID)
	if err != nil {
		return g, err
	}
	return g, envelope.CheckCodeEntry(g.CodeEntry, p.Ceiling(), now)
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

// queueCodeLocks adds to b the read of the locked code entries of envelope envelopeID's
// recipients, on their current links, into out.
func queueCodeLocks(b *pgx.Batch, envelopeID string, out *[]CodeLock) {
	queueRows(b, out, "locked code entries of "+envelopeID, pgx.RowToStructByPos[CodeLock],
		`SELECT g.recipient_id, g.locks FROM access_code_guards g JOIN recipients r ON r.id = g.recipient_id
		WHERE r.envelope_id = $1 AND g.link_version = r.link_version AND g.locked_at IS NOT NULL ORDER BY g.recipient_id`, envelopeID)
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
