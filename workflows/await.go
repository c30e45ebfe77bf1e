package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// awaitWithin waits until cond holds or d passes, and reports whether cond holds. The SDK's
// workflow.AwaitWithTimeout leaves its timer running when cond comes first (under its default
// flags): every wait of the main loop and of the Update handlers left a timer behind, to fire
// later in a workflow task of its own. Runs started since "cancel-timers" cancel the timer as
// soon as cond holds, and start none when it already does: the main loop has one deadline timer
// at a time.
func (r *run) awaitWithin(ctx workflow.Context, d time.Duration, cond func() bool) (bool, error) {
	if !r.cancelTimers {
		return workflow.AwaitWithTimeout(ctx, d, cond)
	}
	if cond() {
		return true, nil
	}
	timerCtx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	timer := workflow.NewTimer(timerCtx, d)
	if err := workflow.Await(ctx, func() bool { return cond() || timer.IsReady() }); err != nil {
		return false, err
	}
	return cond(), nil
}
