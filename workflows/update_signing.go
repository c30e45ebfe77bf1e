package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// CompleteRequest is the argument of UpdateComplete.
type CompleteRequest struct {
	RecipientID int64
	NextSigner  *envelope.NextSigner
	Actor       envelope.Actor
	// SessionID names the signing session completing (never its secret): the completion checks
	// the proofs that session holds and records them as the recipient's identity.
	SessionID string `json:",omitempty"`
	// LinkVersion is the version of the signing link the request came through: a link replaced
	// since then completes nothing. Nil (a request of a release before link versions) is not
	// checked.
	LinkVersion *int `json:",omitempty"`
}

// RejectRequest is the argument of UpdateReject.
type RejectRequest struct {
	RecipientID int64
	Reason      string
	Actor       envelope.Actor
	External    bool
	OnBehalfOf  *envelope.Actor
	// LinkVersion is the version of the signing link a recipient's own rejection came through
	// (not External): a link replaced since then rejects nothing. Nil is not checked.
	LinkVersion *int `json:",omitempty"`
}

func (r *run) validateComplete(ctx workflow.Context, req CompleteRequest) error {
	if r.decidedByThis(ctx, req.RecipientID) {
		return nil
	}
	if ready, err := r.checked(req); !ready {
		return err
	}
	return appError(envelope.Turn(r.snap.Meta.SigningOrder, r.snap.Participants(), req.RecipientID, workflow.Now(ctx)))
}

func (r *run) onComplete(ctx workflow.Context, req CompleteRequest) error {
	return r.act(ctx, func() (int, error) { return r.complete(ctx, req) })
}

// decidedByThis reports whether recipient id's outcome (a completion or a rejection) was
// recorded by the running Update itself: a delivery of it that Temporal aborted (a workflow task
// lost under load) recorded it, and the client delivered it again with the same id. It is
// answered as done, not as "already signed", "already rejected" or "the envelope is COMPLETED".
func (r *run) decidedByThis(ctx workflow.Context, id int64) bool {
	rec := r.snap.Recipient(id)
	return rec != nil && rec.DecidedBy != "" && rec.DecidedBy == updateID(ctx)
}

// updateID is the running Update's id, recorded with the outcome it records; "" outside one.
func updateID(ctx workflow.Context) string {
	if info := workflow.GetCurrentUpdateInfo(ctx); info != nil {
		return info.ID
	}
	return ""
}

// complete records a completion; the caller holds r.mu. It returns the version to wait for.
func (r *run) complete(ctx workflow.Context, req CompleteRequest) (int, error) {
	if r.decidedByThis(ctx, req.RecipientID) {
		return r.version, nil
	}
	if err := r.acting(); err != nil {
		return 0, err
	}
	if err := envelope.Turn(r.snap.Meta.SigningOrder, r.snap.Participants(), req.RecipientID, workflow.Now(ctx)); err != nil {
		return 0, appError(err)
	}
	in := envelope.RecipientCompletion{EnvelopeID: r.in.EnvelopeID, RecipientID: req.RecipientID, Actor: req.Actor, Now: workflow.Now(ctx),
		SessionID: req.SessionID, LinkVersion: req.LinkVersion}
	in.RequestID = updateID(ctx)
	if req.NextSigner != nil && r.snap.Meta.AllowDictateNextSigner {
		in.NextSigner, in.NextID = req.NextSigner, r.nextAfter(req.RecipientID)
	}
	var snap envelope.Progress
	if err := r.db(ctx, actCompleteRecipient, in).Get(ctx, &snap); err != nil {
		return 0, err
	}
	r.replaceSnapshot(snap)
	// The store recorded the completion with how the recipient completed; the mails read who
	// completed and whether anyone is left to act.
	r.queueNotices(envelope.RecipientCompletedEvent(r.snap.EventRecipient(req.RecipientID), envelope.Completion{},
		envelope.AllDone(r.snap.Participants()), in.Now))
	r.bump()
	return r.version, nil
}

// nextAfter is the first recipient after id in signing order who still has to act and was not
// yet sent the envelope: the one a signer may dictate.
func (r *run) nextAfter(id int64) int64 {
	sorted := envelope.SortForSigning(r.snap.Participants())
	seen := false
	for _, p := range sorted {
		if p.ID == id {
			seen = true
			continue
		}
		if rec := r.snap.Recipient(p.ID); seen && p.Pending() && rec != nil && rec.SendStatus == envelope.SendStatusNotSent {
			return p.ID
		}
	}
	return 0
}

func (r *run) validateReject(ctx workflow.Context, req RejectRequest) error {
	if r.decidedByThis(ctx, req.RecipientID) {
		return nil
	}
	if ready, err := r.checked(req); !ready {
		return err
	}
	p := r.participant(req.RecipientID)
	if p == nil {
		return appError(envelope.NotFound("Recipient"))
	}
	return appError(envelope.MayReject(*p, req.External, workflow.Now(ctx)))
}

func (r *run) onReject(ctx workflow.Context, req RejectRequest) error {
	return r.act(ctx, func() (int, error) {
		if r.decidedByThis(ctx, req.RecipientID) {
			return r.version, nil
		}
		if err := r.acting(); err != nil {
			return 0, err
		}
		in := envelope.RecipientRejection{EnvelopeID: r.in.EnvelopeID, RecipientID: req.RecipientID, Reason: req.Reason, Actor: req.Actor,
			External: req.External, OnBehalfOf: req.OnBehalfOf, Now: workflow.Now(ctx), LinkVersion: req.LinkVersion, RequestID: updateID(ctx)}
		var snap envelope.Progress
		if err := r.db(ctx, actRejectRecipient, in).Get(ctx, &snap); err != nil {
			return 0, err
		}
		r.replaceSnapshot(snap)
		r.end = &ending{status: envelope.StatusRejected, recipientID: req.RecipientID, reason: req.Reason, actor: req.Actor}
		r.bump()
		return r.version, nil
	})
}
