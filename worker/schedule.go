package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/workflows"
)

// PurgeScheduleID is the id of the Schedule that purges expired ceremony records for the
// workers of taskQueue (one per deployment sharing a namespace).
func PurgeScheduleID(taskQueue string) string { return "sobre-purge:" + taskQueue }

// EnsurePurgeSchedule makes the Schedule that runs workflows.PurgeWorkflow with in every
// interval on taskQueue, or, when it exists, makes it so (ensureSchedule).
func EnsurePurgeSchedule(ctx context.Context, c client.Client, taskQueue string, every time.Duration, in workflows.PurgeInput) error {
	id := PurgeScheduleID(taskQueue)
	return ensureSchedule(ctx, c, id, every, &client.ScheduleWorkflowAction{ID: id, Workflow: workflows.PurgeWorkflow, Args: []any{in},
		TaskQueue: taskQueue, WorkflowExecutionTimeout: every})
}

// WebhookPurgeScheduleID is the id of the Schedule that purges old webhook calls for the
// workers of taskQueue.
func WebhookPurgeScheduleID(taskQueue string) string { return "sobre-webhook-purge:" + taskQueue }

// WebhookPurgeEvery is how often the webhook calls past their retention are purged.
const WebhookPurgeEvery = 24 * time.Hour

// EnsureWebhookPurgeSchedule makes the Schedule that runs workflows.WebhookPurgeWorkflow every
// interval on the webhook deliveries' queue of taskQueue (workflows.WebhookQueue), or, when it
// exists, makes it so (ensureSchedule).
func EnsureWebhookPurgeSchedule(ctx context.Context, c client.Client, taskQueue string, every time.Duration) error {
	id := WebhookPurgeScheduleID(taskQueue)
	return ensureSchedule(ctx, c, id, every, &client.ScheduleWorkflowAction{ID: id, Workflow: workflows.WebhookPurgeWorkflow,
		TaskQueue: workflows.WebhookQueue(taskQueue), WorkflowExecutionTimeout: every})
}

// ensureSchedule makes the Schedule id that starts action every interval, or, when it exists,
// makes it so: every worker calls it at start, and however many do, one Schedule remains. A run
// still going when the next is due makes that one skip.
func ensureSchedule(ctx context.Context, c client.Client, id string, every time.Duration, action *client.ScheduleWorkflowAction) error {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: id, Spec: spec, Action: action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
	if err == nil {
		return nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create the schedule %s: %w", id, err)
	}
	err = c.ScheduleClient().GetHandle(ctx, id).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(cur client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := cur.Description.Schedule
			s.Spec, s.Action = &spec, action
			if s.Policy == nil {
				s.Policy = &client.SchedulePolicies{}
			}
			s.Policy.Overlap = enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
			return &client.ScheduleUpdate{Schedule: &s}, nil
		},
	})
	if err != nil {
		return fmt.Errorf("update the schedule %s: %w", id, err)
	}
	return nil
}
