package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// SealQueue is the task queue of the seal activity of the workflows on taskQueue: a queue of its
// own, so that seals, long and heavy on CPU, run a bounded number at a time (the worker's
// SealConcurrency) and never hold up workflow tasks or the other activities.
func SealQueue(taskQueue string) string { return taskQueue + "-seal" }

// sealCtx runs the seal: long enough for a large document, heartbeating (so that a cancellation
// reaches it), retried with backoff from 5 s doubling to 10 min. Before "seal-classified" it is
// retried 8 times over about 20 minutes; since, the activity itself decides when to give up
// (activities.nextSealStep: at once for a refusal, after SOBRE_TSA_RETRY_FOR for an unavailable
// timestamp authority, after 8 attempts otherwise) and the 100 attempts (about 16 hours) are
// only a bound for a seal that never returns (a worker that dies in it each time). Since
// "seal-queue" it runs on the seal's own task queue (SealQueue).
func sealCtx(ctx workflow.Context, classified, ownQueue bool) workflow.Context {
	o := workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute, MaximumAttempts: 8},
	}
	if classified {
		o.RetryPolicy.MaximumAttempts = 100
	}
	if ownQueue {
		o.TaskQueue = SealQueue(workflow.GetInfo(ctx).TaskQueueName)
	}
	return workflow.WithActivityOptions(ctx, o)
}

// sealRetryAfter is how long a workflow whose seal failed (but was not refused) waits before
// trying again by itself.
const sealRetryAfter = time.Hour

// sealsOutsideLock reports whether the step seals a completed envelope before finish takes the
// lock (since "seal-outside-lock"): the Update handlers are not held while the seal runs or
// waits, and refuse to act, the envelope's ending being decided.
func (r *run) sealsOutsideLock(ctx workflow.Context) bool {
	return r.since(ctx, "seal-outside-lock")
}

// sealUnlocked, in the step and without the lock, seals an envelope whose ending is COMPLETED
// (since "seal-outside-lock"; before, finish sealed it under the lock).
func (r *run) sealUnlocked(ctx workflow.Context) error {
	if r.end == nil || r.end.status != envelope.StatusCompleted || !r.sealsOutsideLock(ctx) {
		return nil
	}
	return r.seal(ctx)
}

// sealsInFinish reports whether finish seals the envelope, under the lock: a completed envelope
// of a workflow that started before "seal-outside-lock" and reached its seal before it; and one
// of the first release (legacy), which never sealed, once it reaches its completion after
// "seal-legacy" (those that completed before stay unsealed).
func (r *run) sealsInFinish(ctx workflow.Context) bool {
	switch {
	case r.end.status != envelope.StatusCompleted:
		return false
	case r.legacy:
		return r.since(ctx, "seal-legacy")
	}
	return !r.sealsOutsideLock(ctx)
}

// seal runs SealEnvelope until it succeeds. When it gives up (a refusal: no seal configured,
// an audit log that does not verify, a sealed document that would not show what the signers
// were shown, a document that cannot be read, the seal panicked; a timestamp authority that
// stayed unavailable; or a failure that outlasted the retries) the workflow never completes
// with a different or a missing seal: it records why in its memo (sealFailure, shown in the
// Temporal Web UI) and its log, mails the owner (once for a TSA outage, since
// "seal-classified"), and waits for the retry-seal signal, or, unless the seal was refused, an
// hour. The envelope stays PENDING meanwhile, with every signature recorded. Cancelling the
// workflow ends the wait, and cancels a running seal (its activity stops at its next
// heartbeat).
func (r *run) seal(ctx workflow.Context) error {
	ownQueue := r.since(ctx, "seal-queue")
	classified := r.since(ctx, "seal-classified")
	retry := workflow.GetSignalChannel(ctx, SignalRetrySeal)
	for attempt := r.sealAttempts; ; attempt++ {
		before := r.sealWait
		if r.sealWait != sealNoWait {
			if r.bounded && r.historyFull(ctx) {
				// Hourly attempts for weeks grow the history: unless a retry was asked, the
				// next run waits and tries again.
				if !retry.ReceiveAsync(nil) {
					r.sealAttempts = attempt
					return errContinue
				}
			} else if err := r.sealPause(ctx, retry, classified); err != nil {
				return err
			}
			r.sealWait = sealNoWait
		}
		err := workflow.ExecuteActivity(sealCtx(ctx, classified, ownQueue), actSealEnvelope, r.in.EnvelopeID).Get(ctx, nil)
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
		reason, wait := sealGaveUp(err)
		workflow.GetLogger(ctx).Error("seal given up", "envelope", r.in.EnvelopeID, "wait", wait, "attempt", attempt, "err", err)
		if err := workflow.UpsertMemo(ctx, map[string]any{"sealFailure": reason}); err != nil {
			return err
		}
		if !classified || wait != sealTSA || before != sealTSA {
			r.queue(envelope.Mailing{Kind: envelope.MailOwnerSealFailed, EnvelopeID: r.in.EnvelopeID, Seq: attempt, Reason: reason}, nil)
			r.flush(ctx)
		}
		r.sealWait = wait
	}
}

// How a given-up seal waits before its next attempt.
const (
	sealNoWait  = ""
	sealFailed  = "failed"  // for the retry-seal signal or sealRetryAfter
	sealTSA     = "tsa"     // as sealFailed: the timestamp authority stayed unavailable
	sealRefused = "refused" // for the retry-seal signal only
)

// sealGaveUp is why a seal gave up with err, as the owner and the memo read it, and how the
// workflow waits before its next attempt: a non-retryable error is a refusal, unless its type
// is an envelope.SealFailure that RetriesByItself; any other error outlasted its retries.
func sealGaveUp(err error) (reason, wait string) {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		return err.Error(), sealFailed
	}
	f := envelope.SealFailure(appErr.Type())
	switch {
	case !appErr.NonRetryable():
		return appErr.Error(), sealFailed
	case f == envelope.SealTSAUnavailable:
		return appErr.Error(), sealTSA
	case f.RetriesByItself():
		return appErr.Error(), sealFailed
	}
	return appErr.Error(), sealRefused
}

// sealPause waits for the retry-seal signal or, unless the seal was refused, sealRetryAfter; a
// cancellable pause also ends when ctx is cancelled.
func (r *run) sealPause(ctx workflow.Context, retry workflow.ReceiveChannel, cancellable bool) error {
	waitCtx, stop := workflow.WithCancel(ctx)
	defer stop()
	sel := workflow.NewSelector(waitCtx)
	sel.AddReceive(retry, func(c workflow.ReceiveChannel, _ bool) { c.Receive(waitCtx, nil) })
	if r.sealWait != sealRefused {
		sel.AddFuture(workflow.NewTimer(waitCtx, sealRetryAfter), func(workflow.Future) {})
	}
	if cancellable {
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	}
	sel.Select(waitCtx)
	return ctx.Err()
}
