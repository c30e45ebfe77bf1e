// Webhook calls as a team reads them, sends them again, tests its webhook, and their purge.

package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

const callColumns = `c.id, c.webhook_id, c.event_id, e.event, c.envelope_id, c.status, c.attempts, c.response_code, c.response_body,
	c.error, c.created_at, c.updated_at`

func scanCall(row pgx.Row) (WebhookCall, error) {
	var c WebhookCall
	err := row.Scan(&c.ID, &c.WebhookID, &c.EventID, &c.Event, &c.EnvelopeID, &c.Status, &c.Attempts, &c.ResponseCode,
		&c.ResponseBody, &c.Error, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// WebhookCalls returns page page (from 1) of webhook webhookID's calls, newest first, each with
// its attempts, and their count; only those in status when it is not empty. The webhook must be
// team teamID's (NOT_FOUND otherwise).
func (s *Store) WebhookCalls(ctx context.Context, teamID int64, webhookID, status string, page, perPage int) ([]WebhookCall, int, error) {
	if _, err := s.Webhook(ctx, teamID, webhookID); err != nil {
		return nil, 0, err
	}
	var count int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_calls c WHERE c.webhook_id = $1 AND ($2 = '' OR c.status = $2)`,
		webhookID, status).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count calls of webhook %s: %w", webhookID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+callColumns+` FROM webhook_calls c JOIN webhook_events e ON e.id = c.event_id
		WHERE c.webhook_id = $1 AND ($2 = '' OR c.status = $2) ORDER BY c.created_at DESC, c.seq DESC LIMIT $3 OFFSET $4`,
		webhookID, status, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list calls of webhook %s: %w", webhookID, err)
	}
	calls, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookCall, error) { return scanCall(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("read calls of webhook %s: %w", webhookID, err)
	}
	if err := s.loadAttempts(ctx, calls); err != nil {
		return nil, 0, err
	}
	return calls, count, nil
}

// WebhookCall returns call id of a webhook of team teamID, with its attempts.
func (s *Store) WebhookCall(ctx context.Context, teamID int64, id string) (WebhookCall, error) {
	c, err := scanCall(s.pool.QueryRow(ctx, `SELECT `+callColumns+` FROM webhook_calls c JOIN webhook_events e ON e.id = c.event_id
		JOIN webhooks w ON w.id = c.webhook_id WHERE c.id = $1 AND w.team_id = $2`, id, teamID))
	if err != nil {
		return c, notFound(err, "Webhook call")
	}
	list := []WebhookCall{c}
	if err := s.loadAttempts(ctx, list); err != nil {
		return c, err
	}
	return list[0], nil
}

// loadAttempts fills the attempts of each call.
func (s *Store) loadAttempts(ctx context.Context, calls []WebhookCall) error {
	ids := make([]string, len(calls))
	at := map[string]int{}
	for i, c := range calls {
		ids[i], at[c.ID] = c.ID, i
		calls[i].History = []WebhookAttempt{}
	}
	rows, err := s.pool.Query(ctx, `SELECT call_id, attempt, started_at, finished_at, outcome, response_code, response_body, error,
		coalesce(duration_ms, 0) FROM webhook_attempts WHERE call_id = ANY($1) ORDER BY call_id, attempt`, ids)
	if err != nil {
		return fmt.Errorf("load webhook attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a WebhookAttempt
		var ms int64
		if err := rows.Scan(&id, &a.Attempt, &a.StartedAt, &a.FinishedAt, &a.Outcome, &a.ResponseCode, &a.ResponseBody, &a.Error, &ms); err != nil {
			return fmt.Errorf("read webhook attempts: %w", err)
		}
		a.Duration = time.Duration(ms) * time.Millisecond
		calls[at[id]].History = append(calls[at[id]].History, a)
	}
	return rows.Err()
}

// ResendWebhookCall makes a new PENDING call of call id's event to its webhook (the same event
// id, so the same webhook-id), for a webhook of team teamID, and hands it to the dispatcher.
func (s *Store) ResendWebhookCall(ctx context.Context, teamID int64, id string) (WebhookCall, error) {
	var newID string
	err := s.InTx(ctx, func(tx *Tx) error {
		newID = newCUID()
		tag, err := tx.q.Exec(ctx, `INSERT INTO webhook_calls (id, webhook_id, event_id, envelope_id)
			SELECT $1, c.webhook_id, c.event_id, c.envelope_id FROM webhook_calls c JOIN webhooks w ON w.id = c.webhook_id
			WHERE c.id = $2 AND w.team_id = $3`, newID, id, teamID)
		if err != nil {
			return fmt.Errorf("resend webhook call %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return envelope.NotFound("Webhook call")
		}
		return tx.notifyWebhooks(ctx)
	})
	if err != nil {
		return WebhookCall{}, err
	}
	return s.WebhookCall(ctx, teamID, newID)
}

// isTestCall is the SQL condition that holds for a test call (alias c): one made by its caller,
// never by a delivery workflow. It is written with dispatch_after 'infinity', which no dispatch
// reaches; NextWebhookCall skips it too, so that a test left pending (its caller stopped before
// closing it) is never retried, not even by the workflow of a resent test, which shares its route.
const isTestCall = `coalesce(c.dispatch_after = 'infinity', false)`

// StartTestCall records a test of webhook webhookID of team teamID: an event of type event with
// payload (a sample, for no envelope) and its call, whose one attempt the caller makes now and
// records with FinishWebhookAttempt, then FailWebhookCall when it was not delivered. The call is never dispatched.
func (s *Store) StartTestCall(ctx context.Context, teamID int64, webhookID string, event envelope.WebhookEvent, payload []byte, owner string) (WebhookDelivery, error) {
	d := WebhookDelivery{WebhookID: webhookID, Event: event, Payload: payload, Attempt: 1, At: time.Now().UTC().Truncate(time.Millisecond)}
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.q.QueryRow(ctx, `SELECT webhook_url, enabled FROM webhooks WHERE id = $1 AND team_id = $2`, webhookID, teamID).Scan(&d.URL, &d.Enabled); err != nil {
			return notFound(err, "Webhook")
		}
		d.EventID, d.CallID = newWebhookEventID(), newCUID()
		if _, err := tx.q.Exec(ctx, `INSERT INTO webhook_events (id, team_id, envelope_id, event, payload, created_at) VALUES ($1, $2, '', $3, $4, $5)`,
			d.EventID, teamID, event, payload, d.At); err != nil {
			return fmt.Errorf("write a test event: %w", err)
		}
		// Never dispatched (isTestCall): a test is one attempt, made by the caller, never retried.
		if _, err := tx.q.Exec(ctx, `INSERT INTO webhook_calls (id, webhook_id, event_id, envelope_id, dispatched_at, dispatch_after)
			VALUES ($1, $2, $3, '', now(), 'infinity')`,
			d.CallID, webhookID, d.EventID); err != nil {
			return fmt.Errorf("write a test call: %w", err)
		}
		_, err := tx.q.Exec(ctx, `INSERT INTO webhook_attempts (call_id, attempt, owner, lease_until) VALUES ($1, 1, $2, now() + interval '1 minute')`, d.CallID, owner)
		return err
	})
	return d, err
}

// PurgeWebhookCalls deletes the calls created before before that nobody delivers any more (done,
// failed, of a disabled webhook, or tests), with their attempts, and the events left without a
// call; it returns how many calls it deleted. A call still pending for an enabled webhook stays,
// however old: its route's workflow is delivering it or will (an endpoint failing for long holds
// each of a route's calls up to 37 h), and it ends FAILED and counted, never dropped.
func (s *Store) PurgeWebhookCalls(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `DELETE FROM webhook_calls c USING webhooks w WHERE w.id = c.webhook_id AND c.created_at < $1
			AND (c.status <> 'PENDING' OR NOT w.enabled OR `+isTestCall+`)`, before)
		if err != nil {
			return fmt.Errorf("purge webhook calls: %w", err)
		}
		n = tag.RowsAffected()
		_, err = tx.q.Exec(ctx, `DELETE FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_calls c WHERE c.event_id = e.id)`, before)
		if err != nil {
			return fmt.Errorf("purge webhook events: %w", err)
		}
		return nil
	})
	return n, err
}
