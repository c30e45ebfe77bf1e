package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/webhook"
	"github.com/sobre-sign/sobre/webhook/dispatch"
)

// benchReceiver is a local endpoint that answers 204 at once and counts what it got, with the
// times of the first and the last request.
type benchReceiver struct {
	*httptest.Server
	mu          sync.Mutex
	n           int
	first, last time.Time
}

func newBenchReceiver(b *testing.B) *benchReceiver {
	rx := &benchReceiver{}
	rx.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rx.mu.Lock()
		now := time.Now()
		if rx.n == 0 {
			rx.first = now
		}
		rx.n, rx.last = rx.n+1, now
		rx.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rx.Close)
	return rx
}

func (rx *benchReceiver) total() (n int, span time.Duration) {
	rx.mu.Lock()
	defer rx.mu.Unlock()
	return rx.n, rx.last.Sub(rx.first)
}

// newWebhookStack is a stack whose team (the drafts' Acme) has n webhooks subscribed to triggers,
// all pointing at one local receiver, with the outbox's dispatcher running. The dispatcher is
// started by start, so that a benchmark may fill the outbox first.
func newWebhookStack(b *testing.B, n int, triggers ...envelope.WebhookEvent) (*stack, *benchReceiver, func()) {
	ctx := context.Background()
	store := pgtest.New(b)
	s := newStackWith(b, store, func(a *activities.Activities) {
		a.Webhooks = webhook.NewSender(webhook.Policy{AllowPrivate: true}, nil)
	})
	rx := newBenchReceiver(b)
	m, err := store.EnsureMember(ctx, "Acme", "owner@acme.test", "Owner", envelope.TeamRoleAdmin)
	if err != nil {
		b.Fatal(err)
	}
	for range n {
		if _, err := store.CreateWebhook(ctx, m, persistence.NewWebhook{URL: rx.URL + "/in", EventTriggers: triggers, Enabled: true,
			Secret: webhook.NewSecret()}); err != nil {
			b.Fatal(err)
		}
	}
	start := func() {
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = (&dispatch.Dispatcher{Store: store, Waker: s.flows, Every: time.Second}).Run(ctx)
		}()
		b.Cleanup(func() { cancel(); <-done })
	}
	return s, rx, start
}

// waitDelivered waits until rx got want requests and reports how fast they came.
func waitDelivered(b *testing.B, rx *benchReceiver, want int) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		got, span := rx.total()
		if got >= want {
			if span > 0 {
				b.ReportMetric(float64(got)/span.Seconds(), "webhook-requests/s")
			}
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d webhook requests arrived in 5 minutes", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Events delivered per second to a local endpoint: b.N envelopes' DOCUMENT_CREATED written to
// the outbox, then the dispatcher started; the time runs until the endpoint has every one.
func BenchmarkWebhookDelivery(b *testing.B) {
	s, rx, start := newWebhookStack(b, 1, envelope.WebhookDocumentCreated)
	for range b.N {
		s.draft(b, envelope.SigningOrderParallel, false)
	}
	b.ResetTimer()
	start()
	waitDelivered(b, rx, b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
