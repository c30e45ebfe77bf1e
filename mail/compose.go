package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"text/template"

	"github.com/sobre-sign/sobre/envelope"
)

// Data fills a message's template.
type Data struct {
	RecipientName string
	OwnerName     string
	ActorName     string // who signed, rejected or expired
	Title         string
	URL           string
	Role          envelope.Role
	Reason        string
	Message       string // the owner's message from documentMeta
	Subject       string // the owner's subject from documentMeta, for signing requests
}

type text struct{ subject, body, button string }

// texts holds every kind of message (envelope.Mails) in each language. Bodies are text/template sources; paragraphs are
// separated by blank lines.
var texts = map[envelope.Language]map[envelope.Mail]text{
	envelope.LanguageEnglish: {
		envelope.MailSigningRequest: {"{{if .Subject}}{{.Subject}}{{else}}Please {{verb .Role}} \"{{.Title}}\"{{end}}",
			"Hello {{.RecipientName}},\n\n{{.OwnerName}} has sent you \"{{.Title}}\" to {{verb .Role}}.{{if .Message}}\n\n{{.Message}}{{end}}", "{{verbTitle .Role}} the document"},
		envelope.MailReminder: {"Reminder: please {{verb .Role}} \"{{.Title}}\"",
			"Hello {{.RecipientName}},\n\nThis is a reminder that {{.OwnerName}} is waiting for you to {{verb .Role}} \"{{.Title}}\".", "{{verbTitle .Role}} the document"},
		envelope.MailRecipientSigned: {"{{.ActorName}} has completed \"{{.Title}}\"",
			"Hello {{.OwnerName}},\n\n{{.ActorName}} has completed their part of \"{{.Title}}\".", ""},
		envelope.MailDocumentPending: {"Waiting for others to complete \"{{.Title}}\"",
			"Hello {{.RecipientName}},\n\nThank you: you have completed your part of \"{{.Title}}\". We will send you the completed document once everyone has.", ""},
		envelope.MailDocumentCompleted: {"Completed: \"{{.Title}}\"",
			"Hello {{.RecipientName}},\n\n\"{{.Title}}\" has been completed by everyone. The document is attached.", "View the document"},
		envelope.MailOwnerCompleted: {"Completed: \"{{.Title}}\"",
			"Hello {{.OwnerName}},\n\nEveryone has completed \"{{.Title}}\". The document is attached.", ""},
		envelope.MailRejectionConfirmed: {"You rejected \"{{.Title}}\"",
			"Hello {{.RecipientName}},\n\nYou rejected \"{{.Title}}\".{{if .Reason}} Your reason: {{.Reason}}{{end}}\n\n{{.OwnerName}} has been told.", ""},
		envelope.MailOwnerRejected: {"\"{{.Title}}\" was rejected by {{.ActorName}}",
			"Hello {{.OwnerName}},\n\n{{.ActorName}} rejected \"{{.Title}}\".{{if .Reason}} Reason: {{.Reason}}{{end}}", ""},
		envelope.MailEnvelopeCancelled: {"\"{{.Title}}\" has been cancelled",
			"Hello {{.RecipientName}},\n\n\"{{.Title}}\" has been cancelled{{if .OwnerName}} by {{.OwnerName}}{{end}} and no longer needs your action.{{if .Reason}} Reason: {{.Reason}}{{end}}", ""},
		envelope.MailRecipientRemoved: {"You were removed from \"{{.Title}}\"",
			"Hello {{.RecipientName}},\n\n{{.OwnerName}} has removed you from \"{{.Title}}\". You no longer need to act on it.", ""},
		envelope.MailOwnerExpired: {"A recipient's link to \"{{.Title}}\" has expired",
			"Hello {{.OwnerName}},\n\nThe time for {{.ActorName}} to act on \"{{.Title}}\" has run out. You may send the envelope to them again or cancel it.", ""},
		envelope.MailOwnerCodeLocked: {"Too many wrong codes on {{.ActorName}}'s link to \"{{.Title}}\"",
			"Hello {{.OwnerName}},\n\nToo many wrong access codes were typed on {{.ActorName}}'s signing link to \"{{.Title}}\", so the link takes no more codes and cannot open the document. Someone may be trying to guess the code sent to {{.ActorName}}.\n\nIf {{.ActorName}} still needs to act, check with them, then send the envelope to them again (redistribute): they get a new link that takes codes, and the old one stops working.", ""},
		envelope.MailOwnerIdentity: {"Someone else tried to sign as {{.ActorName}} on \"{{.Title}}\"",
			"Hello {{.OwnerName}},\n\nOn {{.ActorName}}'s signing link to \"{{.Title}}\", a person proved a RUN other than the one you set for this recipient, so Sobre refused it: nothing was filled or signed. The audit log names the RUN and the method.\n\nIf the link reached the wrong person, correct the recipient's email: that sends a new link and ends the old one.", ""},
		envelope.MailOwnerDirectCreated: {"{{.ActorName}} signed \"{{.Title}}\" through its direct link",
			"Hello {{.OwnerName}},\n\n{{.ActorName}} signed \"{{.Title}}\" through your template's direct link. The document made for them has been sent to the template's other recipients.", ""},
		envelope.MailOwnerSealFailed: {"\"{{.Title}}\" could not be sealed",
			"Hello {{.OwnerName}},\n\nEveryone has completed \"{{.Title}}\", but Sobre could not seal it, so it is not completed yet and no signed copy was sent. Nothing was lost: every signature is recorded.\n\nReason: {{.Reason}}\n\nYour administrator can find the envelope in the Temporal Web UI and retry the seal once the cause is fixed.", ""},
	},
	envelope.LanguageSpanish: {
		envelope.MailSigningRequest: {"{{if .Subject}}{{.Subject}}{{else}}Por favor {{verb .Role}} «{{.Title}}»{{end}}",
			"Hola {{.RecipientName}}:\n\n{{.OwnerName}} le ha enviado «{{.Title}}» para {{verb .Role}}.{{if .Message}}\n\n{{.Message}}{{end}}", "{{verbTitle .Role}} el documento"},
		envelope.MailReminder: {"Recordatorio: por favor {{verb .Role}} «{{.Title}}»",
			"Hola {{.RecipientName}}:\n\nLe recordamos que {{.OwnerName}} espera que usted pueda {{verb .Role}} «{{.Title}}».", "{{verbTitle .Role}} el documento"},
		envelope.MailRecipientSigned: {"{{.ActorName}} completó «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\n{{.ActorName}} completó su parte de «{{.Title}}».", ""},
		envelope.MailDocumentPending: {"Esperando que los demás completen «{{.Title}}»",
			"Hola {{.RecipientName}}:\n\nGracias: completó su parte de «{{.Title}}». Le enviaremos el documento completo cuando todos lo hayan hecho.", ""},
		envelope.MailDocumentCompleted: {"Completado: «{{.Title}}»",
			"Hola {{.RecipientName}}:\n\nTodos completaron «{{.Title}}». Adjuntamos el documento.", "Ver el documento"},
		envelope.MailOwnerCompleted: {"Completado: «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\nTodos completaron «{{.Title}}». Adjuntamos el documento.", ""},
		envelope.MailRejectionConfirmed: {"Usted rechazó «{{.Title}}»",
			"Hola {{.RecipientName}}:\n\nUsted rechazó «{{.Title}}».{{if .Reason}} Su motivo: {{.Reason}}{{end}}\n\nHemos avisado a {{.OwnerName}}.", ""},
		envelope.MailOwnerRejected: {"{{.ActorName}} rechazó «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\n{{.ActorName}} rechazó «{{.Title}}».{{if .Reason}} Motivo: {{.Reason}}{{end}}", ""},
		envelope.MailEnvelopeCancelled: {"«{{.Title}}» fue cancelado",
			"Hola {{.RecipientName}}:\n\n«{{.Title}}» fue cancelado{{if .OwnerName}} por {{.OwnerName}}{{end}} y ya no requiere su acción.{{if .Reason}} Motivo: {{.Reason}}{{end}}", ""},
		envelope.MailRecipientRemoved: {"Fue retirado de «{{.Title}}»",
			"Hola {{.RecipientName}}:\n\n{{.OwnerName}} lo retiró de «{{.Title}}». Ya no necesita actuar sobre él.", ""},
		envelope.MailOwnerExpired: {"Venció el enlace de un destinatario de «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\nVenció el plazo de {{.ActorName}} para actuar sobre «{{.Title}}». Puede volver a enviárselo o cancelar el sobre.", ""},
		envelope.MailOwnerCodeLocked: {"Demasiados códigos incorrectos en el enlace de {{.ActorName}} a «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\nSe ingresaron demasiados códigos de acceso incorrectos en el enlace de firma de {{.ActorName}} a «{{.Title}}», así que el enlace ya no acepta códigos ni abre el documento. Es posible que alguien intente adivinar el código enviado a {{.ActorName}}.\n\nSi {{.ActorName}} aún debe actuar, confírmelo con esa persona y vuelva a enviarle el sobre (reenviar): recibirá un enlace nuevo que acepta códigos, y el anterior dejará de funcionar.", ""},
		envelope.MailOwnerIdentity: {"Otra persona intentó firmar como {{.ActorName}} en «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\nEn el enlace de firma de {{.ActorName}} a «{{.Title}}», una persona acreditó un RUN distinto del que usted indicó para este destinatario, así que Sobre lo rechazó: no se llenó ni firmó nada. El registro de auditoría indica el RUN y el método.\n\nSi el enlace llegó a la persona equivocada, corrija el correo del destinatario: se enviará un enlace nuevo y el anterior dejará de funcionar.", ""},
		envelope.MailOwnerDirectCreated: {"{{.ActorName}} firmó «{{.Title}}» mediante su enlace directo",
			"Hola {{.OwnerName}}:\n\n{{.ActorName}} firmó «{{.Title}}» mediante el enlace directo de su plantilla. El documento creado se envió a los demás destinatarios de la plantilla.", ""},
		envelope.MailOwnerSealFailed: {"No se pudo sellar «{{.Title}}»",
			"Hola {{.OwnerName}}:\n\nTodos completaron «{{.Title}}», pero Sobre no pudo sellarlo, así que aún no está completado y no se envió la copia firmada. No se perdió nada: cada firma está registrada.\n\nMotivo: {{.Reason}}\n\nSu administrador puede encontrar el sobre en la interfaz web de Temporal y reintentar el sellado cuando la causa esté resuelta.", ""},
	},
}

