// Webhook calls: the delivery of one event to one webhook, its attempts, and reading them back.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// Call statuses.
const (
	CallPending = "PENDING"
	CallSuccess = "SUCCESS"
	CallFailed  = "FAILED"
)

// WebhookCall is one delivery of one event to one webhook, with its attempts, oldest first.
type WebhookCall struct {
	ID           string
	WebhookID    string
	EventID      string
	Event        envelope.WebhookEvent
	EnvelopeID   string
	Status       string
	Attempts     int
	ResponseCode *int
	ResponseBody *string
	Error        *string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	History      []WebhookAttempt
}

// WebhookAttempt is one attempt of a call.
type WebhookAttempt struct {
	Attempt      int
	StartedAt    time.Time
	FinishedAt   *time.Time
	Outcome      *string
	ResponseCode *int
	ResponseBody *string
	Error        *string
	Duration     time.Duration
}

// WebhookDelivery is what an attempt sends: the call, its webhook's URL at the attempt, and the
// event's id (the webhook-id), name, time and payload.
type WebhookDelivery struct {
	CallID    string
	WebhookID string
	URL       string
	Enabled   bool
	EventID   string
	Event     envelope.WebhookEvent
	At        time.Time
	Payload   []byte
	Attempt   int
	// Done is the outcome of an attempt already made (the activity was run again after it was
	// recorded): it must not be made again. Empty when the attempt is to be made.
	Done envelope.WebhookOutcome
}

// ErrAttemptHeld answers a claim on an attempt that another worker holds: it must not be made now.
var ErrAttemptHeld = errors.New("another worker is making this webhook attempt")

// ErrAttemptLost answers the recording of an attempt whose claim passed to another worker.
var ErrAttemptLost = errors.New("the webhook attempt's claim passed to another worker")

// NextWebhookCall returns the oldest pending call of webhook webhookID for envelope envelopeID,
// and how many attempts it had; found is false when none is pending or the webhook is disabled
// or deleted. Tests are never next (isTestCall).
func (s *Store) NextWebhookCall(ctx context.Context, webhookID, envelopeID string) (callID string, attempts int, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT c.id, c.attempts FROM webhook_calls c JOIN webhooks w ON w.id = c.webhook_id AND w.enabled
		WHERE c.webhook_id = $1 AND c.envelope_id = $2 AND c.status = 'PENDING' AND NOT `+isTestCall+` ORDER BY c.seq LIMIT 1`, webhookID, envelopeID).Scan(&callID, &attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("next webhook call of %s for %s: %w", webhookID, envelopeID, err)
	}
	return callID, attempts, true, nil
}

// PendingWebhooks returns the enabled webhooks of team teamID that have calls pending for
// envelope envelopeID, in the order they were made. Tests are never pending for delivery
// (isTestCall); a resent test's envelope is "".
func (s *Store) PendingWebhooks(ctx context.Context, teamID int64, envelopeID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT w.id FROM webhooks w WHERE w.team_id = $2 AND w.enabled AND EXISTS (SELECT 1 FROM webhook_calls c
		WHERE c.webhook_id = w.id AND c.envelope_id = $1 AND c.status = 'PENDING' AND NOT `+isTestCall+`) ORDER BY w.created_at, w.id`, envelopeID, teamID)
	if err != nil {
		return nil, fmt.Errorf("webhooks pending for %s: %w", envelopeID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read webhooks pending for %s: %w", envelopeID, err)
	}
	return ids, nil
}

