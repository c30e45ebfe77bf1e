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

func TestComposeAccountNotice(t *testing.T) {
	at := time.Date(2025, 3, 4, 15, 6, 7, 0, time.FixedZone("CLT", -3*3600))
	const reset = "https://sobre.test/account/reset?email=a%40b.cl&x=1"
	d := AccountNoticeData{Email: "a@b.cl", PasskeyName: "Llave <1>", At: at, IP: "203.0.113.9", Browser: "Firefox/130", ResetURL: reset}
	for _, c := range []struct {
		lang          envelope.Language
		kind          AccountMail
		subject, what string
		advice        string
	}{
		{envelope.LanguageEnglish, AccountTOTPAdded, "An authenticator app was added", "An authenticator app was added to the Sobre account of a@b.cl.", "If this wasn't you, reset your password"},
		{envelope.LanguageEnglish, AccountTOTPRemoved, "was turned off", "The authenticator app of the Sobre account of a@b.cl was turned off.", "If this wasn't you"},
		{envelope.LanguageEnglish, AccountPasskeyAdded, "A passkey was added", "A passkey named \u201cLlave <1>\u201d was added to the Sobre account of a@b.cl.", "reset your password"},
		{"", AccountPasskeyRemoved, "A passkey was removed", "The passkey named \u201cLlave <1>\u201d was removed", "reset your password"},
		{envelope.LanguageSpanish, AccountTOTPAdded, "Se agregó una app de autenticación", "Se agregó una app de autenticación a la cuenta de Sobre de a@b.cl.", "Si no fue usted, restablezca su contraseña"},
		{envelope.LanguageSpanish, AccountTOTPRemoved, "Se desactivó", "Se desactivó la app de autenticación de la cuenta de Sobre de a@b.cl.", "restablezca su contraseña"},
		{envelope.LanguageSpanish, AccountPasskeyAdded, "Se agregó una llave de acceso", "Se agregó la llave de acceso «Llave <1>» a la cuenta", "restablezca su contraseña"},
		{envelope.LanguageSpanish, AccountPasskeyRemoved, "Se eliminó una llave de acceso", "Se eliminó la llave de acceso «Llave <1>» de la cuenta", "restablezca su contraseña"},
	} {
		m, err := ComposeAccountNotice(c.lang, c.kind, d)
		if err != nil {
			t.Fatalf("%s %s: %v", c.lang, c.kind, err)
		}
		if !strings.Contains(m.Subject, c.subject) || !strings.Contains(m.Text, c.what) || !strings.Contains(m.Text, c.advice) ||
			!strings.Contains(m.Text, "2025-03-04 18:06 UTC") || !strings.Contains(m.Text, "203.0.113.9") || !strings.Contains(m.Text, "Firefox/130") ||
			!strings.Contains(m.Text, reset) || strings.Contains(m.Text, "%!") {
			t.Errorf("%s %s: %q\n%s", c.lang, c.kind, m.Subject, m.Text)
		}
		// Each detail is a line of its own in the HTML too.
		if !strings.Contains(m.HTML, `href="`+strings.ReplaceAll(reset, "&", "&amp;")+`"`) || strings.Contains(m.HTML, "<1>") ||
			!strings.Contains(m.HTML, " 203.0.113.9</p>") || !strings.Contains(m.HTML, " Firefox/130</p>") {
			t.Errorf("%s %s: the HTML lacks the reset link or does not escape:\n%s", c.lang, c.kind, m.HTML)
		}
	}
	// What is not known says so.
	m, err := ComposeAccountNotice(envelope.LanguageSpanish, AccountTOTPAdded, AccountNoticeData{Email: "a@b.cl", At: at, ResetURL: reset})
	if err != nil || !strings.Contains(m.Text, "Dirección IP: desconocido") || !strings.Contains(m.Text, "Navegador: desconocido") {
		t.Errorf("unknown client: %v\n%s", err, m.Text)
	}
	for _, bad := range []AccountNoticeData{{Email: "a@b.cl", At: at}, {Email: "a@b.cl", ResetURL: reset}} {
		if _, err := ComposeAccountNotice(envelope.LanguageEnglish, AccountTOTPAdded, bad); err == nil {
			t.Errorf("a notice without its reset page or time was composed: %+v", bad)
		}
	}
	if _, err := ComposeAccountNotice(envelope.LanguageEnglish, AccountVerify, d); err == nil {
		t.Error("a link mail was composed as a notice")
	}
}
