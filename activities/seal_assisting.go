package activities

import (
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// prefilledLines are the fields assistant id filled for other recipients and that hold its value
// when sealed, as the certificate of completion lists them under the assistant: "Bob
// <bob@example.com>: TEXT «value»", in field order.
func prefilledLines(e *envelope.Envelope, id int64) []string {
	var out []string
	for _, f := range e.Fields {
		if f.PrefilledBy == nil || *f.PrefilledBy != id || !f.Inserted {
			continue
		}
		owner := envelope.FindRecipient(e.Recipients, f.RecipientID)
		if owner == nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s <%s>: %s «%s»", owner.Name, owner.Email, f.Type, f.CustomText))
	}
	return out
}
