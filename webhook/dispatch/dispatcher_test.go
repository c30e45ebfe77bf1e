package dispatch_test

import (
	"context"
	"errors"
	"fmt"
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
	return envelope.WebhookRoute{WebhookID: f.hook.ID, EnvelopeID: envelopeID, TeamID: f.member.TeamID}
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

// never is how long the notification-only tests' dispatchers wait between looks of their own:
// longer than any test, so only a notification (or the start) makes them look.
const never = time.Hour

// A committed change is dispatched on its notification alone, once, and its call marked
// dispatched.
func TestCommittedEventIsDispatchedOnItsNotification(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	waker := &recorder{}
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never})
	eventually(t, "listening", func() bool { return f.listenerPID(t) != 0 })

	route := f.create(t, "notified")
	eventually(t, "woken", func() bool { return waker.count(route) == 1 })
	eventually(t, "marked dispatched", func() bool { return f.undispatched(t, route.EnvelopeID) == 0 })
	if got := waker.routes(); len(got) != 1 {
		t.Errorf("woke %v, want only %v", got, route)
	}
}

// A change rolled back writes no call and sends no notification: nothing of it is dispatched,
// while a change committed after it is.
func TestRolledBackChangeDispatchesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	waker := &recorder{}
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never})
	eventually(t, "listening", func() bool { return f.listenerPID(t) != 0 })

	ctx := context.Background()
	rollBack := errors.New("roll back")
	var rolledBack string
	err := f.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		if rolledBack, err = f.createIn(ctx, tx, "rolled back"); err != nil {
			return err
		}
		return rollBack
	})
	if !errors.Is(err, rollBack) || rolledBack == "" {
		t.Fatalf("InTx: %v, envelope %q", err, rolledBack)
	}
	committed := f.create(t, "committed")
	eventually(t, "the committed change woken", func() bool { return waker.count(committed) == 1 })
	if got := waker.routes(); len(got) != 1 || got[0] != committed {
		t.Errorf("woke %v, want only %v (not %v)", got, committed, f.route(rolledBack))
	}
}

// Two dispatchers (two worker processes) looking at the same outbox at once never both wake a
// route for the same call: each call's route is woken exactly once.
func TestTwoDispatchersNeverTakeTheSameCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other, err := persistence.Open(context.Background(), f.url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)

	var want []envelope.WebhookRoute
	for i := range 30 {
		want = append(want, f.create(t, fmt.Sprint("before ", i)))
	}
	a, b := &recorder{}, &recorder{}
	stopA := run(t, &dispatch.Dispatcher{Store: f.store, Waker: a, Every: never, Batch: 3})
	stopB := run(t, &dispatch.Dispatcher{Store: other, Waker: b, Every: never, Batch: 3})
	eventually(t, "both listening", func() bool {
		var n int
		f.query(t, &n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN `+persistence.WebhookChannel+`'`)
		return n == 2
	})
	for i := range 10 {
		want = append(want, f.create(t, fmt.Sprint("after ", i)))
	}
	eventually(t, "every call dispatched", func() bool { return f.undispatched(t, "") == 0 })
	stopA()
	stopB()

	woken := append(a.routes(), b.routes()...)
	for _, r := range want {
		if n := a.count(r) + b.count(r); n != 1 {
			t.Errorf("route %v woken %d times, want once", r, n)
		}
	}
	if len(woken) != len(want) {
		t.Errorf("%d wakes for %d calls", len(woken), len(want))
	}
	t.Logf("dispatcher A woke %d routes, B %d", len(a.routes()), len(b.routes()))
}

// A route whose wake fails keeps its calls undispatched, while the other routes of the same
// look go; the next look, with no notification, dispatches it.
func TestFailedWakeLeavesTheCallForTheNextLook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	refused, accepted := f.create(t, "refused"), f.create(t, "accepted")
	waker := &recorder{}
	fail := func(r envelope.WebhookRoute) bool { return r == refused }
	waker.failing.Store(&fail)
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: 100 * time.Millisecond})

	eventually(t, "the other route woken", func() bool { return waker.count(accepted) == 1 })
	eventually(t, "the failing route tried", func() bool {
		waker.mu.Lock()
		defer waker.mu.Unlock()
		return waker.refused > 0
	})
	if n := f.undispatched(t, refused.EnvelopeID); n != 1 {
		t.Errorf("%d undispatched calls of the refused route, want 1", n)
	}
	if n := f.undispatched(t, accepted.EnvelopeID); n != 0 {
		t.Errorf("%d undispatched calls of the woken route, want 0", n)
	}

	waker.failing.Store(nil)
	eventually(t, "the refused route woken at a later look", func() bool { return waker.count(refused) == 1 })
	eventually(t, "its call marked dispatched", func() bool { return f.undispatched(t, refused.EnvelopeID) == 0 })
	if n := waker.count(accepted); n != 1 {
		t.Errorf("the other route woken %d times, want once", n)
	}
}

