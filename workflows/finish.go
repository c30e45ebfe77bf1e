package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// ending is how the envelope ends, once decided.
type ending struct {
	status      envelope.Status
	deleted     bool  // removed, not just ended
	recipientID int64 // who rejected
	reason      string
	actor       envelope.Actor
}

// finish ends the envelope as r.end says, with its audit entry and mails.
func (r *run) finish(ctx workflow.Context) error {
	m, e := r.snap.Meta, r.end
	now := workflow.Now(ctx)
	in := envelope.Ending{EnvelopeID: r.in.EnvelopeID, Status: e.status, Actor: e.actor, Now: now}
	info := workflow.GetInfo(ctx)
	switch e.status {
	case envelope.StatusCompleted:
		if !r.legacy {
			// The sealed PDFs exist before the envelope is COMPLETED and before the completion
			// mails, which attach them.
			if err := r.seal(ctx); err != nil {
				return err
			}
		}
		in.AuditType, in.Data = "DOCUMENT_COMPLETED", map[string]any{"transactionId": info.WorkflowExecution.RunID}
		r.queuePlan(envelope.CompletedNotices(m, r.snap.Recipients), e.reason)
	case envelope.StatusRejected:
		in.AuditType = "DOCUMENT_COMPLETED"
		in.Data = map[string]any{"transactionId": info.WorkflowExecution.RunID, "isRejected": true, "rejectionReason": e.reason}
		r.queuePlan(envelope.RejectedNotices(m, e.recipientID, r.snap.Recipients), e.reason)
	case envelope.StatusCancelled:
		if e.deleted {
			return r.remove(ctx)
		}
		in.AuditType, in.Data = "DOCUMENT_CANCELLED", map[string]any{"reason": e.reason}
		r.queuePlan(envelope.CancelledNotices(m, r.snap.Recipients), e.reason)
	}
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), actFinishEnvelope, in).Get(ctx, nil); err != nil {
		return err
	}
	r.snap.Status = e.status
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet(string(e.status))); err != nil {
		return err
	}
	r.flush(ctx)
	r.finished = true
	return nil
}

// remove ends a deleted envelope: the recipients who were sent it are told (documentDeleted),
// then it is removed from PostgreSQL.
func (r *run) remove(ctx workflow.Context) error {
	r.queuePlan(envelope.DeletedNotices(r.snap.Meta, r.snap.Recipients), "")
	r.flush(ctx)
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), actHardDelete, r.in.EnvelopeID).Get(ctx, nil); err != nil {
		return err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet("DELETED")); err != nil {
		return err
	}
	r.finished = true
	return nil
}
