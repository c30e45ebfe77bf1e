package mail

import (
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestComposeWebhookDisabled(t *testing.T) {
	d := WebhookDisabledData{AdminName: "Ana <admin>", WebhookID: "wh_1", URL: "https://hooks.example.com/in?a=1&b=2"}
	for _, c := range []struct {
		lang             envelope.Language
		d                WebhookDisabledData
		subject, greet   string
		gone, enableHint string
	}{
		{envelope.LanguageEnglish, d, "Sobre disabled a webhook", "Hello Ana <admin>,", "answered 410 Gone", `"enabled": true`},
		{"", d, "Sobre disabled a webhook", "Hello Ana <admin>,", "answered 410 Gone", `"enabled": true`},
		{envelope.LanguageSpanish, d, "Sobre desactivó un webhook", "Hola Ana <admin>:", "respondió 410 Gone", `"enabled": true`},
		{envelope.LanguageEnglish, WebhookDisabledData{WebhookID: "wh_1", URL: d.URL}, "Sobre disabled", "Hello,\n", "410", "enable the webhook"},
		{envelope.LanguageSpanish, WebhookDisabledData{WebhookID: "wh_1", URL: d.URL}, "Sobre desactivó", "Hola:\n", "410", "active el webhook"},
	} {
		m, err := ComposeWebhookDisabled(c.lang, c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.lang, err)
		}
		if !strings.Contains(m.Subject, c.subject) || !strings.HasPrefix(m.Text, c.greet) || !strings.Contains(m.Text, c.gone) ||
			!strings.Contains(m.Text, c.enableHint) || !strings.Contains(m.Text, d.URL) || !strings.Contains(m.Text, "wh_1") ||
			strings.Contains(m.Text, "%!") {
			t.Errorf("%s: %q\n%s", c.lang, m.Subject, m.Text)
		}
		if strings.Contains(m.HTML, "<admin>") || strings.Contains(m.HTML, "a=1&b=2") || !strings.Contains(m.HTML, "a=1&amp;b=2") {
			t.Errorf("%s: the HTML does not escape:\n%s", c.lang, m.HTML)
		}
	}
	for _, bad := range []WebhookDisabledData{{URL: d.URL}, {WebhookID: "wh_1"}} {
		if _, err := ComposeWebhookDisabled(envelope.LanguageEnglish, bad); err == nil {
			t.Errorf("a mail without its webhook or endpoint was composed: %+v", bad)
		}
	}
}
