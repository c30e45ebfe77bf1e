package view

import (
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// newDirectLink is a template's direct link as envelope reads show it; nil for none.
func newDirectLink(l *envelope.DirectLink) *DirectLink {
	if l == nil {
		return nil
	}
	return &DirectLink{ID: l.ID, Token: l.Token, Enabled: l.Enabled, DirectTemplateRecipientID: l.RecipientID}
}

// DirectLinkAnswer is what POST /template/direct/create and /toggle answer, as Documenso's SDK
// parses it: the link, its template's envelope id and its templateId (the template's number).
type DirectLinkAnswer struct {
	ID                        string    `json:"id"`
	Token                     string    `json:"token"`
	CreatedAt                 time.Time `json:"createdAt"`
	Enabled                   bool      `json:"enabled"`
	DirectTemplateRecipientID int64     `json:"directTemplateRecipientId"`
	EnvelopeID                string    `json:"envelopeId"`
	TemplateID                int64     `json:"templateId"`
}

// NewDirectLinkAnswer is link l of the template whose number is templateID.
func NewDirectLinkAnswer(l envelope.DirectLink, templateID int64) DirectLinkAnswer {
	return DirectLinkAnswer{ID: l.ID, Token: l.Token, CreatedAt: l.CreatedAt, Enabled: l.Enabled,
		DirectTemplateRecipientID: l.RecipientID, EnvelopeID: l.EnvelopeID, TemplateID: templateID}
}
