package web

import "github.com/sobre-sign/sobre/envelope"

// Text is every string a signing page shows, in one language.
type Text struct {
	Lang                                                   string
	TitleSign, TitleApprove, TitleView, TitleAssist        string
	From                                                   string
	Document, Page                                         string
	YourFields, NoFields                                   string
	Required, Optional                                     string
	FilledAtSigning, FilledByClaveUnica                    string
	FilledElsewhere                                        string
	FieldFor, FieldPrefilledBy, AssistFields               string
	SignatureHeading, SignatureHelp                        string
	TabDraw, TabType, TabUpload                            string
	DrawLabel, Clear, TypeLabel, UploadLabel               string
	Sign, Approve, MarkViewed, Complete                    string
	RejectHeading, RejectReason, Reject                    string
	Saving, Saved, Working                                 string
	IdentityHeading                                        string
	ClaveUnicaHelp, ContinueClaveUnica, ClaveUnicaVerified string
	FEAHeading, FEAHelp, FEADigest, FEAFile, FEAPaste      string
	FEAVerify, FEAVerified                                 string
	AccessHeading, AccessHelp, SendCode, CodeSent          string
	CodeLabel, VerifyCode                                  string
	Waiting, WaitingHelp                                   string
	Expired, ExpiredHelp                                   string
	Rejected, RejectedHelp, YouRejected                    string
	Cancelled, CancelledHelp                               string
	Completed, CompletedHelp, SignedWaiting                string
	CCHeading, CCHelp                                      string
	Unavailable, UnavailableHelp                           string
	NotFound, NotFoundHelp                                 string
	Replaced, ReplacedHelp                                 string
	ErrorHeading, BackToDocument                           string
	FillRequired                                           string
	Unreachable, UnreachableHelp                           string
	Continue                                               string
	Choose                                                 string
	ClaveUnicaRefused, ClaveUnicaBadRUN                    string
	CodeLocked, CodeLockedHelp                             string
	CodeWait                                               string // %d: seconds
	LinkEnded                                              string // %d: days
	// Signer accounts.
	AccountAccessHeading                    string
	AccountRequired                         string // %s: the recipient's email
	AccountMismatch                         string // %s: the signed-in email, %s: the recipient's
	AccountUnverified                       string // %s: the signed-in email
	SignIn, CreateAccount, SignOut          string
	VerifyHeading, AnyOneMethod, SignedInAs string // SignedInAs %s: the email
	NotSignedIn                             string // %s: the recipient's email
	MethodAccount, MethodPassword           string
	MethodTOTP, MethodPasskey               string
	AccountPassword, TOTPCode, Verify       string
	UsePasskey, SetUpTOTP, SetUpPasskey     string
	Proved, VerifyFirst                     string
	AuthWrong, AccountLocked                string // AccountLocked %d: minutes
	PasskeyCancelled, PasskeysUnsupported   string
}

