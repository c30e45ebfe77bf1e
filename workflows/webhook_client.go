package workflows

import (
	"context"
	"fmt"
	"strconv"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
)

// WakeWebhookDelivery tells the delivery workflow of route (an envelope) that it has a call to
// deliver:
// signal-with-start of WebhookWorkflow on WebhookQueue, so that a running workflow is woken and
// a new run starts when none runs (whatever the runs before came to). The workflow is findable
// in the Temporal Web UI by EnvelopeId and TeamId, and by WebhookId once it delivered to one.
func (c *Client) WakeWebhookDelivery(ctx context.Context, r envelope.WebhookRoute) error {
	ctx, cancel, err := c.callAnyway(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	id := WebhookWorkflowID(r.TeamID, r.EnvelopeID)
	attrs := []temporal.SearchAttributeUpdate{AttrEnvelopeID.ValueSet(r.EnvelopeID)}
	if r.TeamID != 0 {
		attrs = append(attrs, AttrTeamID.ValueSet(strconv.FormatInt(r.TeamID, 10)))
	}
	opts := client.StartWorkflowOptions{
		ID:                    id,
		TaskQueue:             WebhookQueue(c.TaskQueue),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(attrs...),
	}
	if _, err := c.Temporal.SignalWithStartWorkflow(ctx, id, WebhookWakeSignal, nil, opts, WebhookWorkflow, r); err != nil {
		return fromError(fmt.Errorf("wake webhook delivery %s: %w", id, err))
	}
	return nil
}
