package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/worker"
)

// The worker's Schedule purges webhook calls past their 30 days on the real dev server and
// PostgreSQL: set up twice it is one Schedule, changed to the last interval; a run deletes the
// old delivered call with its attempts and event, and keeps the recent ones.
func TestWebhookPurgeSchedule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := newHookEnv(t, ctx)
	r := newReceiver(t)
	w, _ := e.subscribe(t, ctx, r)
	e.lifecycle(t, ctx)
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The first event's call is 31 days old, with an attempt; the others are 29 days old and new.
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE event = 'DOCUMENT_CREATED'`)
	exec(`UPDATE webhook_calls c SET created_at = e.created_at FROM webhook_events e WHERE e.id = c.event_id`)
	exec(`UPDATE webhook_calls c SET created_at = now() - interval '29 days' FROM webhook_events e WHERE e.id = c.event_id AND e.event = 'DOCUMENT_SENT'`)
	exec(`INSERT INTO webhook_attempts (call_id, attempt, owner, lease_until) SELECT c.id, 1, 'x', now() FROM webhook_calls c
		JOIN webhook_events e ON e.id = c.event_id WHERE e.event = 'DOCUMENT_CREATED'`)
	// Delivered long ago: a call still pending is kept, however old.
	exec(`UPDATE webhook_calls c SET status = 'SUCCESS' FROM webhook_events e WHERE e.id = c.event_id AND e.event = 'DOCUMENT_CREATED'`)

	queue := e.client.TaskQueue
	if err := worker.EnsureWebhookPurgeSchedule(ctx, e.client.Temporal, queue, time.Hour); err != nil {
		t.Fatal(err)
	}
	h := e.client.Temporal.ScheduleClient().GetHandle(ctx, worker.WebhookPurgeScheduleID(queue))
	t.Cleanup(func() { _ = h.Delete(context.Background()) })
	if err := worker.EnsureWebhookPurgeSchedule(ctx, e.client.Temporal, queue, worker.WebhookPurgeEvery); err != nil {
		t.Fatalf("again: %v", err)
	}
	d, err := h.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if iv := d.Schedule.Spec.Intervals; len(iv) != 1 || iv[0].Every != worker.WebhookPurgeEvery {
		t.Errorf("schedule intervals after the second set-up: %+v, want every %v", iv, worker.WebhookPurgeEvery)
	}
	workflowID, runID := trigger(t, ctx, h)
	var purged int64
	if err := e.client.Temporal.GetWorkflow(ctx, workflowID, runID).Get(ctx, &purged); err != nil {
		t.Fatal(err)
	}
	if purged != 1 {
		t.Errorf("purged %d calls, want 1", purged)
	}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{`SELECT count(*) FROM webhook_calls WHERE webhook_id = '` + w.ID + `'`, 2},
		{`SELECT count(*) FROM webhook_events WHERE event = 'DOCUMENT_CREATED'`, 0},
		{`SELECT count(*) FROM webhook_attempts`, 0},
	} {
		if n := count(c.sql); n != c.want {
			t.Errorf("%s = %d, want %d", c.sql, n, c.want)
		}
	}
}
