package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The store's activities (short PostgreSQL reads and writes) run as local activities: inside the
// workflow task, with one marker event for their result. A local activity that keeps failing
// past the workflow task timeout makes the SDK extend the task, three events every few seconds,
// so an outage of PostgreSQL grows the history by about 1,350 events an hour until Temporal
// terminates the workflow. Runs started since "bounded-local" give a store call a few local
// attempts within localBudget; when it still fails with an error worth retrying (retryable),
// the same activity runs again as a regular activity, whose retries, for up to storeRetryFor,
// add no event: an outage costs a handful of events per call, however long it lasts.

// localBudget is how long a store call's local attempts may take in all: well under the
// workflow task timeout (10 s by default), so that the task is never extended.
const localBudget = 6 * time.Second

// storeRetryFor is how long a store call is retried before it fails the step: a database that is
// down for minutes or days delays the envelope, it does not end it.
const storeRetryFor = 7 * 24 * time.Hour

// localCtx runs the store's calls of runs started before "bounded-local": local attempts only,
// retried for up to storeRetryFor.
func localCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout:    15 * time.Second,
		ScheduleToCloseTimeout: storeRetryFor,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second},
	})
}

// boundedLocalCtx gives a store call three local attempts within localBudget.
func boundedLocalCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout:    3 * time.Second,
		ScheduleToCloseTimeout: localBudget,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Second, MaximumAttempts: 3},
	})
}

// storeCtx runs a store call, once its local attempts failed, as a regular activity retried for
// up to storeRetryFor, backing off to storeRetryEvery between attempts. Its attempts are bounded
// beyond what storeRetryFor allows, so that the week ends them (Temporal's test environment, not
// the server, retries 10 times when no bound is set).
func storeCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: storeRetryFor,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: storeRetryEvery,
			MaximumAttempts: int32(2 * storeRetryFor / storeRetryEvery)},
	})
}

// storeRetryEvery is the longest wait between two attempts of a store call.
const storeRetryEvery = 5 * time.Minute

// retryable reports whether a store call that failed is worth trying again: not when the store
// refused it for good (a domain error, which the activities make non-retryable) nor when the
// workflow cancelled it; yes for any other failure (a refused connection, a timeout, a panic).
func retryable(err error) bool {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return !app.NonRetryable()
	}
	var canceled *temporal.CanceledError
	return err != nil && !errors.As(err, &canceled)
}

// db starts the store's activity name with args, as the run's version says (see above). Its
// Get waits for the result as a workflow.Future's does.
func (r *run) db(ctx workflow.Context, name string, args ...any) storeCall {
	if !r.boundedLocal {
		return storeCall{local: workflow.ExecuteLocalActivity(localCtx(ctx), name, args...)}
	}
	return storeCall{local: workflow.ExecuteLocalActivity(boundedLocalCtx(ctx), name, args...), ctx: ctx, name: name, args: args}
}

// storeCall is a store call under way.
type storeCall struct {
	local workflow.Future
	ctx   workflow.Context // nil: no regular activity after the local attempts
	name  string
	args  []any
}

// Get waits for the call's result into out (a pointer, or nil): the local attempts', or, when
// they failed with a retryable error, the regular activity's.
func (c storeCall) Get(ctx workflow.Context, out any) error {
	err := c.local.Get(ctx, out)
	if err == nil || c.ctx == nil || !retryable(err) || ctx.Err() != nil {
		return err
	}
	workflow.GetLogger(ctx).Warn("store call failed within its local budget; retrying it as an activity", "activity", c.name, "err", err)
	return workflow.ExecuteActivity(storeCtx(c.ctx), c.name, c.args...).Get(ctx, out)
}
