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

// The notices of a change to an account's second factors, sent to its address whenever one is
// added or removed (ComposeAccountNotice).
const (
	AccountTOTPAdded      = AccountMail("account_totp_added")
	AccountTOTPRemoved    = AccountMail("account_totp_removed")
	AccountPasskeyAdded   = AccountMail("account_passkey_added")
	AccountPasskeyRemoved = AccountMail("account_passkey_removed")
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
			"Hello,\n\nSomeone, probably you, created a Sobre account for %[1]s to sign documents. Open the link below and type the password chosen for the account, to confirm that this address is yours; you are then signed in.\n\nThe link works once, for %[2]s. If you did not ask for an account, ignore this message: nothing happens without the link and that password. If you did but do not remember the password, create the account again: the new password replaces the earlier one.",
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
			"Hola:\n\nAlguien, probablemente usted, creó una cuenta de Sobre para %[1]s, para firmar documentos. Abra el enlace de abajo y escriba la contraseña elegida para la cuenta, para confirmar que esta dirección es suya; quedará con la sesión iniciada.\n\nEl enlace funciona una vez, durante %[2]s. Si usted no pidió una cuenta, ignore este mensaje: sin el enlace y esa contraseña no pasa nada. Si la pidió pero no recuerda la contraseña, cree la cuenta de nuevo: la nueva contraseña reemplaza a la anterior.",
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
	t, lang, ok := textOf(accountTexts, lang, kind)
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

// AccountNoticeData fills a notice of a change to an account's second factors.
type AccountNoticeData struct {
	Email       string
	PasskeyName string    // the passkey added or removed (AccountPasskeyAdded, AccountPasskeyRemoved)
	At          time.Time // when the change was made
	IP          string    // from where
	Browser     string    // the User-Agent of the browser that made it
	ResetURL    string    // the page that mails a password-reset link
}

// noticeText is one notice: its subject and what happened (%[1]s the address, %[2]s the
// passkey's name).
type noticeText struct{ subject, what string }

// noticeFrame is what every notice says around what happened: details (%[1]s when, %[2]s the
// IP address, %[3]s the browser), advice (%s the reset page), the button and the word for a
// detail that is not known.
type noticeFrame struct{ details, advice, button, unknown string }

var noticeTexts = map[envelope.Language]map[AccountMail]noticeText{
	envelope.LanguageEnglish: {
		AccountTOTPAdded:      {"An authenticator app was added to your Sobre account", "An authenticator app was added to the Sobre account of %[1]s."},
		AccountTOTPRemoved:    {"The authenticator app of your Sobre account was turned off", "The authenticator app of the Sobre account of %[1]s was turned off."},
		AccountPasskeyAdded:   {"A passkey was added to your Sobre account", "A passkey named \u201c%[2]s\u201d was added to the Sobre account of %[1]s."},
		AccountPasskeyRemoved: {"A passkey was removed from your Sobre account", "The passkey named \u201c%[2]s\u201d was removed from the Sobre account of %[1]s."},
	},
	envelope.LanguageSpanish: {
		AccountTOTPAdded:      {"Se agregó una app de autenticación a su cuenta de Sobre", "Se agregó una app de autenticación a la cuenta de Sobre de %[1]s."},
		AccountTOTPRemoved:    {"Se desactivó la app de autenticación de su cuenta de Sobre", "Se desactivó la app de autenticación de la cuenta de Sobre de %[1]s."},
		AccountPasskeyAdded:   {"Se agregó una llave de acceso a su cuenta de Sobre", "Se agregó la llave de acceso «%[2]s» a la cuenta de Sobre de %[1]s."},
		AccountPasskeyRemoved: {"Se eliminó una llave de acceso de su cuenta de Sobre", "Se eliminó la llave de acceso «%[2]s» de la cuenta de Sobre de %[1]s."},
	},
}

var noticeFrames = map[envelope.Language]noticeFrame{
	envelope.LanguageEnglish: {
		details: "When: %[1]s\nIP address: %[2]s\nBrowser: %[3]s",
		advice:  "If this wasn't you, reset your password now: someone who knows it is changing how your account is protected. Then check your account's authenticator app and passkeys. Reset your password here: %s",
		button:  "Reset my password", unknown: "unknown",
	},
	envelope.LanguageSpanish: {
		details: "Cuándo: %[1]s\nDirección IP: %[2]s\nNavegador: %[3]s",
		advice:  "Si no fue usted, restablezca su contraseña ahora: alguien que la conoce está cambiando cómo se protege su cuenta. Luego revise la app de autenticación y las llaves de acceso de su cuenta. Restablezca su contraseña aquí: %s",
		button:  "Restablecer mi contraseña", unknown: "desconocido",
	},
}

// ComposeAccountNotice renders a notice of kind (AccountTOTPAdded, AccountTOTPRemoved,
// AccountPasskeyAdded, AccountPasskeyRemoved) in lang (English when lang is unknown): what
// changed, when, from which IP address and browser, and, if it was not the account's holder, to
// reset the password at once (the reset page is the button).
func ComposeAccountNotice(lang envelope.Language, kind AccountMail, d AccountNoticeData) (Composed, error) {
	t, lang, ok := textOf(noticeTexts, lang, kind)
	if !ok {
		return Composed{}, fmt.Errorf("no %s notice in %s", kind, lang)
	}
	if d.ResetURL == "" || d.At.IsZero() {
		return Composed{}, fmt.Errorf("%s notice: reset page or time missing", kind)
	}
	f := noticeFrames[lang]
	orUnknown := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return f.unknown
		}
		return s
	}
	greeting := "Hello,"
	if lang == envelope.LanguageSpanish {
		greeting = "Hola:"
	}
	paragraphs := []string{
		greeting,
		fmt.Sprintf(t.what, d.Email, d.PasskeyName),
		fmt.Sprintf(f.details, d.At.UTC().Format("2006-01-02 15:04 UTC"), orUnknown(d.IP), orUnknown(d.Browser)),
		fmt.Sprintf(f.advice, d.ResetURL),
	}
	text := strings.Join(paragraphs, "\n\n") + "\n\n-- \nSobre"
	var lines []string
	for _, p := range paragraphs {
		lines = append(lines, strings.Split(p, "\n")...)
	}
	var html bytes.Buffer
	err := page.Execute(&html, map[string]any{
		"Lang": string(lang), "Subject": t.subject, "Paragraphs": lines, "Button": f.button, "URL": d.ResetURL,
	})
	if err != nil {
		return Composed{}, fmt.Errorf("render %s html: %w", kind, err)
	}
	return Composed{Subject: t.subject, Text: text, HTML: html.String()}, nil
}
