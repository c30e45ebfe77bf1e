package workflows

import (
	"time"

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

// finish ends the envelope as r.end says: its ending event is recorded with the envelope's new
// status, and its mails are derived from that same event.
func (r *run) finish(ctx workflow.Context) error {
	e := r.end
	now := workflow.Now(ctx)
	if r.sealsInFinish(ctx) {
		// The sealed PDFs exist before the envelope is COMPLETED and before the completion
		// mails, which attach them (sealUnlocked sealed them already, unless finish seals).
		if err := r.seal(ctx); err != nil {
			return err
		}
	}
	ev := r.endingEvent(workflow.GetInfo(ctx).WorkflowExecution.RunID, now)
	if err := r.settleRequests(ctx, ev); err != nil {
		return err
	}
	if ev.Kind == envelope.EventRemoved {
		return r.remove(ctx, ev)
	}
	r.queueNotices(ev)
	if err := r.db(ctx, actFinishEnvelope, envelope.EndingOf(ev, e.actor)).Get(ctx, nil); err != nil {
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

// requestSettleWait is how long an envelope that ends with first requests being delivered (a
// cancel right after its distribute, which answered before its mails) waits for them before its
// ending's mails: a request delivered by then is followed by the "cancelled" mail; one not yet
// handed to the relay is neither handed over after the ending (it is no longer due:
// persistence.Store.MailTransmitting) nor followed by it (activities' noticeToUnsent).
const requestSettleWait = 5 * time.Second

// settleRequests, in a run that answers a distribute before its mails, waits up to
// requestSettleWait for the first requests being delivered when the envelope ends otherwise than
// COMPLETED (a completed envelope's mails go to every recipient).
func (r *run) settleRequests(ctx workflow.Context, ev envelope.Event) error {
	if !r.answersBeforeMail || ev.Kind == envelope.EventCompleted || r.requestsDelivered() {
		return nil
	}
	_, err := r.awaitWithin(ctx, requestSettleWait, r.requestsDelivered)
	return err
}

// endingEvent is the event r.end ends the envelope with, at now, by run runID: COMPLETED,
// REJECTED by the recipient who rejected, CANCELLED, or, when deleted, removed.
func (r *run) endingEvent(runID string, now time.Time) envelope.Event {
	e, id := r.end, r.in.EnvelopeID
	switch {
	case e.deleted:
		return envelope.RemovedEvent(id, now)
	case e.status == envelope.StatusCompleted:
		return envelope.CompletedEvent(id, runID, now)
	case e.status == envelope.StatusRejected:
		return envelope.RejectedEvent(id, runID, e.recipientID, e.reason, now)
	}
	return envelope.CancelledEvent(id, e.reason, now)
}

// remove ends a deleted envelope: the recipients who were sent it are told (ev, RemovedEvent),
// then it is removed from PostgreSQL.
func (r *run) remove(ctx workflow.Context, ev envelope.Event) error {
	if r.answersBeforeMail {
		// Its requests still being retried are no longer due: none reaches a recipient once
		// the envelope is being removed.
		if err := r.db(ctx, actMarkRemoving, r.in.EnvelopeID).Get(ctx, nil); err != nil {
			return err
		}
	}
	r.queueNotices(ev)
	r.flush(ctx)
	if r.async {
		// The mails read the envelope: it is removed once they are done, or after removalMailWait.
		if _, err := r.awaitWithin(ctx, removalMailWait, r.delivered); err != nil {
			return err
		}
	}
	if err := r.db(ctx, actHardDelete, r.in.EnvelopeID).Get(ctx, nil); err != nil {
		return err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet("DELETED")); err != nil {
		return err
	}
	r.finished = true
	return nil
}
