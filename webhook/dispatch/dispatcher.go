package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The defaults of a Dispatcher's zero fields.
const (
	DefaultEvery       = 30 * time.Second
	DefaultStale       = 12 * time.Hour
	DefaultBatch       = 200
	DefaultWakeTimeout = 10 * time.Second
	DefaultBackoff     = 30 * time.Second
	DefaultParallel    = 8
)

// errPassStalled is the answer to the routes left in a pass after a wake ran out of time.
var errPassStalled = fmt.Errorf("an earlier wake of this look ran out of time: %w", persistence.ErrNotDispatched)

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
	// WakeTimeout bounds one Waker call (DefaultWakeTimeout when zero). A wake that runs out of
	// time ends its transaction's pass: the routes left wait for the next look, so that a
	// Temporal that does not answer holds the outbox's locks for one WakeTimeout, not one per
	// route.
	WakeTimeout time.Duration
	// Parallel is how many routes a look wakes at once (DefaultParallel when zero): with a
	// Temporal far away, a look is not one round trip per route long.
	Parallel int
	// Backoff is how long the calls of a route whose wake failed wait before a look takes them
	// again (DefaultBackoff when zero), so that a route that cannot be woken never holds back the
	// others.
	Backoff time.Duration
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

// drain dispatches batch after batch while the last one dispatched a route and no wake of it ran
// out of time: a batch that dispatched none found nothing waiting, or only routes whose wake
// failed, which the next look tries again.
func (d *Dispatcher) drain(ctx context.Context) {
	batch, stale := orDefault(d.Batch, DefaultBatch), orDefault(d.Stale, DefaultStale)
	for ctx.Err() == nil {
		var stalled atomic.Bool
		n, err := d.Store.DispatchWebhookCalls(ctx, batch, orDefault(d.Parallel, DefaultParallel), stale, orDefault(d.Backoff, DefaultBackoff),
			func(r envelope.WebhookRoute) error {
				if stalled.Load() {
					return errPassStalled
				}
				timedOut, err := d.wake(ctx, r)
				if timedOut {
					stalled.Store(true)
				}
				return err
			})
		if err != nil {
			if ctx.Err() == nil {
				d.log().Error("dispatch webhook calls", "err", err)
			}
			return
		}
		if n == 0 || stalled.Load() {
			return
		}
	}
}

// wake wakes route r's workflow within WakeTimeout, logging a failure by the route's ids only;
// timedOut reports that the Waker ran out of time.
func (d *Dispatcher) wake(ctx context.Context, r envelope.WebhookRoute) (timedOut bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, orDefault(d.WakeTimeout, DefaultWakeTimeout))
	defer cancel()
	err = d.Waker.WakeWebhookDelivery(wctx, r)
	result := resultWoken
	if err != nil {
		result = resultFailed
		timedOut = wctx.Err() != nil && ctx.Err() == nil
		d.log().Warn("wake webhook delivery; its calls wait for the next look", "webhookId", r.WebhookID,
			"envelopeId", r.EnvelopeID, "teamId", r.TeamID, "timedOut", timedOut, "err", err)
	}
	if d.Counted != nil {
		d.Counted.WithLabelValues(result).Inc()
	}
	return timedOut, err
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
