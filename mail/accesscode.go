package mail

import (
	"fmt"
	"html"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// AccessCodeData fills the access-code message.
type AccessCodeData struct {
	RecipientName string
	Title         string
	Code          string
	Minutes       int
}

// ComposeAccessCode renders the message that carries a six-digit access code (TWO_FACTOR_AUTH),
// in lang (English when lang is unknown).
func ComposeAccessCode(lang envelope.Language, d AccessCodeData) (Composed, error) {
	if len(d.Code) != 6 {
		return Composed{}, fmt.Errorf("access code must be six digits")
	}
	var subject, body string
	switch lang {
	case envelope.LanguageSpanish:
		subject = "Su código para abrir «" + d.Title + "»: " + d.Code
		body = fmt.Sprintf("Hola %s:\n\nSu código para abrir «%s» es %s.\n\nVence en %d minutos. Si no lo pidió, ignore este mensaje.", d.RecipientName, d.Title, d.Code, d.Minutes)
	default:
		subject = "Your code to open \"" + d.Title + "\": " + d.Code
		body = fmt.Sprintf("Hello %s,\n\nYour code to open \"%s\" is %s.\n\nIt expires in %d minutes. If you did not ask for it, ignore this message.", d.RecipientName, d.Title, d.Code, d.Minutes)
	}
	var h strings.Builder
	h.WriteString("<!doctype html><html><body style=\"font-family:sans-serif\">")
	for _, p := range strings.Split(body, "\n\n") {
		h.WriteString("<p>" + html.EscapeString(p) + "</p>")
	}
	h.WriteString("</body></html>")
	return Composed{Subject: subject, Text: body, HTML: h.String()}, nil
}
