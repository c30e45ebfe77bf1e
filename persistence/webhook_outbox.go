// The webhooks' outbox: events written in the transaction of the change that caused them, and
// handed to the dispatcher after the commit.

package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

// WebhookChannel is the PostgreSQL notification channel told, on commit, that the outbox holds
// calls to dispatch.
const WebhookChannel = "sobre_webhooks"

// outboxEntry is webhook events of one envelope that happened at one time, to be written to the
// outbox when the transaction ends.
type outboxEntry struct {
	envelopeID string
	at         time.Time
	events     []envelope.WebhookEvent
}

// emitWebhooks queues, in this order, events of envelope envelopeID, which happened at at, for the
// outbox, written when the transaction ends (writeOutbox): their payload is then the envelope as
// the transaction leaves it, every change of the transaction made.
func (tx *Tx) emitWebhooks(ctx context.Context, envelopeID string, at time.Time, events ...envelope.WebhookEvent) error {
	if len(events) > 0 {
		tx.outbox = append(tx.outbox, outboxEntry{envelopeID: envelopeID, at: at, events: events})
	}
	return nil
}

// writeOutbox writes the events the transaction queued (emitWebhooks), in order. Each envelope's
// payload is read once, as the transaction leaves it.
func (tx *Tx) writeOutbox(ctx context.Context) error {
	payloads := map[string][]byte{}
	for _, o := range tx.outbox {
		if err := tx.writeWebhookEvents(ctx, o.envelopeID, o.at, payloads, o.events...); err != nil {
			return err
		}
	}
	tx.outbox = nil
	return nil
}

// writeWebhookEvents writes to the outbox events of envelope envelopeID, which happened at at, in
// this order: for each event some enabled webhook of the envelope's team subscribes to, one event
// row whose payload is the envelope as it is now in the transaction (view.NewEnvelope, tokens
// masked; kept in payloads by envelope), and one PENDING call per such webhook; then it notifies
// WebhookChannel, which PostgreSQL delivers only if the transaction commits. Events nobody
// subscribes to cost one query and write nothing. An envelope about to be removed writes its
// events before it goes (HardDelete), the others when the transaction ends (emitWebhooks).
func (tx *Tx) writeWebhookEvents(ctx context.Context, envelopeID string, at time.Time, payloads map[string][]byte, events ...envelope.WebhookEvent) error {
	if len(events) == 0 {
		return nil
	}
	rows, err := tx.q.Query(ctx, `SELECT ev, w.id, w.team_id, w.user_id, m.role, e.user_id, e.visibility
		FROM unnest($2::text[]) WITH ORDINALITY AS t(ev, n)
		JOIN envelopes e ON e.id = $1
		JOIN webhooks w ON w.team_id = e.team_id AND w.enabled AND t.ev = ANY(w.event_triggers)
		LEFT JOIN team_members m ON m.team_id = w.team_id AND m.user_id = w.user_id
		ORDER BY t.n, w.created_at, w.id`, envelopeID, fromEnums(events))
	if err != nil {
		return fmt.Errorf("webhooks of %s: %w", envelopeID, err)
	}
	type subscriber struct {
		event     envelope.WebhookEvent
		webhookID string
		teamID    int64
		sees      bool
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (subscriber, error) {
		var s subscriber
		var creator, owner int64
		var role *envelope.TeamRole
		var visibility envelope.Visibility
		err := row.Scan(&s.event, &s.webhookID, &s.teamID, &creator, &role, &owner, &visibility)
		s.sees = role != nil && envelope.MaySee(envelope.Member{TeamID: s.teamID, UserID: creator, Role: *role},
			envelope.Owned{TeamID: s.teamID, OwnerID: owner, Visibility: visibility})
		return s, err
	})
	if err != nil {
		return fmt.Errorf("read webhooks of %s: %w", envelopeID, err)
	}
	// A webhook carries only what the member who made it may read.
	subs = slices.DeleteFunc(subs, func(s subscriber) bool { return !s.sees })
	if len(subs) == 0 {
		return nil
	}
	payload, ok := payloads[envelopeID]
	if !ok {
		if payload, err = tx.webhookPayload(ctx, envelopeID); err != nil {
			return err
		}
		payloads[envelopeID] = payload
	}
	eventID := map[envelope.WebhookEvent]string{}
	for _, s := range subs {
		id, ok := eventID[s.event]
		if !ok {
			id = newWebhookEventID()
			eventID[s.event] = id
			if _, err := tx.q.Exec(ctx, `INSERT INTO webhook_events (id, team_id, envelope_id, event, payload, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, id, s.teamID, envelopeID, s.event, payload, at); err != nil {
				return fmt.Errorf("write webhook event %s of %s: %w", s.event, envelopeID, err)
			}
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO webhook_calls (id, webhook_id, event_id, envelope_id) VALUES ($1, $2, $3, $4)`,
			newCUID(), s.webhookID, id, envelopeID); err != nil {
			return fmt.Errorf("write webhook call of %s to %s: %w", s.event, s.webhookID, err)
		}
	}
	return tx.notifyWebhooks(ctx)
}

// webhookPayload is envelope id as its owner reads it, without any signing token, in JSON.
func (tx *Tx) webhookPayload(ctx context.Context, id string) ([]byte, error) {
	var one oneEnvelope
	b := &pgx.Batch{}
	// No keyring: the recipients are read without their tokens.
	one.queue(b, nil, id, true, "")
	if err := tx.q.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("load envelope %s: %w", id, err)
	}
	e, err := one.result()
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(view.NewEnvelope(e, true))
	if err != nil {
		return nil, fmt.Errorf("encode the webhook payload of %s: %w", id, err)
	}
	return payload, nil
}

