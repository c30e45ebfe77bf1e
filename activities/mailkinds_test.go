package activities_test

import (
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
)

// Every kind of mail the workflow asks for (envelope.Mail) is a kind the mail package writes,
// in every language.
func TestEveryMailKindComposes(t *testing.T) {
	for _, k := range envelope.Mails() {
		for _, lang := range envelope.Languages() {
			c, err := mail.Compose(k, lang, mail.Data{RecipientName: "Ana", OwnerName: "Beto", Title: "Contrato"})
			if err != nil {
				t.Errorf("%s in %s: %v", k, lang, err)
				continue
			}
			if c.Subject == "" {
				t.Errorf("%s in %s: no subject", k, lang)
			}
		}
	}
}
