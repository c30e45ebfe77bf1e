package mail

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// WebhookDisabledData fills the mail telling a team's admin that Sobre disabled a webhook.
type WebhookDisabledData struct {
	AdminName string
	WebhookID string
	URL       string // the webhook's endpoint
}

// webhookDisabledText is the mail in one language: the greeting with a name (%s) and without,
// and the body, where %[1]s is the endpoint and %[2]s the webhook's id.
type webhookDisabledText struct{ subject, greet, greetNoName, body string }

var webhookDisabledTexts = map[envelope.Language]webhookDisabledText{
	envelope.LanguageEnglish: {"Sobre disabled a webhook of your team", "Hello %s,", "Hello,",
		"The endpoint %[1]s answered 410 Gone to an event of Sobre, which means it wants no more calls, so Sobre disabled the webhook %[2]s and sends it nothing more.\n\nIts events not yet delivered are kept. If the endpoint should receive events again, enable the webhook (POST /api/v2/webhook/update with \"enabled\": true): they are delivered then, in order. Otherwise, delete it."},
	envelope.LanguageSpanish: {"Sobre desactivó un webhook de su equipo", "Hola %s:", "Hola:",
		"El endpoint %[1]s respondió 410 Gone a un evento de Sobre, lo que indica que no quiere más llamadas, así que Sobre desactivó el webhook %[2]s y no le envía nada más.\n\nSus eventos aún no entregados se conservan. Si el endpoint debe volver a recibir eventos, active el webhook (POST /api/v2/webhook/update con \"enabled\": true): se entregarán entonces, en orden. Si no, elimínelo."},
}

// ComposeWebhookDisabled renders, in lang (English when lang is unknown), the mail telling a
// team's admin that Sobre disabled a webhook because its endpoint answered 410, that its
// undelivered events are kept, and how to enable it again.
func ComposeWebhookDisabled(lang envelope.Language, d WebhookDisabledData) (Composed, error) {
	t, ok := webhookDisabledTexts[lang]
	if !ok {
		lang, t = envelope.LanguageEnglish, webhookDisabledTexts[envelope.LanguageEnglish]
	}
	if d.WebhookID == "" || d.URL == "" {
		return Composed{}, fmt.Errorf("webhook disabled mail: webhook or endpoint missing")
	}
	greeting := t.greetNoName
	if name := strings.TrimSpace(d.AdminName); name != "" {
		greeting = fmt.Sprintf(t.greet, name)
	}
	body := greeting + "\n\n" + fmt.Sprintf(t.body, d.URL, d.WebhookID)
	text := body + "\n\n-- \nSobre"
	var html bytes.Buffer
	err := page.Execute(&html, map[string]any{"Lang": string(lang), "Subject": t.subject, "Paragraphs": strings.Split(body, "\n\n")})
	if err != nil {
		return Composed{}, fmt.Errorf("render webhook disabled html: %w", err)
	}
	return Composed{Subject: t.subject, Text: text, HTML: html.String()}, nil
}