var verbs = map[envelope.Language]map[envelope.Role][2]string{
	envelope.LanguageEnglish: {
		envelope.RoleSigner: {"sign", "Sign"}, envelope.RoleApprover: {"approve", "Approve"},
		envelope.RoleViewer: {"view", "View"}, envelope.RoleAssistant: {"assist with", "Assist with"}, envelope.RoleCC: {"view", "View"},
	},
	envelope.LanguageSpanish: {
		envelope.RoleSigner: {"firmar", "Firmar"}, envelope.RoleApprover: {"aprobar", "Aprobar"},
		envelope.RoleViewer: {"revisar", "Revisar"}, envelope.RoleAssistant: {"completar", "Completar"}, envelope.RoleCC: {"revisar", "Revisar"},
	},
}

// textOf is the text of kind in lang from texts, or in English when texts has nothing in lang,
// with the language it is in; ok is false when that language has no text of kind.
func textOf[K comparable, T any](texts map[envelope.Language]map[K]T, lang envelope.Language, kind K) (t T, in envelope.Language, ok bool) {
	set, found := texts[lang]
	if !found {
		lang, set = envelope.LanguageEnglish, texts[envelope.LanguageEnglish]
	}
	t, ok = set[kind]
	return t, lang, ok
}

// Composed is a rendered message.
type Composed struct {
	Subject, Text, HTML string
}

