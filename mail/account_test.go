package mail

import (
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

func TestComposeAccountLink(t *testing.T) {
	const link = "https://sobre.test/account/verify/tok&en"
	for _, c := range []struct {
		lang     envelope.Language
		kind     AccountMail
		d        AccountLinkData
		subject  string
		lifetime string
	}{
		{envelope.LanguageEnglish, AccountVerify, AccountLinkData{Email: "a@b.cl", URL: link, Valid: 24 * time.Hour}, "Confirm your email", "24 hours"},
		{envelope.LanguageSpanish, AccountVerify, AccountLinkData{Email: "a@b.cl", URL: link, Valid: 24 * time.Hour}, "Confirme su correo", "24 horas"},
		{envelope.LanguageEnglish, AccountReset, AccountLinkData{Email: "a@b.cl", URL: link, Valid: time.Hour}, "new password", "1 hour"},
		{envelope.LanguageSpanish, AccountReset, AccountLinkData{Email: "a@b.cl", URL: link, Valid: time.Hour}, "nueva contraseña", "1 hora"},
		{envelope.LanguageEnglish, AccountReset, AccountLinkData{Email: "a@b.cl", URL: link, Valid: 30 * time.Minute}, "new password", "30 minutes"},
		{"", AccountExists, AccountLinkData{Email: "a@b.cl", URL: "https://sobre.test/account/signin", ResetURL: "https://sobre.test/account/reset"}, "already have", ""},
		{envelope.LanguageSpanish, AccountExists, AccountLinkData{Email: "a@b.cl", URL: "https://sobre.test/account/signin", ResetURL: "https://sobre.test/account/reset"}, "ya tiene", ""},
	} {
		m, err := ComposeAccountLink(c.lang, c.kind, c.d)
		if err != nil {
			t.Fatalf("%s %s: %v", c.lang, c.kind, err)
		}
		if !strings.Contains(m.Subject, c.subject) || !strings.Contains(m.Text, c.d.URL) || !strings.Contains(m.Text, c.d.Email) ||
			!strings.Contains(m.Text, c.lifetime) || strings.Contains(m.Text, "%!") {
			t.Errorf("%s %s: %q\n%s", c.lang, c.kind, m.Subject, m.Text)
		}
		if !strings.Contains(m.HTML, `href="`+strings.ReplaceAll(c.d.URL, "&", "&amp;")+`"`) || strings.Contains(m.HTML, "tok&en") {
			t.Errorf("%s %s: the HTML link is missing or not escaped:\n%s", c.lang, c.kind, m.HTML)
		}
		if c.kind == AccountExists && !strings.Contains(m.Text, c.d.ResetURL) {
			t.Errorf("%s: no reset page in %q", c.kind, m.Text)
		}
	}
	if _, err := ComposeAccountLink(envelope.LanguageEnglish, AccountVerify, AccountLinkData{Email: "a@b.cl", URL: link}); err == nil {
		t.Error("a link mail without its lifetime was composed")
	}
	if _, err := ComposeAccountLink(envelope.LanguageEnglish, "other", AccountLinkData{URL: link, Valid: time.Hour}); err == nil {
		t.Error("an unknown kind was composed")
	}
}