var texts = map[envelope.Language]Text{
	envelope.LanguageEnglish: {
		Lang:      "en",
		TitleSign: "Sign the document", TitleApprove: "Approve the document", TitleView: "Review the document", TitleAssist: "Complete the document",
		From:     "From",
		Document: "Document", Page: "Page",
		YourFields: "Your fields", NoFields: "There are no fields for you to fill.",
		Required: "required", Optional: "optional",
		FilledAtSigning:    "Filled in with the date when you finish.",
		FilledByClaveUnica: "Filled in with your RUN when you verify your identity with ClaveÚnica.",
		FilledElsewhere:    "Filled in another browser: fill it in again here, or leave it empty.",
		FieldFor:           "for %s",
		FieldPrefilledBy:   "filled in by %s",
		AssistFields:       "Fields to fill in for the recipients after you",
		SignatureHeading:   "Your signature",
		SignatureHelp:      "Draw, type or upload your signature. It is placed in every signature field of yours.",
		TabDraw:            "Draw", TabType: "Type", TabUpload: "Upload",
		DrawLabel: "Drawing area: draw with a mouse, a finger or a pen", Clear: "Clear drawing",
		TypeLabel: "Type your name as your signature", UploadLabel: "Upload an image of your signature",
		Sign: "Sign", Approve: "Approve", MarkViewed: "Mark as viewed", Complete: "Complete",
		RejectHeading: "Do not agree?", RejectReason: "Reason for rejecting", Reject: "Reject",
		Saving: "Saving…", Saved: "Saved", Working: "Working…",
		IdentityHeading:    "Verify your identity",
		ClaveUnicaHelp:     "This document asks you to verify your identity with ClaveÚnica, the Chilean State's digital identity.",
		ContinueClaveUnica: "Continue with ClaveÚnica", ClaveUnicaVerified: "Verified with ClaveÚnica",
		FEAHeading: "Advanced electronic signature",
		FEAHelp:    "Sign the digest below with your advanced electronic signature certificate (a detached CMS/PKCS#7 signature) and give the result here. Fill in your fields first: the digest covers them.",
		FEADigest:  "SHA-256 digest to sign", FEAFile: "Signature file (.p7s, DER or PEM)", FEAPaste: "Or paste the signature (PEM or base64)",
		FEAVerify: "Verify my certificate", FEAVerified: "Advanced electronic signature verified",
		AccessHeading: "Confirm it is you", AccessHelp: "This document is protected. We will email you a six-digit code to open it.",
		SendCode: "Send code", CodeSent: "We sent a code to your email address. It expires in 10 minutes.",
		CodeLabel: "Six-digit code", VerifyCode: "Verify code",
		Waiting: "Not your turn yet", WaitingHelp: "Others must act on this document before you. We will email you when it is your turn.",
		Expired: "This link has expired", ExpiredHelp: "The time to act on this document has run out. Ask the sender to send it again.",
		Rejected: "This document was rejected", RejectedHelp: "It no longer needs your action.", YouRejected: "You rejected this document.",
		Cancelled: "This document was cancelled", CancelledHelp: "The sender cancelled it. It no longer needs your action.",
		Completed: "Done", CompletedHelp: "Everyone has completed this document. You will receive a copy by email.",
		SignedWaiting: "Thank you. You have completed your part; we will email you the document once everyone has.",
		CCHeading:     "Nothing to do", CCHelp: "You receive a copy of this document once everyone has completed it. There is nothing for you to sign.",
		Unavailable: "Verification not available", UnavailableHelp: "This document asks for a kind of verification that is not available yet. Ask the sender to change it.",
		NotFound: "Link not found", NotFoundHelp: "This signing link is not valid. Check the link in your email.",
		Replaced: "This link was replaced", ReplacedHelp: "The sender changed who signs here or how, so this link no longer opens the document. If it is for you, use the link in the newest email.",
		ErrorHeading: "Something went wrong", BackToDocument: "Back to the document",
		FillRequired: "Fill in every required field first.",
		Unreachable:  "Briefly unavailable", UnreachableHelp: "The signing service cannot read this document right now. Nothing was lost: open the link again in a moment.",
		Continue: "Continue", Choose: "Choose…",
		ClaveUnicaRefused:    "ClaveÚnica's answer could not be accepted (it was unknown, already used, expired or did not verify). Nothing was signed: go back to the signing page and try again.",
		ClaveUnicaBadRUN:     "ClaveÚnica gave a RUN whose check digit is wrong, so it cannot be used. Nothing was signed.",
		CodeLocked:           "Code entry locked",
		CodeLockedHelp:       "Too many wrong codes were typed on this link, so it takes no more codes. The sender has been told. Ask them to send you the document again: their new email lets you enter a code again.",
		CodeWait:             "Too many wrong codes: wait %d seconds before asking for or entering another code.",
		LinkEnded:            "This link no longer shows the document: a signing link shows it for %d days after the document is finished or the link expires. Ask the sender if you need a copy.",
		AccountAccessHeading: "Sign in to open this document",
		AccountRequired:      "This document is for %s. Sign in to the Sobre account of that address to open it, or create the account if you have none.",
		AccountMismatch:      "This browser is signed in to the account of %s, but this document is for %s. Sign out, then sign in to the account of that address.",
		AccountUnverified:    "The email address of your account (%s) is not verified yet. Open the link we emailed you, then come back to this page.",
		SignIn:               "Sign in", CreateAccount: "Create account", SignOut: "Sign out",
		VerifyHeading: "Verify to sign", AnyOneMethod: "Any one of these methods is enough.", SignedInAs: "Signed in as %s.",
		NotSignedIn:   "Sign in to the Sobre account of %s to use these methods.",
		MethodAccount: "Being signed in to the account of this document's address", MethodPassword: "Your account's password, typed again",
		MethodTOTP: "A code from your authenticator app (or a recovery code)", MethodPasskey: "A passkey of your account",
		AccountPassword: "Account password", TOTPCode: "Authenticator code", Verify: "Verify",
		UsePasskey: "Use a passkey", SetUpTOTP: "Set up an authenticator app in your account", SetUpPasskey: "Add a passkey to your account",
		Proved: "Verified", VerifyFirst: "Verify with one of the methods above before you finish.",
		AuthWrong:        "That is not right. Try again.",
		AccountLocked:    "Too many wrong attempts: your account is locked for %d minutes.",
		PasskeyCancelled: "The passkey was not used (cancelled or not allowed).", PasskeysUnsupported: "This browser does not support passkeys.",
	},
	envelope.LanguageSpanish: {
		Lang:      "es",
		TitleSign: "Firmar el documento", TitleApprove: "Aprobar el documento", TitleView: "Revisar el documento", TitleAssist: "Completar el documento",
		From:     "De",
		Document: "Documento", Page: "Página",
		YourFields: "Sus campos", NoFields: "No hay campos que deba completar.",
		Required: "obligatorio", Optional: "opcional",
		FilledAtSigning:    "Se completa con la fecha al terminar.",
		FilledByClaveUnica: "Se completa con su RUN al verificar su identidad con ClaveÚnica.",
		FilledElsewhere:    "Completado en otro navegador: vuelva a completarlo aquí, o déjelo vacío.",
		FieldFor:           "para %s",
		FieldPrefilledBy:   "completado por %s",
		AssistFields:       "Campos que completa para los destinatarios siguientes",
		SignatureHeading:   "Su firma",
		SignatureHelp:      "Dibuje, escriba o suba su firma. Se coloca en cada uno de sus campos de firma.",
		TabDraw:            "Dibujar", TabType: "Escribir", TabUpload: "Subir",
		DrawLabel: "Área de dibujo: dibuje con el mouse, el dedo o un lápiz", Clear: "Borrar dibujo",
		TypeLabel: "Escriba su nombre como firma", UploadLabel: "Suba una imagen de su firma",
		Sign: "Firmar", Approve: "Aprobar", MarkViewed: "Marcar como revisado", Complete: "Completar",
		RejectHeading: "¿No está de acuerdo?", RejectReason: "Motivo del rechazo", Reject: "Rechazar",
		Saving: "Guardando…", Saved: "Guardado", Working: "Procesando…",
		IdentityHeading:    "Verifique su identidad",
		ClaveUnicaHelp:     "Este documento le pide verificar su identidad con ClaveÚnica, la identidad digital del Estado de Chile.",
		ContinueClaveUnica: "Continuar con ClaveÚnica", ClaveUnicaVerified: "Verificado con ClaveÚnica",
		FEAHeading: "Firma electrónica avanzada",
		FEAHelp:    "Firme el resumen de abajo con su certificado de firma electrónica avanzada (una firma CMS/PKCS#7 separada) y entregue el resultado aquí. Complete antes sus campos: el resumen los incluye.",
		FEADigest:  "Resumen SHA-256 que debe firmar", FEAFile: "Archivo de la firma (.p7s, DER o PEM)", FEAPaste: "O pegue la firma (PEM o base64)",
		FEAVerify: "Verificar mi certificado", FEAVerified: "Firma electrónica avanzada verificada",
		AccessHeading: "Confirme que es usted", AccessHelp: "Este documento está protegido. Le enviaremos por correo un código de seis dígitos para abrirlo.",
		SendCode: "Enviar código", CodeSent: "Le enviamos un código a su correo. Vence en 10 minutos.",
		CodeLabel: "Código de seis dígitos", VerifyCode: "Verificar código",
		Waiting: "Aún no es su turno", WaitingHelp: "Otras personas deben actuar antes que usted. Le avisaremos por correo cuando sea su turno.",
		Expired: "Este enlace venció", ExpiredHelp: "Se acabó el plazo para actuar sobre este documento. Pida al remitente que se lo envíe de nuevo.",
		Rejected: "Este documento fue rechazado", RejectedHelp: "Ya no requiere su acción.", YouRejected: "Usted rechazó este documento.",
		Cancelled: "Este documento fue cancelado", CancelledHelp: "El remitente lo canceló. Ya no requiere su acción.",
		Completed: "Listo", CompletedHelp: "Todos completaron este documento. Recibirá una copia por correo.",
		SignedWaiting: "Gracias. Completó su parte; le enviaremos el documento por correo cuando todos lo hayan hecho.",
		CCHeading:     "Nada que hacer", CCHelp: "Recibirá una copia de este documento cuando todos lo hayan completado. No tiene nada que firmar.",
		Unavailable: "Verificación no disponible", UnavailableHelp: "Este documento pide un tipo de verificación que aún no está disponible. Pida al remitente que lo cambie.",
		NotFound: "Enlace no encontrado", NotFoundHelp: "Este enlace de firma no es válido. Revise el enlace de su correo.",
		Replaced: "Este enlace fue reemplazado", ReplacedHelp: "El remitente cambió quién firma aquí o cómo, así que este enlace ya no abre el documento. Si es para usted, use el enlace del correo más reciente.",
		ErrorHeading: "Algo salió mal", BackToDocument: "Volver al documento",
		FillRequired: "Primero complete todos los campos obligatorios.",
		Unreachable:  "No disponible por un momento", UnreachableHelp: "El servicio de firma no puede leer este documento ahora. No se perdió nada: vuelva a abrir el enlace en un momento.",
		Continue: "Continuar", Choose: "Elija…",
		ClaveUnicaRefused:    "No pudimos aceptar la respuesta de ClaveÚnica (era desconocida, ya usada, vencida o no se pudo verificar). No se firmó nada: vuelva a la página de firma e inténtelo de nuevo.",
		ClaveUnicaBadRUN:     "ClaveÚnica entregó un RUN con dígito verificador incorrecto, que no se puede usar. No se firmó nada.",
		CodeLocked:           "Ingreso de código bloqueado",
		CodeLockedHelp:       "Se ingresaron demasiados códigos incorrectos en este enlace, así que ya no acepta códigos. Avisamos al remitente. Pídale que le envíe el documento de nuevo: su nuevo correo le permitirá ingresar un código otra vez.",
		CodeWait:             "Demasiados códigos incorrectos: espere %d segundos antes de pedir o ingresar otro código.",
		LinkEnded:            "Este enlace ya no muestra el documento: un enlace de firma lo muestra durante %d días después de que el documento termina o el enlace vence. Si necesita una copia, pídasela al remitente.",
		AccountAccessHeading: "Inicie sesión para abrir este documento",
		AccountRequired:      "Este documento es para %s. Inicie sesión en la cuenta de Sobre de esa dirección para abrirlo, o cree la cuenta si no la tiene.",
		AccountMismatch:      "Este navegador tiene la sesión iniciada en la cuenta de %s, pero este documento es para %s. Cierre la sesión e inicie sesión en la cuenta de esa dirección.",
		AccountUnverified:    "El correo de su cuenta (%s) aún no está verificado. Abra el enlace que le enviamos y vuelva a esta página.",
		SignIn:               "Iniciar sesión", CreateAccount: "Crear cuenta", SignOut: "Cerrar sesión",
		VerifyHeading: "Verifique para firmar", AnyOneMethod: "Basta con uno cualquiera de estos métodos.", SignedInAs: "Sesión iniciada como %s.",
		NotSignedIn:   "Inicie sesión en la cuenta de Sobre de %s para usar estos métodos.",
		MethodAccount: "Tener la sesión iniciada en la cuenta de la dirección de este documento", MethodPassword: "La contraseña de su cuenta, escrita de nuevo",
		MethodTOTP: "Un código de su app de autenticación (o un código de recuperación)", MethodPasskey: "Una llave de acceso de su cuenta",
		AccountPassword: "Contraseña de la cuenta", TOTPCode: "Código de autenticación", Verify: "Verificar",
		UsePasskey: "Usar una llave de acceso", SetUpTOTP: "Configure una app de autenticación en su cuenta", SetUpPasskey: "Agregue una llave de acceso a su cuenta",
		Proved: "Verificado", VerifyFirst: "Verifique con uno de los métodos de arriba antes de terminar.",
		AuthWrong:        "No es correcto. Inténtelo de nuevo.",
		AccountLocked:    "Demasiados intentos fallidos: su cuenta está bloqueada por %d minutos.",
		PasskeyCancelled: "No se usó la llave de acceso (se canceló o no se permitió).", PasskeysUnsupported: "Este navegador no admite llaves de acceso.",
	},
}

// textFor returns the strings of lang, English when Sobre does not speak it.
func textFor(lang envelope.Language) Text {
	if t, ok := texts[lang]; ok {
		return t
	}
	return texts[envelope.LanguageEnglish]
}
