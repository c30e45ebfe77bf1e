package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// ending is how the envelope ends, once decided.
type ending struct {
	status      envelope.Status
	deleted     bool  // removed, not just ended
	recipientID int64 // who rejected
	reason      string
	actor       persistence.Actor
}

// finish ends the envelope as r.end says, with its audit entry and mails.
func (r *run) finish(ctx workflow.Context) error {
	m, e := r.snap.Meta, r.end
	now := workflow.Now(ctx)
	byMail := m.DistributionMethod == envelope.DistributionEmail
	notice := func(kind mail.Kind, rid int64) activities.Notice {
		return activities.Notice{Kind: kind, EnvelopeID: r.in.EnvelopeID, RecipientID: rid, ActorID: e.recipientID, Reason: e.reason}
	}
	in := activities.FinishInput{EnvelopeID: r.in.EnvelopeID, Status: e.status, Actor: e.actor, Now: now}
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
		for _, rec := range r.snap.Recipients {
			if byMail && m.EmailSettings.DocumentCompleted {
				n := notice(mail.DocumentCompleted, rec.ID)
				n.Attach = true
				r.queue(n, nil)
			}
		}
		if m.EmailSettings.OwnerDocumentCompleted {
			n := notice(mail.OwnerCompleted, 0)
			n.Attach = true
			r.queue(n, nil)
		}
	case envelope.StatusRejected:
		in.AuditType = "DOCUMENT_COMPLETED"
		in.Data = map[string]any{"transactionId": info.WorkflowExecution.RunID, "isRejected": true, "rejectionReason": e.reason}
		if byMail {
			r.queue(notice(mail.RejectionConfirmed, e.recipientID), nil)
			for _, rec := range r.snap.Recipients {
				if rec.ID != e.recipientID && rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned {
					r.queue(notice(mail.EnvelopeCancelled, rec.ID), nil)
				}
			}
		}
		r.queue(notice(mail.OwnerRejected, 0), nil)
	case envelope.StatusCancelled:
		if e.deleted {
			return r.remove(ctx)
		}
		in.AuditType, in.Data = "DOCUMENT_CANCELLED", map[string]any{"reason": e.reason}
		if byMail && m.EmailSettings.DocumentDeleted {
			for _, rec := range r.snap.Recipients {
				if rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned {
					r.queue(notice(mail.EnvelopeCancelled, rec.ID), nil)
				}
			}
		}
	}
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.FinishEnvelope, in).Get(ctx, nil); err != nil {
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
	m := r.snap.Meta
	if m.DistributionMethod == envelope.DistributionEmail && m.EmailSettings.DocumentDeleted {
		for _, rec := range r.snap.Recipients {
			if rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned && rec.Email != "" {
				r.queue(activities.Notice{Kind: mail.EnvelopeCancelled, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID}, nil)
			}
		}
	}
	r.flush(ctx)
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.HardDelete, r.in.EnvelopeID).Get(ctx, nil); err != nil {
		return err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet("DELETED")); err != nil {
		return err
	}
	r.finished = true
	return nil
}
