package dispatch

import (
	"context"
	"errors"
	"time"
)

// The wait before listening again after the connection broke: it doubles from the first to the
// last, and starts again from the first once a connection has lasted listenSteady.
const (
	listenFirstRetry = time.Second
	listenLastRetry  = 30 * time.Second
	listenSteady     = time.Minute
)

// errListenEnded stands for a listener that returned without error while ctx still runs.
var errListenEnded = errors.New("the listener ended")

// listen keeps the store's listener running until ctx ends, calling wake on each notification.
// After a broken connection it waits (listenFirstRetry, doubling to listenLastRetry), listens
// again and calls wake once: a notification sent meanwhile was lost.
func (d *Dispatcher) listen(ctx context.Context, wake func()) {
	retry := listenFirstRetry
	for {
		began := time.Now()
		err := d.Store.ListenWebhooks(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errListenEnded
		}
		if time.Since(began) >= listenSteady {
			retry = listenFirstRetry
		}
		d.log().Warn("listen for webhook calls; listening again later", "err", err, "retryIn", retry)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(2*retry, listenLastRetry)
		wake()
	}
}
