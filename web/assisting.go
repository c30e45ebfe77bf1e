package web

import (
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// whose is what a field's label adds on rec's page about whose the field is: " · for Bob" on an
// assistant's page for another recipient's field, " · filled in by Ann" on a recipient's page
// for a field an assistant filled for it, "" otherwise.
func whose(t Text, e *envelope.Envelope, rec envelope.Recipient, f envelope.Field) string {
	switch {
	case f.RecipientID != rec.ID:
		if owner := envelope.FindRecipient(e.Recipients, f.RecipientID); owner != nil {
			return " · " + fmt.Sprintf(t.FieldFor, displayName(*owner))
		}
	case f.PrefilledBy != nil:
		if a := envelope.FindRecipient(e.Recipients, *f.PrefilledBy); a != nil {
			return " · " + fmt.Sprintf(t.FieldPrefilledBy, displayName(*a))
		}
	}
	return ""
}

// displayName is how a page names recipient r: its name, else its email.
func displayName(r envelope.Recipient) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Email
}
