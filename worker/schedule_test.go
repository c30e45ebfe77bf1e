package worker_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/sdk/client"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// The worker's Schedule purges expired ceremony records on the real dev server and PostgreSQL:
// setting it up twice leaves one Schedule (changed to the last interval asked), a run deletes
// what expired in bounded batches and keeps what is live.
func TestPurgeSchedule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url := pgtest.NewURL(t)
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	recipient := seedRecipient(t, store)

	// Seven expired sessions (one with an access code and a login under it), two live ones with
	// an expired login and a code expired long ago and a recent one; two code guards that count
	// nothing and one that locked once; a view from an hour ago and one from now.
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	hash := func() []byte {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return b
	}
	var expired, live [][]byte
	for range 7 {
		h := hash()
		expired = append(expired, h)
		exec(`INSERT INTO ceremony_sessions (id_hash, recipient_id, expires_at) VALUES ($1, $2, now() - interval '1 minute')`, h, recipient.ID)
	}
	for range 2 {
		h := hash()
		live = append(live, h)
		exec(`INSERT INTO ceremony_sessions (id_hash, recipient_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, h, recipient.ID)
	}
	exec(`INSERT INTO access_codes (recipient_id, session_hash, code_hmac, expires_at) VALUES ($1, $2, 'x', now() + interval '5 minutes')`, recipient.ID, expired[0])
	exec(`INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at) VALUES ($1, $2, $3, 'n', now() + interval '5 minutes')`, hash(), expired[0], recipient.ID)
	exec(`INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at) VALUES ($1, $2, $3, 'n', now() - interval '1 second')`, hash(), live[0], recipient.ID)
	exec(`INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at) VALUES ($1, $2, $3, 'n', now() + interval '5 minutes')`, hash(), live[0], recipient.ID)
	exec(`INSERT INTO access_codes (recipient_id, session_hash, code_hmac, expires_at) VALUES ($1, $2, 'x', now() - interval '2 hours')`, recipient.ID, live[0])
	exec(`INSERT INTO access_codes (recipient_id, session_hash, code_hmac, expires_at) VALUES ($1, $2, 'x', now() - interval '5 minutes')`, recipient.ID, live[1])
	exec(`INSERT INTO document_views (recipient_id, session_id, viewed_at) VALUES ($1, 'old', now() - interval '1 hour'), ($1, 'new', now())`, recipient.ID)
	other := seedRecipient(t, store)
	third := seedRecipient(t, store)
	exec(`INSERT INTO access_code_guards (recipient_id, link_version, failures, locks) VALUES ($1, 0, 0, 0), ($2, 0, 3, 1), ($3, 0, 2, 0)`,
		recipient.ID, other.ID, third.ID)
	exec(`UPDATE recipients SET link_version = 1 WHERE id = $1`, third.ID) // its count belongs to a replaced link

	c := temporaltest.Client(t, nil)
	queue := temporaltest.TaskQueue(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w, err := worker.New(c, worker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log,
		Activities: &activities.Activities{Store: store, Log: log}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)

	in := workflows.PurgeInput{Batch: 3, Rounds: 10}
	if err := worker.EnsurePurgeSchedule(ctx, c, queue, time.Hour, in); err != nil {
		t.Fatal(err)
	}
	h := c.ScheduleClient().GetHandle(ctx, worker.PurgeScheduleID(queue))
	t.Cleanup(func() { _ = h.Delete(context.Background()) })
	if err := worker.EnsurePurgeSchedule(ctx, c, queue, 2*time.Hour, in); err != nil {
		t.Fatalf("again: %v", err)
	}
	d, err := h.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if iv := d.Schedule.Spec.Intervals; len(iv) != 1 || iv[0].Every != 2*time.Hour {
		t.Errorf("schedule intervals after the second set-up: %+v, want every 2h", iv)
	}
	n := 0
	iter, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for iter.HasNext() {
		s, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		if s.ID == worker.PurgeScheduleID(queue) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d purge schedules for the queue, want 1", n)
	}

	workflowID, runID := trigger(t, ctx, h)
	var got envelope.PurgeCounts
	if err := c.GetWorkflow(ctx, workflowID, runID).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	want := envelope.PurgeCounts{Sessions: 7, AccessCodes: 1, Logins: 1, CodeGuards: 2, Views: 1}
	if got != want {
		t.Errorf("purged %+v, want %+v", got, want)
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{`SELECT count(*) FROM ceremony_sessions WHERE expires_at < now()`, 0},
		{`SELECT count(*) FROM ceremony_sessions`, 2},
		{`SELECT count(*) FROM access_codes`, 1},      // the recent one; the one under an expired session went with it
		{`SELECT count(*) FROM claveunica_logins`, 1}, // the live session's live login
		{`SELECT count(*) FROM document_views`, 1},
		{`SELECT count(*) FROM access_code_guards`, 1}, // the one that locked once
	} {
		if n := count(c.sql); n != c.want {
			t.Errorf("%s = %d, want %d", c.sql, n, c.want)
		}
	}
	// Batches of 3: seven sessions took three rounds, each an activity of its own.
	hist := temporaltest.History(t, c, workflowID)
	activitiesRun := 0
	for _, ev := range hist.Events {
		if ev.GetActivityTaskScheduledEventAttributes() != nil {
			activitiesRun++
		}
	}
	if activitiesRun != 3 {
		t.Errorf("%d purge activities for 7 sessions in batches of 3, want 3", activitiesRun)
	}
}

// trigger runs the Schedule h now and returns the run it started.
func trigger(t *testing.T, ctx context.Context, h client.ScheduleHandle) (workflowID, runID string) {
	t.Helper()
	if err := h.Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		if ctx.Err() != nil {
			t.Fatal("the triggered run never started")
		}
		d, err := h.Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if acts := d.Info.RecentActions; len(acts) > 0 {
			return acts[0].StartWorkflowResult.WorkflowID, acts[0].StartWorkflowResult.FirstExecutionRunID
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var seeded int

// seedRecipient writes a draft envelope with one signer and returns the signer.
func seedRecipient(t *testing.T, store *persistence.Store) envelope.Recipient {
	t.Helper()
	ctx := context.Background()
	seeded++
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: fmt.Appendf(nil, "%%PDF purge %d", seeded), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Recipients[0]
}
