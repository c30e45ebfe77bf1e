package envelope

import "time"

// Unacted is nil while participant p has neither signed nor rejected. Once they have acted they
// may no longer fill their fields nor give a proof of who they are: RECIPIENT_ALREADY_SIGNED.
func (p Participant) Unacted() error {
	if p.Status != SigningStatusNotSigned {
		return Errorf(CodeRecipientAlreadySigned, "Recipient has already acted on this envelope")
	}
	return nil
}

// MayFill decides whether participant p may put a value in one of their fields (or clear it) at
// now: nil, or the error the caller gets. Not once they acted (Unacted), nor once their deadline
// passed (Expired: RECIPIENT_EXPIRED). Whose turn it is does not matter: anyone may prepare their
// fields while earlier recipients act. The envelope itself must be PENDING (RequirePending),
// which the caller checks first.
func MayFill(p Participant, now time.Time) error {
	if err := p.Unacted(); err != nil {
		return err
	}
	if p.Expired(now) {
		return errExpired()
	}
	return nil
}

// errExpired is what a participant whose time to act ran out is told.
func errExpired() error {
	return Errorf(CodeRecipientExpired, "Recipient's signing link has expired")
}