// ClaimWebhookAttempt claims attempt n of call callID for owner until lease passes, and returns
// what to send. An attempt already recorded is returned with Done set; one that another owner
// holds within its lease is ErrAttemptHeld; one whose lease passed unfinished (its worker died)
// is taken over. A call no longer pending, or of a webhook disabled or deleted, is returned with
// Enabled false or Done set, and is not claimed.
func (s *Store) ClaimWebhookAttempt(ctx context.Context, callID string, n int, owner string, lease time.Duration) (WebhookDelivery, error) {
	d := WebhookDelivery{CallID: callID, Attempt: n}
	err := s.InTx(ctx, func(tx *Tx) error {
		var status string
		err := tx.q.QueryRow(ctx, `SELECT c.webhook_id, w.webhook_url, w.enabled, c.status, e.id, e.event, e.created_at, e.payload::text
			FROM webhook_calls c JOIN webhooks w ON w.id = c.webhook_id JOIN webhook_events e ON e.id = c.event_id
			WHERE c.id = $1 FOR UPDATE OF c`, callID).Scan(&d.WebhookID, &d.URL, &d.Enabled, &status, &d.EventID, &d.Event, &d.At, &d.Payload)
		if err != nil {
			return notFound(err, "Webhook call")
		}
		var outcome *envelope.WebhookOutcome
		var holder string
		var leased bool
		// The lease runs on PostgreSQL's clock, which set it, never on this worker's.
		err = tx.q.QueryRow(ctx, `SELECT outcome, owner, lease_until > clock_timestamp() FROM webhook_attempts WHERE call_id = $1 AND attempt = $2`,
			callID, n).Scan(&outcome, &holder, &leased)
		switch {
		case err == nil && outcome != nil:
			d.Done = *outcome
			return nil
		case err == nil && holder != owner && leased:
			return ErrAttemptHeld
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("attempt %d of webhook call %s: %w", n, callID, err)
		}
		if status != CallPending {
			d.Done = envelope.WebhookDone // delivered or given up meanwhile: the line reads what is next
			return nil
		}
		if !d.Enabled {
			return nil
		}
		_, err = tx.q.Exec(ctx, `INSERT INTO webhook_attempts (call_id, attempt, owner, lease_until) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
			ON CONFLICT (call_id, attempt) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until, started_at = now()`,
			callID, n, owner, lease.Milliseconds())
		if err != nil {
			return fmt.Errorf("claim attempt %d of webhook call %s: %w", n, callID, err)
		}
		return nil
	})
	return d, err
}

// AttemptResult is what one attempt got.
type AttemptResult struct {
	Outcome      envelope.WebhookOutcome // success, gone or failed; never recorded: inactive, done
	ResponseCode int                     // 0 when there was no answer
	ResponseBody string                  // its first KiB
	Error        string
	Duration     time.Duration
}

// FinishWebhookAttempt records what attempt n of call callID, claimed by owner, got; the call
// is SUCCESS after a successful attempt. ErrAttemptLost when the claim passed to another owner.
func (s *Store) FinishWebhookAttempt(ctx context.Context, callID string, n int, owner string, r AttemptResult) error {
	return s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `UPDATE webhook_attempts SET finished_at = now(), outcome = $4, response_code = $5, response_body = $6,
			error = $7, duration_ms = $8 WHERE call_id = $1 AND attempt = $2 AND owner = $3 AND outcome IS NULL`,
			callID, n, owner, r.Outcome, nullInt(r.ResponseCode), nullString(r.ResponseBody), nullString(r.Error), r.Duration.Milliseconds())
		if err != nil {
			return fmt.Errorf("record attempt %d of webhook call %s: %w", n, callID, err)
		}
		if tag.RowsAffected() == 0 {
			return ErrAttemptLost
		}
		status := CallPending
		if r.Outcome == envelope.WebhookSuccess {
			status = CallSuccess
		}
		_, err = tx.q.Exec(ctx, `UPDATE webhook_calls SET status = $2, attempts = GREATEST(attempts, $3), response_code = $4, response_body = $5,
			error = $6, updated_at = now() WHERE id = $1 AND status = 'PENDING'`,
			callID, status, n, nullInt(r.ResponseCode), nullString(r.ResponseBody), nullString(r.Error))
		if err != nil {
			return fmt.Errorf("record webhook call %s: %w", callID, err)
		}
		return nil
	})
}

// FailWebhookCall marks call callID FAILED (its last attempt failed); false when it was not
// pending.
func (s *Store) FailWebhookCall(ctx context.Context, callID string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE webhook_calls SET status = 'FAILED', updated_at = now() WHERE id = $1 AND status = 'PENDING'`, callID)
	if err != nil {
		return false, fmt.Errorf("fail webhook call %s: %w", callID, err)
	}
	return tag.RowsAffected() == 1, nil
}

func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