// Compose renders a message of kind in lang (English when lang is unknown).
func Compose(kind envelope.Mail, lang envelope.Language, d Data) (Composed, error) {
	t, lang, ok := textOf(texts, lang, kind)
	if !ok {
		return Composed{}, fmt.Errorf("no %s message in %s", kind, lang)
	}
	funcs := template.FuncMap{
		"verb":      func(r envelope.Role) string { return verbs[lang][r][0] },
		"verbTitle": func(r envelope.Role) string { return verbs[lang][r][1] },
	}
	render := func(src string) (string, error) {
		tpl, err := template.New(string(kind)).Funcs(funcs).Parse(src)
		if err != nil {
			return "", fmt.Errorf("parse %s template: %w", kind, err)
		}
		var b bytes.Buffer
		if err := tpl.Execute(&b, d); err != nil {
			return "", fmt.Errorf("render %s: %w", kind, err)
		}
		return b.String(), nil
	}
	subject, err := render(t.subject)
	if err != nil {
		return Composed{}, err
	}
	body, err := render(t.body)
	if err != nil {
		return Composed{}, err
	}
	button := ""
	if t.button != "" && d.URL != "" {
		if button, err = render(t.button); err != nil {
			return Composed{}, err
		}
	}
	text := body
	if button != "" {
		text += "\n\n" + button + ": " + d.URL
	}
	text += "\n\n-- \nSobre"
	var html bytes.Buffer
	err = page.Execute(&html, map[string]any{
		"Lang": string(lang), "Subject": subject, "Paragraphs": strings.Split(body, "\n\n"), "Button": button, "URL": d.URL,
	})
	if err != nil {
		return Composed{}, fmt.Errorf("render %s html: %w", kind, err)
	}
	return Composed{Subject: strings.TrimSpace(subject), Text: text, HTML: html.String()}, nil
}

var page = htmltemplate.Must(htmltemplate.New("page").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: system-ui, sans-serif; color: #1f2933; max-width: 36rem; margin: 2rem auto; line-height: 1.5">
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{if .Button}}<p><a href="{{.URL}}" style="display: inline-block; padding: .6rem 1.2rem; background: #1d4ed8; color: #fff; border-radius: .4rem; text-decoration: none">{{.Button}}</a></p>
<p style="font-size: .85rem; color: #52606d">{{.URL}}</p>
{{end}}<p style="font-size: .8rem; color: #7b8794">Sobre</p>
</body></html>
`))
