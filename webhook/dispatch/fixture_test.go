package dispatch_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/webhook/dispatch"
)

// recorder is the Waker: it stands for Temporal and records every route it was asked to wake.
// While failing returns true for a route, waking it fails (and is counted in refused).
type recorder struct {
	mu      sync.Mutex
	woken   []envelope.WebhookRoute
	refused int
	failing atomic.Pointer[func(envelope.WebhookRoute) bool]
}

func (r *recorder) WakeWebhookDelivery(ctx context.Context, route envelope.WebhookRoute) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fail := r.failing.Load(); fail != nil && (*fail)(route) {
		r.refused++
		return errors.New("temporal unavailable")
	}
	r.woken = append(r.woken, route)
	return nil
}

func (r *recorder) routes() []envelope.WebhookRoute {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.woken)
}

func (r *recorder) count(route envelope.WebhookRoute) int {
	n := 0
	for _, w := range r.routes() {
		if w == route {
			n++
		}
	}
	return n
}

// fixture is a team with one webhook subscribed to DOCUMENT_CREATED, on a database of its own.
type fixture struct {
	store  *persistence.Store
	url    string
	member envelope.Member
	hook   persistence.Webhook
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	store, url := pgtest.NewWithURL(t)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := store.CreateWebhook(ctx, m, persistence.NewWebhook{URL: "https://hooks.example.com/sobre",
		EventTriggers: []envelope.WebhookEvent{envelope.WebhookDocumentCreated}, Enabled: true,
		Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{store: store, url: url, member: m, hook: hook}
}

// createIn creates a draft envelope in tx, which writes its DOCUMENT_CREATED event to the outbox.
func (f fixture) createIn(ctx context.Context, tx *persistence.Tx, title string) (string, error) {
	return tx.CreateEnvelope(ctx, f.member, persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: title, Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF " + title), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}, envelope.MemberActor(f.member, "", ""))
}

// create commits a new envelope and returns the route of its call.
func (f fixture) create(t *testing.T, title string) envelope.WebhookRoute {
	t.Helper()
	ctx := context.Background()
	var id string
	if err := f.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		id, err = f.createIn(ctx, tx, title)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return f.route(id)
}

func (f fixture) route(envelopeID string) envelope.WebhookRoute {
	return envelope.WebhookRoute{EnvelopeID: envelopeID, TeamID: f.member.TeamID} // one route per envelope, for all its webhooks
}

// query reads one value from the database behind the store's back.
func (f fixture) query(t *testing.T, dst any, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(dst); err != nil {
		t.Fatal(err)
	}
}

// undispatched counts the PENDING calls of envelopeID (all envelopes when empty) not yet
// handed to their workflow.
func (f fixture) undispatched(t *testing.T, envelopeID string) int {
	var n int
	f.query(t, &n, `SELECT count(*) FROM webhook_calls WHERE dispatched_at IS NULL AND ($1 = '' OR envelope_id = $1)`, envelopeID)
	return n
}

// listenerPID is the backend of the dispatcher's listener, 0 while none listens.
func (f fixture) listenerPID(t *testing.T) int {
	var pid int
	f.query(t, &pid, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+persistence.WebhookChannel+`'`)
	return pid
}

// run starts d until the end of the test, which fails unless Run then returns nil promptly.
// stop ends it earlier.
func run(t *testing.T, d *dispatch.Dispatcher) (stop func()) {
	t.Helper()
	if d.Log == nil {
		d.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v after its context ended", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// eventually polls cond until it holds, failing the test after a deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hanging answers no wake until its context ends (a Temporal that does not answer); it counts
// them.
type hanging struct {
	calls atomic.Int32
}

func (h *hanging) WakeWebhookDelivery(ctx context.Context, r envelope.WebhookRoute) error {
	h.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}
