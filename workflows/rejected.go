package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// endOnRecordedRejection, in collect, ends the envelope REJECTED by a recipient the envelope's
// state holds as REJECTED when the run decided no ending (since "end-on-recorded-rejection"): a
// rejection the store recorded but whose Update Temporal aborted (a workflow task lost under
// load: a later view of the envelope holds it, and the same rejection delivered again is refused
// as already made), or one a lost run recorded before its ending (a pickup run). Without it the
// envelope stays PENDING for ever with a rejected recipient, and a later cancel ends it CANCELLED.
func (r *run) endOnRecordedRejection(ctx workflow.Context) {
	if r.end != nil {
		return
	}
	for _, rec := range r.snap.Recipients {
		if rec.SigningStatus != envelope.SigningStatusRejected {
			continue
		}
		if !r.since(ctx, "end-on-recorded-rejection") {
			return
		}
		r.end = &ending{status: envelope.StatusRejected, recipientID: rec.ID, reason: rec.RejectionReason, actor: envelope.SystemActor()}
		return
	}
}
