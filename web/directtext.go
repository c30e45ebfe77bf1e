package web

import "github.com/sobre-sign/sobre/envelope"

// directText is what a direct link's page says beyond the signing page's words, in one language.
type directText struct {
	VisitorHeading, VisitorHelp string
	Name, Email                 string
	Disabled, DisabledHelp      string
	NotReady, NotReadyHelp      string
}

var directTexts = map[envelope.Language]directText{
	envelope.LanguageEnglish: {
		VisitorHeading: "Your details", VisitorHelp: "The document is made out to the name and email you give here, and a copy is sent there once everyone has signed.",
		Name: "Full name", Email: "Email",
		Disabled: "This link is disabled", DisabledHelp: "Its owner has turned this link off. Ask them for another way to sign.",
		NotReady: "This link is not ready", NotReadyHelp: "The document behind this link cannot be signed as it is. Ask its owner.",
	},
	envelope.LanguageSpanish: {
		VisitorHeading: "Sus datos", VisitorHelp: "El documento se extiende al nombre y correo que indique aquí, y a ese correo se envía una copia cuando todos hayan firmado.",
		Name: "Nombre completo", Email: "Correo electrónico",
		Disabled: "Este enlace está desactivado", DisabledHelp: "Su dueño desactivó este enlace. Pídale otra forma de firmar.",
		NotReady: "Este enlace no está listo", NotReadyHelp: "El documento de este enlace no se puede firmar tal como está. Consulte a su dueño.",
	},
}

func directTextFor(lang envelope.Language) directText {
	if t, ok := directTexts[lang]; ok {
		return t
	}
	return directTexts[envelope.LanguageEnglish]
}
