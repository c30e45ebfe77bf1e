package envelope

// FillsFields reports whether a recipient with role r fills fields: every role but CC (who only
// receives the result) and VIEWER (who only looks). Fields are never placed for them, and a
// recipient with fields cannot become one.
func (r Role) FillsFields() bool { return r != RoleCC && r != RoleViewer }

// Acted reports whether recipient r has acted on the envelope: signed, approved, viewed or
// rejected (their signing status is no longer NOT_SIGNED), or filled one of their fields (fields
// may be the envelope's, every recipient's). A recipient who has acted is frozen: see
// RequireUnacted.
func Acted(r Recipient, fields []Field) bool {
	if r.SigningStatus != SigningStatusNotSigned {
		return true
	}
	for _, f := range fields {
		if f.RecipientID == r.ID && f.Inserted {
			return true
		}
	}
	return false
}

// Frozen names a change refused to a recipient who has acted, for its message.
type Frozen int

const (
	FrozenRecipient Frozen = iota // their person: email, name, role, order, auth
	FrozenFields                  // their fields: placed, moved or deleted
	FrozenRemoval                 // removing them from the envelope
)

var frozenSuffix = map[Frozen]string{
	FrozenRecipient: " and can no longer change",
	FrozenFields:    "; its fields can no longer change",
	FrozenRemoval:   " and cannot be removed",
}

// RequireUnacted decides whether change may be made to recipient r: nil unless r has acted
// (Acted over fields), then INVALID_REQUEST naming r. What someone did is kept as they did
// it: who they are, what they were asked to fill and that they were asked at all.
func RequireUnacted(r Recipient, fields []Field, change Frozen) error {
	if !Acted(r, fields) {
		return nil
	}
	return Errorf(CodeInvalidRequest, "Recipient %d has already interacted with the document%s", r.ID, frozenSuffix[change])
}
