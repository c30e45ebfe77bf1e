package web

import "github.com/sobre-sign/sobre/envelope"

// AccountText is every string the account pages show, in one language.
type AccountText struct {
	Lang                                           string
	Account, SkipToContent                         string
	SignUpHeading, SignUpHelp                      string
	Email, Password, Password2, PasswordRule       string
	CreateAccount, HaveAccount, SignInLink         string
	PasswordsDiffer, EmailMissing, PasswordMissing string
	EmailInvalid                                   string
	CheckEmailHeading, CheckEmailHelp              string // CheckEmailHelp %s: the address
	SignInHeading, SignInHelp, SignIn              string
	NoAccount, SignUpLink, ForgotPassword          string
	WrongPassword, Unverified, SendLinkAgain       string
	WrongCode                                      string
	Locked                                         string // %d: minutes
	Verified, PasswordChanged                      string
	VerifyFailedHeading, VerifyFailedHelp          string
	VerifyHeading, VerifyHelp, VerifySubmit        string
	VerifyWrongPassword, VerifyNotYou              string
	FactorHeading, FactorHelp, FactorConfirm       string
	FactorPasskey, FactorRequired                  string
	FactorProved                                   string // %s: until when
	FactorConfirmedDone, FactorPasskeyCancelled    string
	ResetHeading, ResetHelp, SendResetLink         string
	ResetSentHeading, ResetSentHelp                string
	NewPasswordHeading, NewPasswordHelp            string
	SetPassword, ResetFailedHeading, ResetFailed   string
	AskNewLink                                     string
	AccountHeading, SignedInAs, SignOut            string
	BackToSigning                                  string
	AuthenticatorHeading, AuthenticatorHelp        string
	AuthenticatorOn, AuthenticatorOff              string
	RecoveryLeft                                   string // %d: how many
	SetUpAuthenticator, DisableAuthenticator       string
	DisableHelp, CodeOrRecovery                    string
	TOTPSetupHeading, TOTPScan, TOTPQRAlt          string
	TOTPType, TOTPConfirmHelp, TOTPCode, TurnOn    string
	TOTPWrongHelp, StartAgain                      string
	RecoveryHeading, RecoveryHelp, Done            string
	AuthenticatorOffDone                           string
	PasskeysHeading, PasskeysHelp, NoPasskeys      string
	PasskeyName, PasskeyNameDefault, AddPasskey    string
	Created, LastUsed, Never, Remove, Name         string
	PasskeyAdded, PasskeyRemoved                   string
	PasskeysUnsupported, PasskeyCancelled          string
	SignInsHeading, NoSignIns, IP, Browser         string
	EnvelopesHeading, NoEnvelopes                  string
	Title, Sender, Status, Open                    string
	Statuses                                       map[envelope.Status]string
	Working                                        string
	ErrorHeading, ErrorHelp                        string
	CrossSiteHeading, CrossSiteHelp                string
	NotFoundHeading, NotFoundHelp                  string
	TooManyAttempts                                string // %d: seconds
}

