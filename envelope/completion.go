package envelope

import (
	"slices"
	"time"
)

// AutoFill is a field Sobre fills for its recipient when they complete.
type AutoFill struct {
	FieldID int64
	Type    FieldType
	Value   string
}

// CompletionDecision is what a recipient's completion changes, as Complete decides it: the recipient
// becomes SIGNED (signed, approved or viewed, as their role asks), AutoFilled are filled first.
type CompletionDecision struct {
	// AutoFilled are the recipient's fields not filled yet that Sobre fills (AutoValue), in the
	// order of the fields given.
	AutoFilled []AutoFill
	// EnvelopeComplete: with the recipient SIGNED, every participant who must act has signed
	// (AllDone), so the envelope is complete.
	EnvelopeComplete bool
}

// Complete decides the completion of recipient r at now, on an envelope with meta m and
// recipients rs (r among them), given the fields (r's; others' are ignored):
//
//   - each of r's fields not filled yet that Sobre can fill (AutoValue: the date of completion
//     in m's format and timezone, r's name, r's email) is filled;
//   - any other of r's fields not filled yet that is required (FieldRequired) refuses the
//     completion: RECIPIENT_HAS_UNSIGNED_FIELDS, naming the fields' ids;
//   - otherwise r becomes SIGNED, and the envelope is complete when, with r SIGNED, nobody who
//     must act is left (AllDone).
//
// Whether r may act now, the envelope's status and the proofs r owes are checked before, by
// Turn, RequirePending and CheckCompletion.
func Complete(r Recipient, m Meta, rs []Recipient, fields []Field, now time.Time) (CompletionDecision, error) {
	var out CompletionDecision
	var missing []int64
	for _, f := range fields {
		if f.RecipientID != r.ID || f.Inserted {
			continue
		}
		if value, ok := AutoValue(f.Type, r, m, now); ok {
			out.AutoFilled = append(out.AutoFilled, AutoFill{FieldID: f.ID, Type: f.Type, Value: value})
			continue
		}
		if FieldRequired(f) {
			missing = append(missing, f.ID)
		}
	}
	if len(missing) > 0 {
		return CompletionDecision{}, Errorf(CodeRecipientHasUnsignedFields, "Recipient has %d required fields to fill first: %v", len(missing), missing)
	}
	ps := Participants(rs)
	for i := range ps {
		if ps[i].ID == r.ID {
			ps[i].Status = SigningStatusSigned
		}
	}
	out.EnvelopeComplete = slices.ContainsFunc(ps, func(p Participant) bool { return p.ID == r.ID }) && AllDone(ps)
	return out, nil
}
