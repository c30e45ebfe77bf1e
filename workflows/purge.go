package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// PurgeInput bounds one purge: at most Rounds activities of at most Batch rows per kind.
type PurgeInput struct {
	Batch  int
	Rounds int
}

// DefaultPurge is the purge the worker's Schedule runs.
var DefaultPurge = PurgeInput{Batch: 1000, Rounds: 50}

// PurgeWorkflow deletes expired signing sessions, access codes, Clave Única logins and stale
// code counts, Batch rows per kind at a time, until a round finds fewer than Batch of every kind
// or Rounds rounds ran (the next scheduled run goes on): its history stays short whatever is
// left. A Temporal Schedule started by the worker runs it (EnsurePurgeSchedule, worker package).
func PurgeWorkflow(ctx workflow.Context, in PurgeInput) (envelope.PurgeCounts, error) {
	if in.Batch <= 0 {
		in.Batch = DefaultPurge.Batch
	}
	if in.Rounds <= 0 {
		in.Rounds = DefaultPurge.Rounds
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5},
	})
	var total envelope.PurgeCounts
	for range in.Rounds {
		var c envelope.PurgeCounts
		if err := workflow.ExecuteActivity(ctx, actPurgeExpired, in.Batch).Get(ctx, &c); err != nil {
			return total, err
		}
		total.Add(c)
		if !c.Full(in.Batch) {
			break
		}
	}
	return total, nil
}
