package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/webhook/dispatch"
)

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
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: 100 * time.Millisecond, Backoff: 200 * time.Millisecond})

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
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never, Batch: 3, Parallel: 1})
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
	// Every wake of this dispatcher hangs, so that a later look of its own (a listener that
	// reconnects signals one) dispatches nothing either.
	waker := &hanging{}
	d := &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: never, WakeTimeout: 100 * time.Millisecond, Backoff: time.Millisecond, Parallel: 1}
	stop := run(t, d)
	eventually(t, "the first wake timed out and its look ended", func() bool {
		var free int
		// Calls no transaction holds: the look's transaction has ended.
		f.query(t, &free, `SELECT count(*) FROM (SELECT id FROM webhook_calls FOR UPDATE SKIP LOCKED) c`)
		return waker.calls.Load() >= 1 && free == len(want)
	})
	if n := waker.calls.Load(); n != 1 {
		t.Errorf("the look went on after a wake ran out of time: %d wakes", n)
	}
	stop()
	if n := f.undispatched(t, ""); n != len(want) {
		t.Errorf("%d calls undispatched, want %d", n, len(want))
	}

	var woken recorder
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: &woken, Every: never, Parallel: 1})
	eventually(t, "every call dispatched by the next look", func() bool { return f.undispatched(t, "") == 0 })
	if got := woken.routes(); !slices.Equal(got, want) {
		t.Errorf("woke %v, want %v", got, want)
	}
}

// A route that cannot be woken never holds back the others: its calls wait for a backoff, so a
// look whose batch it would fill takes the next route's instead.
func TestFailingRouteDoesNotStarveOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	refused, accepted := f.create(t, "refused first"), f.create(t, "accepted after")
	waker := &recorder{}
	fail := func(r envelope.WebhookRoute) bool { return r == refused }
	waker.failing.Store(&fail)
	run(t, &dispatch.Dispatcher{Store: f.store, Waker: waker, Every: 100 * time.Millisecond, Batch: 1})
	eventually(t, "the route behind the failing one woken", func() bool { return waker.count(accepted) == 1 })
	if n := f.undispatched(t, refused.EnvelopeID); n != 1 {
		t.Errorf("%d undispatched calls of the refused route, want 1", n)
	}
}
