package dispatch

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The defaults of a Dispatcher's zero fields.
const (
	DefaultEvery = 30 * time.Second
	DefaultStale = 12 * time.Hour
	DefaultBatch = 200
)

// wakeTimeout bounds one Waker call, so that a Temporal that does not answer holds the outbox's
// locks no longer than this per route.
const wakeTimeout = 15 * time.Second

// Waker starts, or wakes when it runs, the delivery workflow of route r. Waking a running
// workflow again is harmless: it delivers whatever calls of r are pending.
type Waker interface {
	WakeWebhookDelivery(ctx context.Context, r envelope.WebhookRoute) error
}

// Dispatcher hands the outbox's calls to their delivery workflows. It looks when PostgreSQL
// tells it that a transaction wrote calls (persistence.WebhookChannel), when it starts (calls a
// crash left undispatched), and every Every anyway (a missed notification, a failed wake). Any
// number of dispatchers may run at once: no call is taken by two (persistence.DispatchWebhookCalls).
type Dispatcher struct {
	Store *persistence.Store
	Waker Waker
	Log   *slog.Logger
	// Every is how often it looks without being told (DefaultEvery when zero).
	Every time.Duration
	// Stale is how long a dispatched call may go without progress before it is dispatched
	// again, its workflow stopped by hand (DefaultStale when zero). It must be far longer than
	// one look takes.
	Stale time.Duration
	// Batch is how many calls one transaction takes (DefaultBatch when zero).
	Batch int
	// Counted counts each route's wake by result (NewDispatched); nil counts nothing.
	Counted *prometheus.CounterVec
}

// Run dispatches until ctx ends, then returns nil once its listener has stopped. A failing
// database or Temporal is logged and tried again, never in a busy loop.
func (d *Dispatcher) Run(ctx context.Context) error {
	every := orDefault(d.Every, DefaultEvery)
	wake := make(chan struct{}, 1)
	signal := func() {
		select {
		case wake <- struct{}{}:
		default: // a look is already due: wakes coalesce
		}
	}
	var listening sync.WaitGroup
	listening.Add(1)
	go func() {
		defer listening.Done()
		d.listen(ctx, signal)
	}()
	defer listening.Wait()

	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		d.drain(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// drain dispatches batch after batch while the last one dispatched a route: a batch that
// dispatched none found nothing waiting, or only routes whose wake failed, which the next look
// tries again.
func (d *Dispatcher) drain(ctx context.Context) {
	batch, stale := orDefault(d.Batch, DefaultBatch), orDefault(d.Stale, DefaultStale)
	for ctx.Err() == nil {
		n, err := d.Store.DispatchWebhookCalls(ctx, batch, stale, func(r envelope.WebhookRoute) error {
			return d.wake(ctx, r)
		})
		if err != nil {
			if ctx.Err() == nil {
				d.log().Error("dispatch webhook calls", "err", err)
			}
			return
		}
		if n == 0 {
			return
		}
	}
}

// wake wakes route r's workflow, logging a failure by the route's ids only.
func (d *Dispatcher) wake(ctx context.Context, r envelope.WebhookRoute) error {
	ctx, cancel := context.WithTimeout(ctx, wakeTimeout)
	defer cancel()
	err := d.Waker.WakeWebhookDelivery(ctx, r)
	result := resultWoken
	if err != nil {
		result = resultFailed
		d.log().Warn("wake webhook delivery; its calls wait for the next look", "webhookId", r.WebhookID,
			"envelopeId", r.EnvelopeID, "teamId", r.TeamID, "err", err)
	}
	if d.Counted != nil {
		d.Counted.WithLabelValues(result).Inc()
	}
	return err
}

func (d *Dispatcher) log() *slog.Logger {
	if d.Log == nil {
		return slog.Default()
	}
	return d.Log
}

// orDefault is v, or def when v is zero or less.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
