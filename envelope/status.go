package envelope

// RequireEditable decides whether an envelope in status s may still change (its documents,
// recipients, fields, attachments or settings, or be sent): nil while DRAFT or PENDING; a finished
// envelope answers its own code, ENVELOPE_COMPLETED, ENVELOPE_REJECTED or ENVELOPE_CANCELLED.
func RequireEditable(s Status) error {
	switch s {
	case StatusCompleted:
		return finished(CodeEnvelopeCompleted, s)
	case StatusRejected:
		return finished(CodeEnvelopeRejected, s)
	case StatusCancelled:
		return finished(CodeEnvelopeCancelled, s)
	}
	return nil
}

func finished(code Code, s Status) error {
	return Errorf(code, "Envelope is %s and can no longer change", s)
}

// RequirePending decides whether recipients may act on an envelope in status s (open it, fill
// its fields, sign, reject): nil while PENDING; a DRAFT is ENVELOPE_DRAFT (it was never sent),
// a finished envelope is refused as RequireEditable refuses it.
func RequirePending(s Status) error {
	switch s {
	case StatusPending:
		return nil
	case StatusDraft:
		return Errorf(CodeEnvelopeDraft, "The envelope has not been sent")
	}
	return RequireEditable(s)
}

// RequireDraft decides whether a change only a DRAFT takes (replacing documents, moving
// fields) may happen in status s: nil for a DRAFT, else ENVELOPE_NOT_DRAFT, its message
// starting with what, the change refused ("Fields can only be updated").
func RequireDraft(s Status, what string) error {
	if s == StatusDraft {
		return nil
	}
	return Errorf(CodeEnvelopeNotDraft, "%s while the envelope is DRAFT; it is %s", what, s)
}

// SigningLinksOpen reports whether e's signing links lead to it: not while it is a DRAFT (it
// was never sent) nor once it is deleted. A link that does not is answered as an unknown one.
func (e *Envelope) SigningLinksOpen() bool {
	return e.Status != StatusDraft && e.DeletedAt == nil
}
