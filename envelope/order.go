package envelope

import (
	"slices"
	"time"
)

// Participant is what the signing-order rules need of a recipient.
type Participant struct {
	ID           int64
	Role         Role
	SigningOrder *int
	Status       SigningStatus
	ExpiresAt    *time.Time
}

// ParticipantOf is recipient r as the signing-order rules read it.
func ParticipantOf(r Recipient) Participant {
	return ProgressOf(r).Participant()
}

// Participants are recipients rs as the signing-order rules read them, in the same order.
func Participants(rs []Recipient) []Participant {
	out := make([]Participant, 0, len(rs))
	for _, r := range rs {
		out = append(out, ParticipantOf(r))
	}
	return out
}

// Pending reports whether the participant still has to act: anyone but a CC who has neither
// signed nor rejected.
func (p Participant) Pending() bool {
	return p.Role != RoleCC && p.Status == SigningStatusNotSigned
}

// Expired reports whether the participant's time to act ran out at now.
func (p Participant) Expired(now time.Time) bool {
	return p.ExpiresAt != nil && !now.Before(*p.ExpiresAt)
}

// SortForSigning orders participants as the SEQUENTIAL rule reads them: signingOrder ascending
// with unset orders last, then id.
func SortForSigning(ps []Participant) []Participant {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Participant) int {
		switch {
		case a.SigningOrder == nil && b.SigningOrder != nil:
			return 1
		case a.SigningOrder != nil && b.SigningOrder == nil:
			return -1
		case a.SigningOrder != nil && *a.SigningOrder != *b.SigningOrder:
			return *a.SigningOrder - *b.SigningOrder
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

func sameOrder(a, b Participant) bool {
	if a.SigningOrder == nil || b.SigningOrder == nil {
		return false // recipients without an order take turns one by one, by id
	}
	return *a.SigningOrder == *b.SigningOrder
}

// MayActNow returns the ids of the participants who may act now, in signing order:
//
//   - nobody who has signed or rejected, and never a CC (a CC only receives the result);
//   - PARALLEL: every pending participant, except that a SIGNER waits while an APPROVER with a
//     lower signingOrder has not approved;
//   - SEQUENTIAL: the pending participants of the first order group that has any, where a group
//     is the participants sharing one signingOrder (participants without one form groups of one,
//     after all the others, by id). Every role but CC holds later groups back, so approvers gate
//     later signers here too.
func MayActNow(order SigningOrder, ps []Participant) []int64 {
	sorted := SortForSigning(ps)
	var out []int64
	if order == SigningOrderSequential {
		for i, p := range sorted {
			if !p.Pending() {
				continue
			}
			for _, q := range sorted[i:] {
				if q.Pending() && (q.ID == p.ID || sameOrder(p, q)) {
					out = append(out, q.ID)
				}
			}
			return out
		}
		return nil
	}
	for _, p := range sorted {
		if !p.Pending() {
			continue
		}
		if p.Role == RoleSigner && gatedByApprover(p, sorted) {
			continue
		}
		out = append(out, p.ID)
	}
	return out
}

// gatedByApprover reports whether a pending APPROVER with a lower signingOrder than p's exists.
func gatedByApprover(p Participant, ps []Participant) bool {
	if p.SigningOrder == nil {
		return false
	}
	for _, q := range ps {
		if q.Role == RoleApprover && q.Pending() && q.SigningOrder != nil && *q.SigningOrder < *p.SigningOrder {
			return true
		}
	}
	return false
}

// AllDone reports whether every participant who must act has signed (CCs excepted): the
// envelope is complete.
func AllDone(ps []Participant) bool {
	for _, p := range ps {
		if p.Role != RoleCC && p.Status != SigningStatusSigned {
			return false
		}
	}
	return true
}

// Turn explains whether participant id may act now: nil, or the error the caller gets (see
// mayStillAct, then MayActNow).
func Turn(order SigningOrder, ps []Participant, id int64, now time.Time) error {
	i := slices.IndexFunc(ps, func(p Participant) bool { return p.ID == id })
	if i < 0 {
		return NotFound("Recipient")
	}
	if err := mayStillAct(ps[i], now, true); err != nil {
		return err
	}
	if !slices.Contains(MayActNow(order, ps), id) {
		return Errorf(CodeRecipientOutOfTurn, "It is not this recipient's turn yet: earlier recipients must act first")
	}
	return nil
}

// MayReject decides whether participant p may reject the envelope at now: nil, or the error the
// caller gets. Whose turn it is does not matter (anyone who must still act may refuse), but
// mayStillAct applies, except that a rejection recorded on their behalf (external, through the
// API) is taken after their deadline. The envelope itself must be PENDING (RequirePending),
// which the caller checks first.
func MayReject(p Participant, external bool, now time.Time) error {
	return mayStillAct(p, now, !external)
}

// mayStillAct is nil for a participant who may still act: someone who signed
// (RECIPIENT_ALREADY_SIGNED) or rejected may not act again, a CC takes no action, and once
// their deadline passed (when deadline is checked) nobody may (RECIPIENT_EXPIRED).
func mayStillAct(p Participant, now time.Time, deadline bool) error {
	switch {
	case p.Status == SigningStatusSigned:
		return Errorf(CodeRecipientAlreadySigned, "Recipient has already signed")
	case p.Status == SigningStatusRejected:
		return Errorf(CodeInvalidRequest, "Recipient has already rejected the document")
	case p.Role == RoleCC:
		return Errorf(CodeInvalidRequest, "A CC recipient takes no action")
	case deadline && p.Expired(now):
		return errExpired()
	}
	return nil
}
