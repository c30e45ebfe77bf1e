package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// WebhookPurgeWorkflow deletes the webhook calls, with their attempts, created more than
// envelope.WebhookRetention ago, and returns how many calls it deleted. A Temporal Schedule
// started by the worker runs it daily (EnsureWebhookPurgeSchedule, worker package).
func WebhookPurgeWorkflow(ctx workflow.Context) (int64, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5},
	})
	var n int64
	before := workflow.Now(ctx).Add(-envelope.WebhookRetention)
	err := workflow.ExecuteActivity(ctx, actPurgeWebhookCalls, before).Get(ctx, &n)
	return n, err
}