var accountTexts = map[envelope.Language]AccountText{
	envelope.LanguageEnglish: {
		Lang:    "en",
		Account: "Your account", SkipToContent: "Skip to content",
		SignUpHeading: "Create your account",
		SignUpHelp:    "A Sobre account lets you prove who you are when a document you are asked to sign requires it. Use the email address the documents are sent to.",
		Email:         "Email address", Password: "Password", Password2: "Password again",
		PasswordRule:  "At least 10 characters, not your email address, and not a common password.",
		CreateAccount: "Create account", HaveAccount: "Already have an account?", SignInLink: "Sign in",
		PasswordsDiffer: "The two passwords are not the same.", EmailMissing: "Enter your email address.",
		PasswordMissing: "Enter your password.", EmailInvalid: "Enter a valid email address.",
		CheckEmailHeading: "Check your email",
		CheckEmailHelp:    "We sent a link to %s. Open it within 24 hours and type your password there to verify your address and sign in. If the address already has an account, the email says so instead.",
		SignInHeading:     "Sign in", SignInHelp: "Sign in to the account of the email address the document was sent to.",
		SignIn:    "Sign in",
		NoAccount: "No account yet?", SignUpLink: "Create account", ForgotPassword: "Forgot your password?",
		WrongPassword:       "Wrong email address or password.",
		WrongCode:           "That code is not right.",
		Unverified:          "This account's email address is not verified yet: open the link we emailed you.",
		SendLinkAgain:       "Send the link again",
		Locked:              "Too many wrong attempts: this account is locked for %d minutes.",
		Verified:            "Your email address is verified, and you are signed in.",
		PasswordChanged:     "Your password was changed. Sign in with the new one.",
		VerifyFailedHeading: "This link does not work", VerifyFailedHelp: "The verification link was used already, has expired or is not valid. Sign in, or create the account again to get a new link.",
		VerifyHeading:       "Confirm your email address",
		VerifyHelp:          "To confirm that this address is yours, type the password you chose when you created the account. You will then be signed in.",
		VerifySubmit:        "Confirm and sign in",
		VerifyWrongPassword: "That is not the password chosen for this account.",
		VerifyNotYou:        "Did you not create this account, or do you not remember its password? Create it again: your new password replaces the earlier one, and this link stops working.",
		FactorHeading:       "Confirm it is you",
		FactorHelp:          "To add or remove an authenticator app or a passkey, first confirm it is you with a code from your authenticator app (or a recovery code) or with a passkey. The confirmation lasts 5 minutes.",
		FactorConfirm:       "Confirm", FactorPasskey: "Confirm with a passkey",
		FactorRequired:         "First confirm it is you with a code from your authenticator app or with a passkey, in “Confirm it is you”.",
		FactorProved:           "Confirmed: until %s you may add or remove an authenticator app or a passkey.",
		FactorConfirmedDone:    "Confirmed. For 5 minutes you may add or remove an authenticator app or a passkey.",
		FactorPasskeyCancelled: "The passkey did not answer (cancelled or not allowed).",
		ResetHeading:           "Reset your password", ResetHelp: "Enter your account's email address and we will email you a link to choose a new password.",
		SendResetLink:    "Send reset link",
		ResetSentHeading: "Check your email", ResetSentHelp: "If there is an account for that address, we sent it a link to choose a new password. The link works once, within one hour.",
		NewPasswordHeading: "Choose a new password", NewPasswordHelp: "Every browser signed in to your account will be signed out.",
		SetPassword: "Set new password", ResetFailedHeading: "This link does not work",
		ResetFailed: "The reset link was used already, has expired or is not valid.", AskNewLink: "Ask for a new link",
		AccountHeading: "Your account", SignedInAs: "Signed in as", SignOut: "Sign out",
		BackToSigning:        "Back to the document",
		AuthenticatorHeading: "Authenticator app",
		AuthenticatorHelp:    "An authenticator app (such as Google Authenticator, Microsoft Authenticator or 1Password) gives six-digit codes that some documents ask for when you sign.",
		AuthenticatorOn:      "On", AuthenticatorOff: "Not set up",
		RecoveryLeft:       "%d recovery codes left.",
		SetUpAuthenticator: "Set up an authenticator app", DisableAuthenticator: "Turn off",
		DisableHelp:      "To turn the app off, type a current code from it or one of your recovery codes.",
		CodeOrRecovery:   "Code or recovery code",
		TOTPSetupHeading: "Set up your authenticator app",
		TOTPScan:         "Scan this QR code with your authenticator app.",
		TOTPQRAlt:        "QR code for your authenticator app",
		TOTPType:         "Or type this key in the app:",
		TOTPConfirmHelp:  "Then type the six-digit code the app shows, to check it works.",
		TOTPCode:         "Six-digit code", TurnOn: "Turn on",
		TOTPWrongHelp:   "Type the code your app shows now for Sobre. If you did not add the key to your app, start again.",
		StartAgain:      "Start again",
		RecoveryHeading: "Your recovery codes",
		RecoveryHelp:    "Keep these codes somewhere safe (print them or save them in a password manager). Each works once, in place of a code from the app, if you lose your phone. They are not shown again.",
		Done:            "Done", AuthenticatorOffDone: "The authenticator app was turned off.",
		PasskeysHeading: "Passkeys",
		PasskeysHelp:    "A passkey lets you prove it is you with your fingerprint, face, screen lock or a security key.",
		NoPasskeys:      "No passkeys yet.",
		PasskeyName:     "Name of the new passkey", PasskeyNameDefault: "My passkey", AddPasskey: "Add a passkey",
		Created: "Created", LastUsed: "Last used", Never: "never", Remove: "Remove", Name: "Name",
		PasskeyAdded: "The passkey was added.", PasskeyRemoved: "The passkey was removed.",
		PasskeysUnsupported: "This browser does not support passkeys.",
		PasskeyCancelled:    "The passkey was not created (cancelled or not allowed).",
		SignInsHeading:      "Recent sign-ins", NoSignIns: "No sign-ins yet.", IP: "IP address", Browser: "Browser",
		EnvelopesHeading: "Documents you were asked to sign", NoEnvelopes: "No documents yet.",
		Title: "Title", Sender: "Sender", Status: "Status", Open: "Open",
		Statuses: map[envelope.Status]string{
			envelope.StatusPending: "Pending", envelope.StatusCompleted: "Completed",
			envelope.StatusRejected: "Rejected", envelope.StatusCancelled: "Cancelled", envelope.StatusDraft: "Draft",
		},
		Working:      "Working…",
		ErrorHeading: "Something went wrong", ErrorHelp: "Please try again in a moment.",
		CrossSiteHeading: "Request refused", CrossSiteHelp: "This form was sent from another site, so it was refused. Open Sobre's page yourself and try again.",
		NotFoundHeading: "Page not found", NotFoundHelp: "This page does not exist.",
		TooManyAttempts: "Too many attempts: wait %d seconds and try again.",
	},
	envelope.LanguageSpanish: {
		Lang:    "es",
		Account: "Su cuenta", SkipToContent: "Ir al contenido",
		SignUpHeading: "Cree su cuenta",
		SignUpHelp:    "Una cuenta de Sobre le permite demostrar quién es cuando un documento que le piden firmar lo exige. Use la dirección de correo a la que le envían los documentos.",
		Email:         "Correo electrónico", Password: "Contraseña", Password2: "Repita la contraseña",
		PasswordRule:  "Al menos 10 caracteres, distinta de su correo y que no sea una contraseña común.",
		CreateAccount: "Crear cuenta", HaveAccount: "¿Ya tiene una cuenta?", SignInLink: "Inicie sesión",
		PasswordsDiffer: "Las dos contraseñas no son iguales.", EmailMissing: "Ingrese su correo electrónico.",
		PasswordMissing: "Ingrese su contraseña.", EmailInvalid: "Ingrese un correo electrónico válido.",
		CheckEmailHeading: "Revise su correo",
		CheckEmailHelp:    "Enviamos un enlace a %s. Ábralo dentro de 24 horas y escriba ahí su contraseña para verificar su dirección e iniciar sesión. Si la dirección ya tiene una cuenta, el correo se lo indica.",
		SignInHeading:     "Iniciar sesión", SignInHelp: "Inicie sesión en la cuenta del correo al que se envió el documento.",
		SignIn:    "Iniciar sesión",
		NoAccount: "¿Aún no tiene cuenta?", SignUpLink: "Crear cuenta", ForgotPassword: "¿Olvidó su contraseña?",
		WrongPassword:       "Correo o contraseña incorrectos.",
		WrongCode:           "Ese código no es correcto.",
		Unverified:          "El correo de esta cuenta aún no está verificado: abra el enlace que le enviamos.",
		SendLinkAgain:       "Enviar el enlace de nuevo",
		Locked:              "Demasiados intentos fallidos: esta cuenta está bloqueada por %d minutos.",
		Verified:            "Su correo está verificado y su sesión está iniciada.",
		PasswordChanged:     "Su contraseña cambió. Inicie sesión con la nueva.",
		VerifyFailedHeading: "Este enlace no funciona", VerifyFailedHelp: "El enlace de verificación ya se usó, venció o no es válido. Inicie sesión, o cree la cuenta de nuevo para recibir otro enlace.",
		VerifyHeading:       "Confirme su correo",
		VerifyHelp:          "Para confirmar que esta dirección es suya, escriba la contraseña que eligió al crear la cuenta. Luego quedará con la sesión iniciada.",
		VerifySubmit:        "Confirmar e iniciar sesión",
		VerifyWrongPassword: "Esa no es la contraseña elegida para esta cuenta.",
		VerifyNotYou:        "¿No creó usted esta cuenta, o no recuerda su contraseña? Créela de nuevo: su nueva contraseña reemplaza a la anterior y este enlace deja de funcionar.",
		FactorHeading:       "Confirme que es usted",
		FactorHelp:          "Para agregar o quitar una app de autenticación o una llave de acceso, confirme primero que es usted con un código de su app de autenticación (o un código de recuperación) o con una llave de acceso. La confirmación dura 5 minutos.",
		FactorConfirm:       "Confirmar", FactorPasskey: "Confirmar con una llave de acceso",
		FactorRequired:         "Primero confirme que es usted con un código de su app de autenticación o con una llave de acceso, en «Confirme que es usted».",
		FactorProved:           "Confirmado: hasta las %s puede agregar o quitar una app de autenticación o una llave de acceso.",
		FactorConfirmedDone:    "Confirmado. Durante 5 minutos puede agregar o quitar una app de autenticación o una llave de acceso.",
		FactorPasskeyCancelled: "La llave de acceso no respondió (se canceló o no se permitió).",
		ResetHeading:           "Restablecer la contraseña", ResetHelp: "Ingrese el correo de su cuenta y le enviaremos un enlace para elegir una contraseña nueva.",
		SendResetLink:    "Enviar enlace",
		ResetSentHeading: "Revise su correo", ResetSentHelp: "Si hay una cuenta con esa dirección, le enviamos un enlace para elegir una contraseña nueva. El enlace funciona una vez, durante una hora.",
		NewPasswordHeading: "Elija una contraseña nueva", NewPasswordHelp: "Se cerrará la sesión en todos los navegadores conectados a su cuenta.",
		SetPassword: "Guardar contraseña", ResetFailedHeading: "Este enlace no funciona",
		ResetFailed: "El enlace para restablecer ya se usó, venció o no es válido.", AskNewLink: "Pedir un enlace nuevo",
		AccountHeading: "Su cuenta", SignedInAs: "Sesión iniciada como", SignOut: "Cerrar sesión",
		BackToSigning:        "Volver al documento",
		AuthenticatorHeading: "App de autenticación",
		AuthenticatorHelp:    "Una app de autenticación (como Google Authenticator, Microsoft Authenticator o 1Password) entrega códigos de seis dígitos que algunos documentos piden al firmar.",
		AuthenticatorOn:      "Activada", AuthenticatorOff: "Sin configurar",
		RecoveryLeft:       "Le quedan %d códigos de recuperación.",
		SetUpAuthenticator: "Configurar una app de autenticación", DisableAuthenticator: "Desactivar",
		DisableHelp:      "Para desactivar la app, escriba un código actual de ella o uno de sus códigos de recuperación.",
		CodeOrRecovery:   "Código o código de recuperación",
		TOTPSetupHeading: "Configure su app de autenticación",
		TOTPScan:         "Escanee este código QR con su app de autenticación.",
		TOTPQRAlt:        "Código QR para su app de autenticación",
		TOTPType:         "O escriba esta clave en la app:",
		TOTPConfirmHelp:  "Luego escriba el código de seis dígitos que muestra la app, para comprobar que funciona.",
		TOTPCode:         "Código de seis dígitos", TurnOn: "Activar",
		TOTPWrongHelp:   "Escriba el código que su app muestra ahora para Sobre. Si no agregó la clave a su app, comience de nuevo.",
		StartAgain:      "Comenzar de nuevo",
		RecoveryHeading: "Sus códigos de recuperación",
		RecoveryHelp:    "Guarde estos códigos en un lugar seguro (imprímalos o guárdelos en un gestor de contraseñas). Cada uno sirve una vez, en lugar de un código de la app, si pierde su teléfono. No se vuelven a mostrar.",
		Done:            "Listo", AuthenticatorOffDone: "La app de autenticación fue desactivada.",
		PasskeysHeading: "Llaves de acceso",
		PasskeysHelp:    "Una llave de acceso (passkey) le permite demostrar que es usted con su huella, su rostro, el bloqueo de pantalla o una llave de seguridad.",
		NoPasskeys:      "Aún no tiene llaves de acceso.",
		PasskeyName:     "Nombre de la nueva llave", PasskeyNameDefault: "Mi llave de acceso", AddPasskey: "Agregar una llave de acceso",
		Created: "Creada", LastUsed: "Último uso", Never: "nunca", Remove: "Eliminar", Name: "Nombre",
		PasskeyAdded: "La llave de acceso fue agregada.", PasskeyRemoved: "La llave de acceso fue eliminada.",
		PasskeysUnsupported: "Este navegador no admite llaves de acceso.",
		PasskeyCancelled:    "No se creó la llave de acceso (se canceló o no se permitió).",
		SignInsHeading:      "Inicios de sesión recientes", NoSignIns: "Aún no hay inicios de sesión.", IP: "Dirección IP", Browser: "Navegador",
		EnvelopesHeading: "Documentos que le pidieron firmar", NoEnvelopes: "Aún no hay documentos.",
		Title: "Título", Sender: "Remitente", Status: "Estado", Open: "Abrir",
		Statuses: map[envelope.Status]string{
			envelope.StatusPending: "Pendiente", envelope.StatusCompleted: "Completado",
			envelope.StatusRejected: "Rechazado", envelope.StatusCancelled: "Cancelado", envelope.StatusDraft: "Borrador",
		},
		Working:      "Procesando…",
		ErrorHeading: "Algo salió mal", ErrorHelp: "Inténtelo de nuevo en un momento.",
		CrossSiteHeading: "Solicitud rechazada", CrossSiteHelp: "Este formulario se envió desde otro sitio, así que fue rechazado. Abra usted mismo la página de Sobre e inténtelo de nuevo.",
		NotFoundHeading: "Página no encontrada", NotFoundHelp: "Esta página no existe.",
		TooManyAttempts: "Demasiados intentos: espere %d segundos e inténtelo de nuevo.",
	},
}

// accountTextFor returns the account pages' strings in lang, English when Sobre does not speak it.
func accountTextFor(lang envelope.Language) AccountText {
	if t, ok := accountTexts[lang]; ok {
		return t
	}
	return accountTexts[envelope.LanguageEnglish]
}