// A call committed while no dispatcher ran (a crash between the commit and its dispatch) is
// dispatched by the next dispatcher to start, without any notification.
func TestDispatcherStartedAfterTheCommitDispatchesIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	route := f.create(t, "left behind")
	waker := &recorder{}
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never})
	eventually(t, "woken", func() bool { return waker.count(route) == 1 })
	eventually(t, "marked dispatched", func() bool { return f.undispatched(t, route.EnvelopeID) == 0 })
}

// A listener whose connection is killed listens again, on a new connection, and a change
// committed after that is dispatched on its notification.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	waker := &recorder{}
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never})
	var first int
	eventually(t, "listening", func() bool { first = f.listenerPID(t); return first != 0 })
	var killed bool
	f.query(t, &killed, `SELECT pg_terminate_backend($1)`, first)
	if !killed {
		t.Fatalf("backend %d not terminated", first)
	}
	eventually(t, "listening again", func() bool { pid := f.listenerPID(t); return pid != 0 && pid != first })

	route := f.create(t, "after the reconnection")
	eventually(t, "woken", func() bool { return waker.count(route) == 1 })
}

// One look takes batch after batch until the outbox is empty, without waiting for a
// notification or the next look.
func TestOneLookTakesEveryBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var want []envelope.WebhookRoute
	for i := range 10 {
		want = append(want, f.create(t, fmt.Sprint("waiting ", i)))
	}
	waker := &recorder{}
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never, Batch: 3})
	eventually(t, "every call dispatched", func() bool { return f.undispatched(t, "") == 0 })
	if got := waker.routes(); !slices.Equal(got, want) {
		t.Errorf("woke %v, want %v in the order of their events", got, want)
	}
}

// A wake that runs out of time (Temporal not answering) ends its look: the routes after it are
// not tried in the same transaction, which holds the outbox's locks for one WakeTimeout only;
// the next look dispatches them.
func TestWakeOutOfTimeEndsTheLook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var want []envelope.WebhookRoute
	for i := range 4 {
		want = append(want, f.create(t, fmt.Sprint("held ", i)))
	}
	waker := &hangingOnce{}
	d := &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never, WakeTimeout: 100 * time.Millisecond}
	stop := run(t, d)
	eventually(t, "the first wake timed out and its look ended", func() bool {
		var free int
		// Calls no transaction holds: the look's transaction has ended.
		f.query(t, &free, `SELECT count(*) FROM (SELECT id FROM webhook_calls FOR UPDATE SKIP LOCKED) c`)
		return waker.calls.Load() >= 1 && free == len(want)
	})
	if n, woken := waker.calls.Load(), waker.woken.routes(); n != 1 || len(woken) != 0 {
		t.Errorf("the look went on after a wake ran out of time: %d wakes, %v woken", n, woken)
	}
	if n := f.undispatched(t, ""); n != len(want) {
		t.Errorf("%d calls undispatched, want %d", n, len(want))
	}
	stop()

	run(t, &dispatch.Dispatcher{Store: f.store, Waker: &waker.woken, Every: never})
	eventually(t, "every call dispatched by the next look", func() bool { return f.undispatched(t, "") == 0 })
	if got := waker.woken.routes(); !slices.Equal(got, want) {
		t.Errorf("woke %v, want %v", got, want)
	}
}

// hangingOnce does not answer its first wake until its context ends; it records the others.
type hangingOnce struct {
	calls atomic.Int32
	woken recorder
}

func (h *hangingOnce) WakeWebhookDelivery(ctx context.Context, r envelope.WebhookRoute) error {
	if h.calls.Add(1) == 1 {
		<-ctx.Done()
		return ctx.Err()
	}
	return h.woken.WakeWebhookDelivery(ctx, r)
}
