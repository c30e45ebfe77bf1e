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

// webhookStepsPerRun is how many steps (looks for the next call, each delivering one call or
// more) one run takes before it continues as new, so that a busy route's history stays short.
const webhookStepsPerRun = 100

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

// webhookLocalCtx runs the step that looks for the next call, and delivers it when it can, as a
// local activity, once: it is the step of every event, and a local activity costs the Temporal
// server a marker in the workflow's task instead of a task of its own (the one figure that moves
// the life cycle's rate when webhooks are subscribed; `make bench`). It may outlast the workflow
// task's timeout (a slow endpoint): the SDK extends the task meanwhile. An error sends the step
// to webhookAttemptCtx.
func webhookLocalCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
}

// WebhookWorkflow delivers the pending calls of one webhook for one envelope (route), oldest
// event first, each until an attempt succeeds or the schedule (envelope.WebhookRetryDelay) runs
// out: then the call is FAILED and the next goes. A 410 disables the webhook (its admins are
// mailed) and ends the workflow, as does a webhook found disabled or deleted. With nothing
// pending it waits for a wake signal (WebhookWakeSignal) and ends once webhookIdle passed with
// nothing delivered (idleWait); it continues
// as new after webhookStepsPerRun steps or when Temporal suggests it. Its history holds call ids
// and outcomes only: no secret, no payload, no URL.
func WebhookWorkflow(ctx workflow.Context, route envelope.WebhookRoute) error {
	wake := workflow.GetSignalChannel(ctx, WebhookWakeSignal)
	var idle idleWait
	for delivered, steps := 0, 0; ; steps++ {
		if steps >= webhookStepsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			drainWake(wake) // the next run reads the store first: the signals have nothing to add
			return workflow.NewContinueAsNewError(ctx, WebhookWorkflow, route)
		}
		var next envelope.WebhookNext
		if err := workflow.ExecuteLocalActivity(webhookLocalCtx(ctx), actNextWebhookCall, route).Get(ctx, &next); err != nil {
			// A claim another worker holds, the store away: the step is retried as a regular
			// activity, on its schedule.
			if err := workflow.ExecuteActivity(webhookAttemptCtx(ctx), actNextWebhookCall, route).Get(ctx, &next); err != nil {
				return err
			}
		}
		delivered += next.Delivered
		switch {
		case next.Found:
			stop, err := deliverCall(ctx, route, next)
			if err != nil || stop {
				return err
			}
			delivered++
		case next.More:
		default:
			ended, err := idle.wait(ctx, wake, delivered)
			if err != nil || ended {
				return err
			}
		}
	}
}

// idleWait is a route's idle timer: started the first time the route has nothing to deliver, and
// kept across the waits that a wake signal ends, so that a busy route does not start and cancel a
// timer for every call.
type idleWait struct {
	timer workflow.Future
	since int // the calls delivered when the timer started
}

// wait waits for a wake signal or the idle timer. ended is true when the timer fired with no call
// delivered since it started and no signal waiting: the workflow may end. A timer that fired
// after calls were delivered is started again at the next wait.
func (w *idleWait) wait(ctx workflow.Context, wake workflow.ReceiveChannel, delivered int) (ended bool, err error) {
	if w.timer == nil {
		w.timer, w.since = workflow.NewTimer(ctx, webhookIdle), delivered
	}
	woken := false
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		woken = true
	})
	sel.AddFuture(w.timer, func(workflow.Future) {})
	sel.Select(ctx)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if woken {
		drainWake(wake)
		return false, nil
	}
	busy := delivered != w.since
	w.timer = nil
	return !busy && !drainWake(wake), nil
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

// drainWake takes the wake signals waiting, and reports whether there was any.
func drainWake(wake workflow.ReceiveChannel) bool {
	drained := false
	for wake.ReceiveAsync(nil) {
		drained = true
	}
	return drained
}
