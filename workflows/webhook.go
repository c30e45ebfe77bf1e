package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// WebhookWakeSignal tells a webhook's delivery workflow that its route has a new call.
const WebhookWakeSignal = "webhook-wake"

// WebhookQueue is the task queue of the webhook deliveries of the workflows on taskQueue: a
// queue of their own, so that slow endpoints hold only the webhook worker's slots, never the
// envelope workflows' (docs/webhooks.md, Delivery).
func WebhookQueue(taskQueue string) string { return taskQueue + "-webhook" }

// WebhookWorkflowID is the id of the workflow that delivers webhook webhookID's calls for
// envelope envelopeID: one at a time, so that they arrive in order.
func WebhookWorkflowID(webhookID, envelopeID string) string {
	return "webhook-" + webhookID + "-" + envelopeID
}

// webhookIdle is how long a delivery workflow with nothing to deliver waits for a wake signal
// before it ends.
const webhookIdle = time.Minute

// webhookCallsPerRun is how many calls one run delivers before it continues as new, so that a
// busy route's history stays short.
const webhookCallsPerRun = 100

// webhookAttemptCtx runs one attempt of a call: the sender gives up after 15 s, so 30 s ends only
// a worker that hangs; the activity is retried (a claim another worker holds, a worker killed
// mid-attempt, the store away) without bound, backing off to a minute, unless it refuses for
// good (a domain error). Retrying the activity is not the schedule: the attempt is the same, its
// claim in PostgreSQL keeps it from being made twice at once.
func webhookAttemptCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
}

// WebhookWorkflow delivers the pending calls of one webhook for one envelope (route), oldest
// event first, each until an attempt succeeds or the schedule (envelope.WebhookRetryDelay) runs
// out: then the call is FAILED and the next goes. A 410 disables the webhook (its admins are
// mailed) and ends the workflow, as does a webhook found disabled or deleted. With nothing
// pending it waits webhookIdle for a wake signal (WebhookWakeSignal), then ends; it continues
// as new after webhookCallsPerRun calls or when Temporal suggests it. Its history holds call ids
// and outcomes only: no secret, no payload, no URL.
func WebhookWorkflow(ctx workflow.Context, route envelope.WebhookRoute) error {
	wake := workflow.GetSignalChannel(ctx, WebhookWakeSignal)
	for delivered := 0; ; {
		var next envelope.WebhookNext
		if err := workflow.ExecuteActivity(webhookAttemptCtx(ctx), actNextWebhookCall, route).Get(ctx, &next); err != nil {
			return err
		}
		if !next.Found {
			woken, err := awaitWake(ctx, wake, webhookIdle)
			if err != nil {
				return err
			}
			if woken || drainWake(wake) {
				continue
			}
			return nil
		}
		stop, err := deliverCall(ctx, route, next)
		if err != nil || stop {
			return err
		}
		delivered++
		if delivered >= webhookCallsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			drainWake(wake) // the next run reads the store first: the signals have nothing to add
			return workflow.NewContinueAsNewError(ctx, WebhookWorkflow, route)
		}
	}
}

// deliverCall makes the attempts of call next that are left, each after its delay, until one
// succeeds or the last fails (the call is then FAILED); next.First is the outcome of an attempt
// made already by the step that found it. stop is true when delivery must end: the webhook
// answered 410 (it is disabled here) or was found disabled or deleted.
func deliverCall(ctx workflow.Context, route envelope.WebhookRoute, next envelope.WebhookNext) (stop bool, err error) {
	out := envelope.WebhookAttemptOutcome{Outcome: next.First}
	for n := next.Attempts + 1; ; n++ {
		switch out.Outcome {
		case envelope.WebhookSuccess, envelope.WebhookDone:
			return false, nil // the store says what is next
		case envelope.WebhookGone:
			return true, workflow.ExecuteActivity(mailCtx(ctx), actDisableWebhook, route).Get(ctx, nil)
		case envelope.WebhookInactive:
			return true, nil
		}
		delay, ok := envelope.WebhookRetryDelay(n)
		if !ok {
			failure := envelope.WebhookCallFailure{CallID: next.CallID, TeamID: route.TeamID}
			return false, workflow.ExecuteActivity(storeCtx(ctx), actFailWebhookCall, failure).Get(ctx, nil)
		}
		if delay > 0 {
			if err := workflow.Sleep(ctx, delay); err != nil {
				return false, err
			}
		}
		step := envelope.WebhookAttemptStep{CallID: next.CallID, Attempt: n}
		out = envelope.WebhookAttemptOutcome{}
		if err := workflow.ExecuteActivity(webhookAttemptCtx(ctx), actAttemptWebhookCall, step).Get(ctx, &out); err != nil {
			return false, err
		}
	}
}

// awaitWake waits up to d for a wake signal, and reports whether one came; the signals that
// came with it are taken too.
func awaitWake(ctx workflow.Context, wake workflow.ReceiveChannel, d time.Duration) (bool, error) {
	timerCtx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	woken := false
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		woken = true
	})
	sel.AddFuture(workflow.NewTimer(timerCtx, d), func(workflow.Future) {})
	sel.Select(ctx)
	if woken {
		drainWake(wake)
	}
	return woken, ctx.Err()
}

// drainWake takes the wake signals waiting, and reports whether there was any.
func drainWake(wake workflow.ReceiveChannel) bool {
	drained := false
	for wake.ReceiveAsync(nil) {
		drained = true
	}
	return drained
}
