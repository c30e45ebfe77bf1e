package mail

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// AccountMail is a message about a signer account, sent to its address.
type AccountMail string

// The messages of signer accounts.
const (
	// AccountVerify carries the link that proves the address of a new account.
	AccountVerify = AccountMail("account_verify")
	// AccountReset carries the link that sets a new password.
	AccountReset = AccountMail("account_reset")
	// AccountExists answers a sign-up for an address whose account exists: sign in, or reset
	// the password. It carries no link that changes anything.
	AccountExists = AccountMail("account_exists")
)

// AccountLinkData fills an account message.
type AccountLinkData struct {
	Email string
	// URL is the link: {SOBRE_PUBLIC_URL}/account/verify/{token} or /account/reset/{token}, or
	// for AccountExists the sign-in page.
	URL string
	// ResetURL is the page that mails a reset link (AccountExists).
	ResetURL string
	// Valid is how long URL works (AccountVerify, AccountReset).
	Valid time.Duration
}

type accountText struct{ subject, body, button string }

// accountTexts hold the account messages in each language; %[1]s is the address, %[2]s how long
// the link works, %[3]s the reset page.
var accountTexts = map[envelope.Language]map[AccountMail]accountText{
	envelope.LanguageEnglish: {
		AccountVerify: {"Confirm your email address for Sobre",
			"Hello,\n\nSomeone, probably you, created a Sobre account for %[1]s to sign documents. Open the link below to confirm that this address is yours; you can then sign in.\n\nThe link works once, for %[2]s. If you did not ask for an account, ignore this message: nothing happens without the link.",
			"Confirm my address"},
		AccountReset: {"Set a new password for your Sobre account",
			"Hello,\n\nSomeone, probably you, asked to set a new password for the Sobre account of %[1]s. Open the link below to choose it; every browser signed in to the account will be signed out.\n\nThe link works once, for %[2]s. If you did not ask for it, ignore this message: your password stays as it is.",
			"Choose a new password"},
		AccountExists: {"You already have a Sobre account",
			"Hello,\n\nSomeone, probably you, tried to create a Sobre account for %[1]s, but this address has one already, so nothing was changed.\n\nSign in with your password below. If you forgot it, set a new one here: %[3]s\n\nIf it was not you, ignore this message.",
			"Sign in"},
	},
	envelope.LanguageSpanish: {
		AccountVerify: {"Confirme su correo en Sobre",
			"Hola:\n\nAlguien, probablemente usted, creó una cuenta de Sobre para %[1]s, para firmar documentos. Abra el enlace de abajo para confirmar que esta dirección es suya; después podrá iniciar sesión.\n\nEl enlace funciona una vez, durante %[2]s. Si usted no pidió una cuenta, ignore este mensaje: sin el enlace no pasa nada.",
			"Confirmar mi correo"},
		AccountReset: {"Elija una nueva contraseña para su cuenta de Sobre",
			"Hola:\n\nAlguien, probablemente usted, pidió una nueva contraseña para la cuenta de Sobre de %[1]s. Abra el enlace de abajo para elegirla; se cerrará la sesión en todos los navegadores que la tengan abierta.\n\nEl enlace funciona una vez, durante %[2]s. Si usted no lo pidió, ignore este mensaje: su contraseña sigue igual.",
			"Elegir una nueva contraseña"},
		AccountExists: {"Usted ya tiene una cuenta de Sobre",
			"Hola:\n\nAlguien, probablemente usted, intentó crear una cuenta de Sobre para %[1]s, pero esta dirección ya tiene una, así que no se cambió nada.\n\nInicie sesión con su contraseña más abajo. Si la olvidó, elija una nueva aquí: %[3]s\n\nSi no fue usted, ignore este mensaje.",
			"Iniciar sesión"},
	},
}

// lifetime says d in words: "24 hours", "1 hour", "30 minutes".
func lifetime(lang envelope.Language, d time.Duration) string {
	n, unit, units := int(d/time.Hour), "hour", "hours"
	if lang == envelope.LanguageSpanish {
		unit, units = "hora", "horas"
	}
	if d < time.Hour || d%time.Hour != 0 {
		n, unit, units = int((d+time.Minute-1)/time.Minute), "minute", "minutes"
		if lang == envelope.LanguageSpanish {
			unit, units = "minuto", "minutos"
		}
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %s", n, units)
}

// ComposeAccountLink renders an account message of kind in lang (English when lang is unknown):
// plain text and HTML, with the link, and how long it works.
func ComposeAccountLink(lang envelope.Language, kind AccountMail, d AccountLinkData) (Composed, error) {
	set, ok := accountTexts[lang]
	if !ok {
		lang, set = envelope.LanguageEnglish, accountTexts[envelope.LanguageEnglish]
	}
	t, ok := set[kind]
	if !ok {
		return Composed{}, fmt.Errorf("no %s message in %s", kind, lang)
	}
	if d.URL == "" || (kind != AccountExists && d.Valid <= 0) || (kind == AccountExists && d.ResetURL == "") {
		return Composed{}, fmt.Errorf("%s message: link or lifetime missing", kind)
	}
	body := fmt.Sprintf(t.body, d.Email, lifetime(lang, d.Valid), d.ResetURL)
	text := body + "\n\n" + t.button + ": " + d.URL + "\n\n-- \nSobre"
	var html bytes.Buffer
	err := page.Execute(&html, map[string]any{
		"Lang": string(lang), "Subject": t.subject, "Paragraphs": strings.Split(body, "\n\n"), "Button": t.button, "URL": d.URL,
	})
	if err != nil {
		return Composed{}, fmt.Errorf("render %s html: %w", kind, err)
	}
	return Composed{Subject: t.subject, Text: text, HTML: html.String()}, nil
}
