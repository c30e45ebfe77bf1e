package mail

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

func TestComposeLanguagesAndRoles(t *testing.T) {
	d := Data{RecipientName: "Ana", OwnerName: "Bo", Title: "Contrato <1>", URL: "https://sobre.test/sign/abc", Role: envelope.RoleApprover}
	en, err := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, d)
	if err != nil {
		t.Fatal(err)
	}
	if en.Subject != `Please approve "Contrato <1>"` || !strings.Contains(en.Text, "https://sobre.test/sign/abc") {
		t.Errorf("english: %q / %q", en.Subject, en.Text)
	}
	if strings.Contains(en.HTML, "Contrato <1>") || !strings.Contains(en.HTML, "Contrato &lt;1&gt;") || !strings.Contains(en.HTML, `lang="en"`) {
		t.Errorf("html not escaped or without lang: %s", en.HTML)
	}
	es, err := Compose(envelope.MailSigningRequest, envelope.LanguageSpanish, d)
	if err != nil {
		t.Fatal(err)
	}
	if es.Subject != "Por favor aprobar «Contrato <1>»" || !strings.Contains(es.HTML, `lang="es"`) {
		t.Errorf("spanish: %q", es.Subject)
	}
	d.Subject, d.Message = "Firme hoy", "Gracias"
	custom, _ := Compose(envelope.MailSigningRequest, envelope.LanguageSpanish, d)
	if custom.Subject != "Firme hoy" || !strings.Contains(custom.Text, "Gracias") {
		t.Errorf("owner's subject and message not used: %+v", custom)
	}
	for _, lang := range envelope.Languages() {
		for kind := range texts[envelope.LanguageEnglish] {
			if _, err := Compose(kind, lang, d); err != nil {
				t.Errorf("%s in %s: %v", kind, lang, err)
			}
		}
	}
}

func TestNewSenderURLs(t *testing.T) {
	for _, ok := range []string{"smtp://127.0.0.1:1025", "smtp+starttls://u:p@smtp.example.com:587", "smtps://smtp.example.com"} {
		if _, err := NewSender(ok, "Sobre <a@b.c>"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://x", "smtp://", "smtp://h:port", "::"} {
		if _, err := NewSender(bad, "a@b.c"); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// A message sent to the real sink arrives with its Message-ID, both bodies and its attachment.
func TestSendToTheSink(t *testing.T) {
	smtpURL, sink := os.Getenv("SOBRE_TEST_SMTP_URL"), os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if smtpURL == "" || sink == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL and SOBRE_TEST_MAILPIT_URL must be set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	s, err := NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	to := fmt.Sprintf("mailtest-%d@sobre.test", time.Now().UnixNano())
	id := fmt.Sprintf("test.%d@sobre.test", time.Now().UnixNano())
	c, _ := Compose(envelope.MailDocumentCompleted, envelope.LanguageSpanish, Data{RecipientName: "Ana", Title: "Ñandú", URL: "https://x"})
	transmitted := false
	err = s.Send(context.Background(), Message{ID: id, To: to, ToName: "Ana", EnvelopeID: "envelope_x", Composed: c,
		Attachments: []Attachment{{Name: "doc.pdf", Data: []byte("%PDF-1.7")}}}, func() error { transmitted = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !transmitted {
		t.Error("the transmitting hook was not called")
	}
	res, err := http.Get(sink + "/api/v1/search?query=" + url.QueryEscape("to:"+to))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct {
		Messages []struct {
			ID, MessageID, Subject string
			Attachments            int
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil {
		t.Fatal(err)
	}
	if len(found.Messages) != 1 {
		t.Fatalf("sink holds %d messages for %s", len(found.Messages), to)
	}
	m := found.Messages[0]
	if m.MessageID != id || m.Subject != "Completado: «Ñandú»" || m.Attachments != 1 {
		t.Errorf("message %+v", m)
	}
}
