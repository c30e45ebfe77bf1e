package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// sealCtx runs the seal: long enough for a large document, heartbeating, retried until it
// succeeds (a seal that keeps failing shows as this activity's last failure in the Temporal UI
// and in the SDK's activity failure metrics; the signatures are already stored).
// sealCtx retries a failing seal 8 times over about 20 minutes (5 s doubling to 10 min), then
// gives up to seal (below). Refusals (non-retryable errors) give up at once.
func sealCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute, MaximumAttempts: 8},
	})
}

// sealRetryAfter is how long a workflow whose seal failed (but was not refused) waits before
// trying again by itself.
const sealRetryAfter = time.Hour

// seal runs SealEnvelope until it succeeds. When it gives up (a refusal: the sealed document
// would not show what the signers were shown, a document cannot be read, the seal panicked; or
// a failure that outlasted the retries) the workflow never completes with a different or a
// missing seal: it records why in its memo (sealFailure, shown in the Temporal Web UI) and its
// log, mails the owner, and waits for the retry-seal signal, or, unless the seal was refused,
// an hour. The envelope stays PENDING meanwhile, with every signature recorded.
func (r *run) seal(ctx workflow.Context) error {
	retry := workflow.GetSignalChannel(ctx, SignalRetrySeal)
	for attempt := r.sealAttempts; ; attempt++ {
		if r.sealWait != sealNoWait {
			if r.bounded && r.historyFull(ctx) {
				// Hourly attempts for weeks grow the history: unless a retry was asked, the
				// next run waits and tries again.
				if !retry.ReceiveAsync(nil) {
					r.sealAttempts = attempt
					return errContinue
				}
			} else if err := r.sealPause(ctx, retry); err != nil {
				return err
			}
			r.sealWait = sealNoWait
		}
		err := workflow.ExecuteActivity(sealCtx(ctx), actSealEnvelope, r.in.EnvelopeID).Get(ctx, nil)
		if err == nil {
			if attempt > 0 {
				if err := workflow.UpsertMemo(ctx, map[string]any{"sealFailure": nil}); err != nil {
					return err
				}
			}
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		reason, refused := err.Error(), false
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			reason, refused = appErr.Error(), appErr.NonRetryable()
		}
		workflow.GetLogger(ctx).Error("seal given up", "envelope", r.in.EnvelopeID, "refused", refused, "attempt", attempt, "err", err)
		if err := workflow.UpsertMemo(ctx, map[string]any{"sealFailure": reason}); err != nil {
			return err
		}
		r.queue(envelope.Mailing{Kind: envelope.MailOwnerSealFailed, EnvelopeID: r.in.EnvelopeID, Seq: attempt, Reason: reason}, nil)
		r.flush(ctx)
		r.sealWait = sealFailed
		if refused {
			r.sealWait = sealRefused
		}
	}
}

// How a given-up seal waits before its next attempt.
const (
	sealNoWait  = ""
	sealFailed  = "failed"  // for the retry-seal signal or sealRetryAfter
	sealRefused = "refused" // for the retry-seal signal only
)

// sealPause waits for the retry-seal signal or, unless the seal was refused, sealRetryAfter.
func (r *run) sealPause(ctx workflow.Context, retry workflow.ReceiveChannel) error {
	waitCtx, stop := workflow.WithCancel(ctx)
	defer stop()
	sel := workflow.NewSelector(waitCtx)
	sel.AddReceive(retry, func(c workflow.ReceiveChannel, _ bool) { c.Receive(waitCtx, nil) })
	if r.sealWait != sealRefused {
		sel.AddFuture(workflow.NewTimer(waitCtx, sealRetryAfter), func(workflow.Future) {})
	}
	sel.Select(waitCtx)
	return ctx.Err()
}