// notifyWebhooks tells the dispatcher, on commit, that calls wait.
func (tx *Tx) notifyWebhooks(ctx context.Context) error {
	if _, err := tx.q.Exec(ctx, `SELECT pg_notify($1, '')`, WebhookChannel); err != nil {
		return fmt.Errorf("notify %s: %w", WebhookChannel, err)
	}
	return nil
}

// redispatch hands webhook id's pending calls to the dispatcher again (it was enabled again).
func (tx *Tx) redispatch(ctx context.Context, id string) error {
	if _, err := tx.q.Exec(ctx, `UPDATE webhook_calls SET dispatched_at = NULL WHERE webhook_id = $1 AND status = 'PENDING'`, id); err != nil {
		return fmt.Errorf("redispatch the calls of webhook %s: %w", id, err)
	}
	return tx.notifyWebhooks(ctx)
}

// newWebhookEventID is a new event id, the webhook-id of its requests.
func newWebhookEventID() string { return "msg_" + randomString(idAlphabet, 24) }

// ErrNotDispatched is what a dispatch function answers for a route it did not try: its calls
// stay as they are, without the backoff of a failed one.
var ErrNotDispatched = errors.New("the route was not tried")

// DispatchWebhookCalls takes up to limit calls waiting for the dispatcher, oldest first: calls
// never dispatched, and calls with no progress for stale (their workflow was stopped by hand),
// of enabled webhooks. dispatch starts or wakes the workflow of each of their routes, once per
// route, up to parallel routes at a time (dispatch must be safe for concurrent use); the calls of the routes it returns without error are marked dispatched, and it returns
// how many routes those were. The calls of a route dispatch failed for wait backoff, so
// that a route that cannot be woken never holds back the others. Two dispatchers never take the
// same call (FOR UPDATE SKIP LOCKED); a dispatcher that dies before its commit leaves them to the
// next.
func (s *Store) DispatchWebhookCalls(ctx context.Context, limit, parallel int, stale, backoff time.Duration, dispatch func(envelope.WebhookRoute) error) (int, error) {
	n := 0
	err := s.InTx(ctx, func(tx *Tx) error {
		type pending struct {
			callID string
			route  envelope.WebhookRoute
		}
		var list []pending
		// Two queries, each served by its own partial index, so that a look costs what it takes,
		// never a scan of every pending call: the calls never dispatched, oldest first, then the
		// stale ones.
		staleBefore := time.Now().Add(-stale)
		for _, which := range []string{
			`c.dispatched_at IS NULL ORDER BY c.seq`,
			`c.dispatched_at IS NOT NULL AND c.updated_at < @staleBefore ORDER BY c.updated_at`,
		} {
			rows, err := tx.q.Query(ctx, `SELECT c.id, c.envelope_id, w.team_id FROM webhook_calls c
				JOIN webhooks w ON w.id = c.webhook_id AND w.enabled
				WHERE c.status = 'PENDING' AND (c.dispatch_after IS NULL OR c.dispatch_after <= now()) AND `+which+`
				LIMIT @limit FOR UPDATE OF c SKIP LOCKED`, pgx.NamedArgs{"limit": limit - len(list), "staleBefore": staleBefore})
			if err != nil {
				return fmt.Errorf("pending webhook calls: %w", err)
			}
			more, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pending, error) {
				var p pending
				return p, row.Scan(&p.callID, &p.route.EnvelopeID, &p.route.TeamID)
			})
			if err != nil {
				return fmt.Errorf("read pending webhook calls: %w", err)
			}
			if list = append(list, more...); len(list) >= limit {
				break
			}
		}
		// Each route is woken once, up to parallel at a time.
		var routes []envelope.WebhookRoute
		for _, p := range list {
			if !slices.Contains(routes, p.route) {
				routes = append(routes, p.route)
			}
		}
		woken := make([]error, len(routes))
		var g errgroup.Group
		g.SetLimit(max(parallel, 1))
		for i, r := range routes {
			g.Go(func() error { woken[i] = dispatch(r); return nil })
		}
		_ = g.Wait()
		done := map[envelope.WebhookRoute]error{}
		for i, r := range routes {
			if done[r] = woken[i]; woken[i] == nil {
				n++
			}
		}
		var ids, failed []string
		for _, p := range list {
			if err := done[p.route]; err == nil {
				ids = append(ids, p.callID)
			} else if !errors.Is(err, ErrNotDispatched) {
				failed = append(failed, p.callID)
			}
		}
		if _, err := tx.q.Exec(ctx, `UPDATE webhook_calls SET dispatched_at = now(), dispatch_after = NULL, updated_at = now() WHERE id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("mark webhook calls dispatched: %w", err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE webhook_calls SET dispatch_after = now() + $2 * interval '1 millisecond' WHERE id = ANY($1)`,
			failed, backoff.Milliseconds()); err != nil {
			return fmt.Errorf("hold back webhook calls: %w", err)
		}
		return nil
	})
	return n, err
}

// ListenWebhooks calls wake each time the outbox is told of new calls (WebhookChannel), until ctx
// ends; it returns the error that broke the connection otherwise. It listens on a connection of
// its own, outside the pool, so that it never takes one from the queries.
func (s *Store) ListenWebhooks(ctx context.Context, wake func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("listen for webhooks: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+WebhookChannel); err != nil {
		return fmt.Errorf("listen for webhooks: %w", err)
	}
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for webhooks: %w", err)
		}
		wake()
	}
}
