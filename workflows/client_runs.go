package workflows

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
)

// startOptions start the envelope's workflow with in. A run is started only when no run is
// running (a running one takes the call: USE_EXISTING), and whenever the runs before ended,
// however they ended (ALLOW_DUPLICATE): PostgreSQL, not the id's past, decides whether a new
// run has anything to do. The first run of a draft marks it PENDING; a pickup run (in.Pickup)
// leaves an envelope that is not PENDING as it is.
func (c *Client) startOptions(in Input) client.StartWorkflowOptions {
	attrs := []temporal.SearchAttributeUpdate{AttrEnvelopeID.ValueSet(in.EnvelopeID)}
	if in.TeamID != 0 {
		attrs = append(attrs, AttrTeamID.ValueSet(strconv.FormatInt(in.TeamID, 10)))
	}
	if !in.Pickup {
		attrs = append(attrs, AttrStatus.ValueSet(string(envelope.StatusDraft)))
	}
	return client.StartWorkflowOptions{
		ID:                       in.EnvelopeID,
		TaskQueue:                c.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		TypedSearchAttributes:    temporal.NewSearchAttributes(attrs...),
	}
}

// closedOrMissing reports whether err says the envelope's workflow is not running: it ended
// (Temporal answers an Update or a signal to a closed workflow "workflow execution already
// completed", a NotFound), or it never ran or was deleted.
func closedOrMissing(err error) bool {
	var notFound *serviceerror.NotFound
	return errors.As(err, &notFound)
}

// refreshClosed tells a closed workflow of a change: a pickup run is started with the signal,
// unless the workflow never ran or its runs were deleted.
func (c *Client) refreshClosed(ctx context.Context, envelopeID string) error {
	if _, err := c.Temporal.DescribeWorkflowExecution(ctx, envelopeID, ""); closedOrMissing(err) {
		return nil
	} else if err != nil {
		return err
	}
	in := Input{EnvelopeID: envelopeID, Pickup: true}
	_, err := c.Temporal.SignalWithStartWorkflow(ctx, envelopeID, SignalRefresh, nil, c.startOptions(in), EnvelopeWorkflow, in)
	return err
}

// Run says how an envelope's workflow stands in Temporal.
type Run string

// How a workflow stands: RunRunning (its current run is open), RunEnded (its last run completed:
// the envelope finished, or was abandoned), RunFailed (its last run failed, was terminated,
// timed out or was cancelled) or RunMissing (it never ran, or Temporal deleted its runs).
const (
	RunRunning = Run("running")
	RunEnded   = Run("ended")
	RunFailed  = Run("failed")
	RunMissing = Run("missing")
)

// RunOf asks Temporal how the envelope's workflow stands (its latest run).
func (c *Client) RunOf(ctx context.Context, envelopeID string) (Run, error) {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return "", err
	}
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, envelopeID, "")
	if closedOrMissing(err) {
		return RunMissing, nil
	}
	if err != nil {
		return "", fromError(fmt.Errorf("describe the workflow of %s: %w", envelopeID, err))
	}
	switch d.GetWorkflowExecutionInfo().GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return RunRunning, nil // continued as new: its next run is starting
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return RunEnded, nil
	}
	return RunFailed, nil
}

// Stuck reports whether an envelope whose status is status, and whose workflow stands as run,
// is stuck: PENDING with no run to move it, and not abandoned by design (its run ended, or was
// deleted, while the envelope was abandoned: envelope.Abandoned, at the time of asking). A run
// that failed or was terminated leaves its envelope stuck however it stands: the new run notes
// what the lost one did not. Only PostgreSQL's status counts: an envelope that is not PENDING
// is never stuck, whatever its workflow.
func Stuck(status envelope.Status, run Run, abandoned bool) bool {
	if status != envelope.StatusPending || run == RunRunning {
		return false
	}
	return run == RunFailed || !abandoned
}

// Repair starts a new run of a PENDING envelope's workflow that picks it up from PostgreSQL
// (Input.Pickup), and waits for its first step; a running workflow is only asked to read the
// envelope again. An envelope that is not PENDING is left as it is.
func (c *Client) Repair(ctx context.Context, envelopeID string) error {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	return c.updateWithStart(ctx, Input{EnvelopeID: envelopeID, Pickup: true}, "", UpdateDistribute, nil)
}
