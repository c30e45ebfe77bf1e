package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// Every run ends. Since version "end-when-abandoned", a run whose envelope is abandoned
// (envelope.Abandoned: everyone whose turn it is ran out of time and their expiry was noted)
// with no ending decided, no mail queued and no recipient's expiry left to note, returns once its
// Update handlers have finished (a reminder still scheduled would not be sent: RemindNow refuses
// it to a recipient out of time or whose turn it is not). PostgreSQL keeps the envelope PENDING, as Documenso
// does; the workflow is closed as completed. A later redistribute, distribute, any Update
// (Client), a recipient change (Client.Refresh) or `sobre repair` starts a new run, which picks
// the envelope up from PostgreSQL (pickup.go).

// endIfAbandoned ends the run as said above; it reports whether it ended. An event that arrives
// while it waits for the handlers keeps the run going: the main loop acts on it.
func (r *run) endIfAbandoned(ctx workflow.Context) (bool, error) {
	if !r.ends || r.end != nil || len(r.outbox) > 0 || r.awaitsAnyExpiry() ||
		!envelope.Abandoned(r.snap.Meta.SigningOrder, r.snap.Participants(), r.notified, workflow.Now(ctx)) {
		return false, nil
	}
	drained, err := r.drain(ctx)
	if err != nil || !drained {
		return false, err
	}
	workflow.GetLogger(ctx).Info("envelope abandoned: everyone whose turn it is ran out of time; the run ends, the envelope stays PENDING",
		"envelope", r.in.EnvelopeID)
	return true, nil
}

// awaitsAnyExpiry reports whether some recipient's deadline is still to be acted on.
func (r *run) awaitsAnyExpiry() bool {
	for _, rec := range r.snap.Recipients {
		if r.awaitsExpiry(rec) {
			return true
		}
	}
	return false
}

// endOnceDelivered, in a run that ends abandoned, waits for its mails in flight before it ends
// (since version "abandoned-acts-until-it-ends"). An event that arrives meanwhile (a redistribute,
// a cancel, a recipient change) is acted on, as at any other time, and acted reports it: the
// main loop goes on. Runs before that version ended once their mails were done, and an Update
// they accepted meanwhile was answered without being acted on.
func (r *run) endOnceDelivered(ctx workflow.Context) (acted bool, err error) {
	err = workflow.Await(ctx, func() bool {
		return r.version > r.processed || (r.delivered() && workflow.AllHandlersFinished(ctx))
	})
	return err == nil && r.version > r.processed, err
}
