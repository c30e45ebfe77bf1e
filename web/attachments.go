package web

import (
	"net/url"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// attachmentView is one link attachment as the signing page lists it.
type attachmentView struct {
	Label string
	URL   string
}

// linkAttachments are the envelope's link attachments a signer is shown: those of type link
// whose URL is an absolute http or https one (the API stores no other: envelope.CheckHTTPURL),
// labelled by their label or, without one, their host. The page opens each in a new tab
// without telling it where the signer came from (rel="noopener noreferrer").
func linkAttachments(list []envelope.Attachment) []attachmentView {
	var out []attachmentView
	for _, a := range list {
		if a.Type != "" && a.Type != envelope.AttachmentTypeLink {
			continue
		}
		u, err := url.Parse(a.Data)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		label := strings.TrimSpace(a.Label)
		if label == "" {
			label = u.Host
		}
		out = append(out, attachmentView{Label: label, URL: u.String()})
	}
	return out
}

// AttachmentText is what the page says of the link attachments, in one language.
type AttachmentText struct {
	Heading, Help, NewTab string
}

var attachmentTexts = map[string]AttachmentText{
	"en": {Heading: "Attachments", Help: "Links the sender attached to this document.", NewTab: "opens in a new tab"},
	"es": {Heading: "Adjuntos", Help: "Enlaces que el remitente adjuntó a este documento.", NewTab: "se abre en una pestaña nueva"},
}

func attachmentTextFor(lang string) AttachmentText {
	if t, ok := attachmentTexts[lang]; ok {
		return t
	}
	return attachmentTexts["en"]
}
