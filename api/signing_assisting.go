package api

import (
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

// assistedRecipient is a recipient an assistant's signing view lists fields of: whom each field
// is for.
type assistedRecipient struct {
	ID           int64         `json:"id"`
	Name         string        `json:"name"`
	Email        string        `json:"email"`
	Role         envelope.Role `json:"role"`
	SigningOrder *int          `json:"signingOrder"`
}

// assistedIn lists, in the envelope's order, the recipients other than id whose fields are among
// fields; [] when there are none.
func assistedIn(e *envelope.Envelope, id int64, fields []view.Field) []assistedRecipient {
	out := []assistedRecipient{}
	for _, r := range e.Recipients {
		if r.ID == id {
			continue
		}
		for _, f := range fields {
			if f.RecipientID == r.ID {
				out = append(out, assistedRecipient{ID: r.ID, Name: r.Name, Email: r.Email, Role: r.Role, SigningOrder: r.SigningOrder})
				break
			}
		}
	}
	return out
}
