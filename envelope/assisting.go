package envelope

import (
	"slices"
	"time"
)

// An ASSISTANT prepares the envelope for the recipients after it: it fills their fields before
// they act, and they then see those values as theirs. The rules below say which fields a
// recipient may fill; every reader and writer of field values asks them.

// OwnerOnly reports whether a field of type t is its own recipient's alone, never an
// assistant's to fill: a signature (IsSignature) and INITIALS, which are the recipient's mark
// (ParseFieldValue takes them as a signature); RUT_FIRMADO, which holds the RUN the recipient's
// own Clave Única login proves; and DATE, which Sobre fills with the day the recipient completes.
func OwnerOnly(t FieldType) bool {
	return t.IsSignature() || t == FieldInitials || t == FieldRUTFirmado || t == FieldDate
}

// Assists reports whether a fills the fields of type t of owner, who is someone else, on an
// envelope signed in order by ps: a is an ASSISTANT, owner still has to act (Pending: neither
// signed nor rejected, not a CC), owner comes at or after a in the signing order (Follows) and
// may not act yet (Waits), and t is not OwnerOnly.
func Assists(order SigningOrder, ps []Participant, a, owner Participant, t FieldType) bool {
	return a.Role == RoleAssistant && a.ID != owner.ID && owner.Pending() && Follows(owner, a) && !OwnerOnly(t) && Waits(order, ps, owner.ID)
}

// Waits reports whether participant id may not act yet on an envelope signed in order by ps
// (it is not among MayActNow). An assistant fills only the fields of those who wait: once a
// recipient may act, what its page shows is what its completion seals, and nobody else may
// change it any more. A recipient of a PARALLEL envelope, or one sharing the assistant's
// signingOrder, may act while the assistant works, so the assistant fills none of its fields.
func Waits(order SigningOrder, ps []Participant, id int64) bool {
	return !slices.Contains(MayActNow(order, ps), id)
}

// Follows reports whether q comes at or after p in the signing order, as SortForSigning reads it:
// q's signingOrder is at least p's; a recipient without a signingOrder comes after every
// recipient with one, and among those without one the higher id comes after. Recipients sharing
// p's signingOrder follow it (they act together).
func Follows(q, p Participant) bool {
	switch {
	case p.SigningOrder == nil && q.SigningOrder == nil:
		return q.ID > p.ID
	case p.SigningOrder == nil:
		return false
	case q.SigningOrder == nil:
		return true
	}
	return *q.SigningOrder >= *p.SigningOrder
}

// MayFillField decides whether participant fillerID may put a value in (or clear) a field of type
// t that belongs to participant ownerID, at now, on an envelope signed in order by ps: nil, or the
// error the caller gets.
//
//   - Its own field: MayFill (not once it acted, nor past its deadline).
//   - Someone else's field: only an ASSISTANT's reach (Assists without the type), else the field
//     is not found for it; never an OwnerOnly type (INVALID_REQUEST); the assistant fills them in
//     its turn (Turn), not once the owner may act itself (Waits; INVALID_REQUEST), and not once
//     the owner's deadline passed (RECIPIENT_EXPIRED).
//
// The envelope itself must be PENDING (RequirePending), which the caller checks first.
func MayFillField(order SigningOrder, ps []Participant, fillerID, ownerID int64, t FieldType, now time.Time) error {
	filler, ok := participant(ps, fillerID)
	if !ok {
		return NotFound("Recipient")
	}
	if fillerID == ownerID {
		return MayFill(filler, now)
	}
	owner, ok := participant(ps, ownerID)
	if !ok || filler.Role != RoleAssistant || !owner.Pending() || !Follows(owner, filler) {
		return NotFound("Field")
	}
	if OwnerOnly(t) {
		return Errorf(CodeInvalidRequest, "An assistant cannot fill a %s field: only its recipient can", t)
	}
	if err := Turn(order, ps, fillerID, now); err != nil {
		return err
	}
	if !Waits(order, ps, ownerID) {
		return Errorf(CodeInvalidRequest, "An assistant fills only for recipients who cannot act yet: recipient %d may already act, and signs what it sees", ownerID)
	}
	if owner.Expired(now) {
		return errExpired()
	}
	return nil
}

// FilledBySender is Field.FilledBy of a value the sender gave (at creation, or a preset filled
// as the envelope is sent).
const FilledBySender = "sender"

// MayReplaceValue decides whether an ASSISTANT, allowed to fill another recipient's field f
// (MayFillField), may put a value in it or clear it now: not when f holds a value its own
// recipient put in (inserted, neither an assistant's nor the sender's). That value is the
// recipient's, typed on a page that showed it, and its completion seals it; an assistant's own
// value, a sender's preset or an empty field it may change.
func MayReplaceValue(f Field) error {
	if f.Inserted && f.PrefilledBy == nil && f.FilledBy != FilledBySender {
		return Errorf(CodeInvalidRequest, "Field %d holds the value its recipient gave; an assistant cannot change it", f.ID)
	}
	return nil
}

// FieldsToFill are the fields of fields that participant id sees on its signing page to fill, in
// the order given, on an envelope signed in order by ps: its own, and for an ASSISTANT those of
// others it Assists with.
func FieldsToFill(order SigningOrder, ps []Participant, id int64, fields []Field) []Field {
	me, ok := participant(ps, id)
	if !ok {
		return nil
	}
	var out []Field
	for _, f := range fields {
		owner, found := participant(ps, f.RecipientID)
		if f.RecipientID == id || (found && Assists(order, ps, me, owner, f.Type)) {
			out = append(out, f)
		}
	}
	return out
}

func participant(ps []Participant, id int64) (Participant, bool) {
	i := slices.IndexFunc(ps, func(p Participant) bool { return p.ID == id })
	if i < 0 {
		return Participant{}, false
	}
	return ps[i], true
}
