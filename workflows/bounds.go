package workflows

import "github.com/sobre-sign/sobre/envelope"

// The Update validators refuse a request larger than its bounds (envelope.MaxResendRecipients,
// MaxReason, the actor's bounds) before it reaches the history. The API refuses or trims such
// requests first; these checks hold for any other caller.

func (req CompleteRequest) check() error {
	var p envelope.Problems
	req.Actor.CheckBounds(&p, "actor")
	if len(req.SessionID) > envelope.MaxSessionID {
		p.Add("sessionId", "must be at most %d bytes, got %d", envelope.MaxSessionID, len(req.SessionID))
	}
	if n := req.NextSigner; n != nil {
		envelope.CheckLength(&p, "nextSigner.name", n.Name, 0, envelope.MaxRecipientName)
		envelope.CheckLength(&p, "nextSigner.email", n.Email, 0, envelope.MaxEmail)
	}
	return appError(p.Err())
}

func (req RejectRequest) check() error {
	var p envelope.Problems
	req.Actor.CheckBounds(&p, "actor")
	if req.OnBehalfOf != nil {
		req.OnBehalfOf.CheckBounds(&p, "onBehalfOf")
	}
	envelope.CheckLength(&p, "reason", req.Reason, 0, envelope.MaxReason)
	return appError(p.Err())
}

func (req CancelRequest) check() error {
	var p envelope.Problems
	req.Actor.CheckBounds(&p, "actor")
	envelope.CheckLength(&p, "reason", req.Reason, 0, envelope.MaxReason)
	return appError(p.Err())
}

func (req ResendRequest) check() error {
	if n := len(req.RecipientIDs); n > envelope.MaxResendRecipients {
		return appError(envelope.Invalid("recipients", "must list at most %d recipient ids, got %d", envelope.MaxResendRecipients, n))
	}
	return nil
}
