package workflows

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// A bulk send runs as BulkSendWorkflow, workflow id BulkSendWorkflowID(job), on the envelopes'
// task queue. It walks the job's rows in order, BulkConcurrency at a time: for each, the
// activity BulkSendRow makes the row's document once and sends it when the job says so, or
// records the row FAILED; a row's failure never stops the others. Progress lives in
// PostgreSQL (the rows' statuses), not in the workflow. After BulkRowsPerRun rows (or when
// Temporal suggests it) the run waits for its rows in flight and continues as new from the
// next row. When every row is done, FinishBulkSend records the job COMPLETED and mails its
// owner the summary once.

const (
	// BulkConcurrency is how many rows of a job are worked on at once.
	BulkConcurrency = 20
	// BulkRowsPerRun is how many rows one run takes before it continues as new (about three
	// events each).
	BulkRowsPerRun = 250
)

// BulkHeartbeatTimeout is how long a row's attempt may go without a heartbeat before Temporal
// takes it for lost and tries again.
const BulkHeartbeatTimeout = 10 * time.Second

// BulkSendInput starts a bulk send's workflow, or continues it from row Next.
type BulkSendInput struct {
	JobID  string
	TeamID int64
	Total  int
	Next   int
	Runs   int `json:",omitempty"`
}

// BulkSendWorkflowID is the workflow id of job jobID's bulk send.
func BulkSendWorkflowID(jobID string) string { return "bulk-" + jobID }

// bulkActivity are the options of the bulk send's activities: a row's attempt makes one
// document and waits at most for its distribute (SOBRE_TEMPORAL_CALL_TIMEOUT); it heartbeats
// while it runs (activities.BulkHeartbeat), so the attempt of a worker that died is retried
// elsewhere within BulkHeartbeatTimeout. Failures that are not the row's (the database, Temporal
// away) are retried, for envelope.BulkRowAttempts, after which the row is FAILED with the last
// error (envelope.BulkRowFinal): a job always ends.
var bulkActivity = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    BulkHeartbeatTimeout,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
	},
}

// BulkSendWorkflow is a bulk send: see the comment above BulkConcurrency.
func BulkSendWorkflow(ctx workflow.Context, in BulkSendInput) error {
	ctx = workflow.WithActivityOptions(ctx, bulkActivity)
	sel := workflow.NewSelector(ctx)
	inFlight, taken := 0, 0
	var failed error
	for in.Next < in.Total || inFlight > 0 {
		full := taken >= BulkRowsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
		if in.Next < in.Total && inFlight < BulkConcurrency && !full && failed == nil {
			ref := envelope.BulkRowRef{JobID: in.JobID, Index: in.Next}
			f := workflow.ExecuteActivity(ctx, actBulkSendRow, ref)
			sel.AddFuture(f, func(f workflow.Future) {
				inFlight--
				var st envelope.BulkRowStatus
				if err := f.Get(ctx, &st); err != nil && failed == nil {
					failed = err
				}
			})
			in.Next++
			inFlight++
			taken++
			continue
		}
		if inFlight == 0 {
			break // a full run, drained, or a failure
		}
		sel.Select(ctx)
	}
	if failed != nil {
		return failed
	}
	if in.Next < in.Total {
		in.Runs++
		return workflow.NewContinueAsNewError(ctx, BulkSendWorkflow, in)
	}
	return workflow.ExecuteActivity(ctx, actFinishBulkSend, in.JobID).Get(ctx, nil)
}

// StartBulkSend starts job jobID's workflow (total rows, of team teamID), findable in the
// Temporal Web UI by its id and TeamId. A job has one workflow: a second start of a running or
// finished one is refused by Temporal and answered as done.
func (c *Client) StartBulkSend(ctx context.Context, jobID string, teamID int64, total int) error {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	opts := client.StartWorkflowOptions{
		ID:                       BulkSendWorkflowID(jobID),
		TaskQueue:                c.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes:    temporal.NewSearchAttributes(AttrTeamID.ValueSet(strconv.FormatInt(teamID, 10))),
	}
	_, err = c.Temporal.ExecuteWorkflow(ctx, opts, BulkSendWorkflow, BulkSendInput{JobID: jobID, TeamID: teamID, Total: total})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return fromError(fmt.Errorf("start bulk send %s: %w", jobID, err))
	}
	return nil
}
