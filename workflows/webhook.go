package workflows

import (
	"slices"
	"strconv"
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

// WebhookWorkflowID is the id of the workflow that delivers the webhook calls of envelope
// envelopeID of team teamID: one workflow for all the envelope's webhooks, each line in order.
// The calls of resent tests, which have no envelope, go to one workflow per team.
func WebhookWorkflowID(teamID int64, envelopeID string) string {
	if envelopeID == "" {
		return "webhooks-tests-" + strconv.FormatInt(teamID, 10)
	}
	return "webhooks-" + envelopeID
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

// WebhookWorkflow delivers the webhook calls of one envelope (route names the envelope and its
// team), each webhook's line in the order its events happened, the lines side by side. A sweep
// (activity SweepWebhookCalls) delivers every line as far as it goes at once; a line with a call
// it cannot deliver at once goes on in a coroutine of its own (deliverCall), each attempt after
// its delay (envelope.WebhookRetryDelay), while the other lines go on: a failing endpoint holds
// back only its own line. A 410 disables that webhook (its admins are mailed); a webhook found
// disabled or deleted ends its line. With nothing pending and no line retrying, it waits for a
// wake signal (WebhookWakeSignal) and ends once webhookIdle passed with nothing delivered
// (idleWait); it continues as new after webhookStepsPerRun sweeps, or when Temporal suggests it,
// once no line is retrying. Its history holds ids and outcomes only: no secret, no payload, no URL.
// The webhooks it delivers to are its WebhookId search attribute.
func WebhookWorkflow(ctx workflow.Context, route envelope.WebhookRoute) error {
	wake := workflow.GetSignalChannel(ctx, WebhookWakeSignal)
	lines := &webhookLines{route: route, done: workflow.NewBufferedChannel(ctx, envelope.MaxWebhooks)}
	var idle idleWait
	for delivered, steps := 0, 0; ; steps++ {
		if lines.err != nil {
			return lines.err // a line ended with an error (its activities are retried without bound: cancelled)
		}
		if len(lines.retrying) == 0 && (steps >= webhookStepsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			drainWake(wake) // the next run reads the store first: the signals have nothing to add
			return workflow.NewContinueAsNewError(ctx, WebhookWorkflow, route)
		}
		// The sweep reads the store after every signal waiting (a wake is sent once its calls
		// are committed): they have nothing to add, not even the one that started the run.
		drainWake(wake)
		swept, err := lines.sweep(ctx)
		if err != nil {
			return err
		}
		delivered += swept.Delivered
		if err := lines.seen(ctx, swept.Webhooks); err != nil {
			return err
		}
		for _, next := range swept.Stuck {
			lines.retry(ctx, next)
		}
		if swept.More {
			continue
		}
		ended, err := idle.wait(ctx, wake, lines, delivered)
		if err != nil || ended {
			return err
		}
	}
}

// webhookLines are the lines of one envelope's delivery: those retrying in a coroutine of their
// own, the webhooks seen, and the channel on which a line tells that it is done.
type webhookLines struct {
	route    envelope.WebhookRoute
	retrying []string // sorted: the order of the history never depends on a map's
	webhooks []string
	done     workflow.Channel
	err      error // the first error a line ended with
}

// sweep runs SweepWebhookCalls for the lines not retrying: locally once, then, when that fails,
// as a regular activity retried on its schedule.
func (l *webhookLines) sweep(ctx workflow.Context) (envelope.WebhookSwept, error) {
	in := envelope.WebhookSweep{Route: l.route, Skip: slices.Clone(l.retrying)}
	var swept envelope.WebhookSwept
	if err := workflow.ExecuteLocalActivity(webhookLocalCtx(ctx), actSweepWebhookCalls, in).Get(ctx, &swept); err != nil {
		// A claim another worker holds, the store away: the sweep is retried as a regular
		// activity, on its schedule.
		err = workflow.ExecuteActivity(webhookAttemptCtx(ctx), actSweepWebhookCalls, in).Get(ctx, &swept)
		return swept, err
	}
	return swept, nil
}

// seen adds webhooks to the ones the workflow delivers to, and to its WebhookId search attribute.
func (l *webhookLines) seen(ctx workflow.Context, webhooks []string) error {
	added := false
	for _, id := range webhooks {
		if !slices.Contains(l.webhooks, id) {
			l.webhooks, added = append(l.webhooks, id), true
		}
	}
	if !added {
		return nil
	}
	slices.Sort(l.webhooks)
	return workflow.UpsertTypedSearchAttributes(ctx, AttrWebhookIDs.ValueSet(l.webhooks))
}

// retry goes on with next, the call of its webhook's line that a sweep could not deliver at once,
// in a coroutine of its own; when it is done the line is swept again (done is buffered for every
// webhook a team may have, so a line never waits to say so).
func (l *webhookLines) retry(ctx workflow.Context, next envelope.WebhookNext) {
	l.retrying = append(l.retrying, next.WebhookID)
	slices.Sort(l.retrying)
	line := envelope.WebhookRoute{WebhookID: next.WebhookID, EnvelopeID: l.route.EnvelopeID, TeamID: l.route.TeamID}
	workflow.Go(ctx, func(ctx workflow.Context) {
		_, err := deliverCall(ctx, line, next)
		if err != nil && l.err == nil {
			l.err = err
		}
		l.retrying = slices.DeleteFunc(l.retrying, func(id string) bool { return id == next.WebhookID })
		l.done.Send(ctx, next.WebhookID)
	})
}

// idleWait is the idle timer of an envelope's delivery: started the first time it has nothing to
// deliver, and kept across the waits that a wake signal ends, so that a busy envelope does not
// start and cancel a timer for every call; dropped while a line retries.
type idleWait struct {
	timer workflow.Future
	since int // the calls delivered when the timer started
}

// wait waits for a wake signal, a retrying line to be done, or, when no line retries, the idle
// timer. ended is true when the timer fired with no call delivered since it started, no line
// retrying and no signal waiting: the workflow may end. A timer that fired after calls were
// delivered is started again at the next wait.
func (w *idleWait) wait(ctx workflow.Context, wake workflow.ReceiveChannel, lines *webhookLines, delivered int) (ended bool, err error) {
	retrying := len(lines.retrying) > 0
	switch {
	case retrying:
		// A line retrying is not idle, and what it delivers is not counted: the timer starts
		// again once no line retries.
		w.timer = nil
	case w.timer == nil:
		w.timer, w.since = workflow.NewTimer(ctx, webhookIdle), delivered
	}
	woken := false
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		woken = true
	})
	sel.AddReceive(lines.done, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		woken = true
	})
	if !retrying {
		// While a line retries, only a signal or its end wakes the workflow: no sweep every
		// idle minute for the hours a line may wait.
		sel.AddFuture(w.timer, func(workflow.Future) {})
	}
	sel.Select(ctx)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if woken {
		drainWake(wake)
		return false, nil
	}
	busy := delivered != w.since || len(lines.retrying) > 0
	for lines.done.ReceiveAsync(nil) {
		busy = true // a line was done as the timer fired: it is swept again
	}
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
