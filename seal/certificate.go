package seal

import (
	"fmt"
	"strings"
	"time"

	"github.com/signintech/gopdf"

	"github.com/sobre-sign/sobre/envelope"
)

type certText struct {
	Title, Envelope, ID, Documents, Uploaded, Shown, Recipients, Role, Sent, Opened, Signed, Rejected, IP, Agent, Auth string
	ClaveUnica, Certificate, Revocation, Signature, Audit, AuditHelp, SealedAt, Page, None, AuthEmail, Rejection       string
	Account, Password, TOTP, Passkey                                                                                   string
	Unstamped                                                                                                          string
	Prefilled                                                                                                          string
}

var certTexts = map[envelope.Language]certText{
	envelope.LanguageEnglish: {Title: "Certificate of completion", Envelope: "Envelope", ID: "Id", Documents: "Documents (SHA-256)",
		Uploaded: "uploaded", Shown: "shown and sealed",
		Recipients: "Recipients", Role: "Role", Sent: "Sent", Opened: "Opened", Signed: "Completed", Rejected: "Rejected", IP: "IP address",
		Agent: "Browser", Auth: "Authentication", ClaveUnica: "ClaveÚnica", Certificate: "Advanced e-signature certificate",
		Revocation: "Revocation", Signature: "Signature", Audit: "Audit trail", AuditHelp: "SHA-256 chain of the audit log when sealed (sobre audit verify recomputes it):",
		SealedAt: "Sealed", Page: "Page", None: "none (signing link)", AuthEmail: "mailed access code",
		Account: "Signed in to the account of", Password: "password typed again", TOTP: "authenticator app code", Passkey: "passkey",
		Unstamped: "Timestamp: none; the timestamp authority was unavailable when sealed",
		Prefilled: "Filled in for"},
	envelope.LanguageSpanish: {Title: "Certificado de finalización", Envelope: "Sobre", ID: "Id", Documents: "Documentos (SHA-256)",
		Uploaded: "subido", Shown: "mostrado y sellado",
		Recipients: "Destinatarios", Role: "Rol", Sent: "Enviado", Opened: "Abierto", Signed: "Completado", Rejected: "Rechazado", IP: "Dirección IP",
		Agent: "Navegador", Auth: "Autenticación", ClaveUnica: "ClaveÚnica", Certificate: "Certificado de firma electrónica avanzada",
		Revocation: "Revocación", Signature: "Firma", Audit: "Registro de auditoría", AuditHelp: "Cadena SHA-256 del registro de auditoría al sellar (sobre audit verify la recalcula):",
		SealedAt: "Sellado", Page: "Página", None: "ninguna (enlace de firma)", AuthEmail: "código enviado por correo",
		Account: "Con sesión iniciada en la cuenta de", Password: "contraseña ingresada de nuevo", TOTP: "código de app autenticadora", Passkey: "llave de acceso",
		Unstamped: "Sello de tiempo: ninguno; la autoridad de sellado de tiempo no estaba disponible al sellar",
		Prefilled: "Completado para"},
}

var roleNames = map[envelope.Language]map[envelope.Role]string{
	envelope.LanguageEnglish: {envelope.RoleSigner: "Signer", envelope.RoleApprover: "Approver", envelope.RoleViewer: "Viewer", envelope.RoleCC: "Copy", envelope.RoleAssistant: "Assistant"},
	envelope.LanguageSpanish: {envelope.RoleSigner: "Firmante", envelope.RoleApprover: "Aprobador", envelope.RoleViewer: "Revisor", envelope.RoleCC: "Copia", envelope.RoleAssistant: "Asistente"},
}

// writer lays out text lines down A4 pages.
type writer struct {
	pdf  *gopdf.GoPdf
	y    float64
	left float64
	w    float64
}

const (
	a4W, a4H = 595.28, 841.89
	margin   = 50.0
)

func (wr *writer) page() {
	wr.pdf.AddPageWithOption(gopdf.PageOption{PageSize: &gopdf.Rect{W: a4W, H: a4H}})
	wr.y = margin
}

func (wr *writer) ensure(h float64) {
	if wr.y+h > a4H-margin {
		wr.page()
	}
}

// line writes text (wrapped) in font at size.
func (wr *writer) line(font string, size float64, text string) error {
	if err := wr.pdf.SetFont(font, "", size); err != nil {
		return err
	}
	lines, err := wr.pdf.SplitText(text, wr.w)
	if err != nil {
		lines = []string{text}
	}
	for _, l := range lines {
		wr.ensure(size * 1.4)
		wr.pdf.SetXY(wr.left, wr.y)
		if err := wr.pdf.Cell(nil, l); err != nil {
			return err
		}
		wr.y += size * 1.4
	}
	return nil
}

func (wr *writer) gap(h float64) { wr.y += h }

// certificatePages appends the certificate of completion.
func certificatePages(pdf *gopdf.GoPdf, in Input) error {
	t, ok := certTexts[in.Language]
	if !ok {
		t = certTexts[envelope.LanguageEnglish]
	}
	roles := roleNames[in.Language]
	if roles == nil {
		roles = roleNames[envelope.LanguageEnglish]
	}
	loc, err := time.LoadLocation(in.Timezone)
	if err != nil {
		loc = time.UTC
	}
	when := func(tm *time.Time) string {
		if tm == nil {
			return "—"
		}
		return tm.In(loc).Format("2006-01-02 15:04:05 MST")
	}
	pdf.SetTextColor(20, 20, 20)
	wr := &writer{pdf: pdf, left: margin, w: a4W - 2*margin}
	wr.page()
	steps := []func() error{
		func() error { return wr.line("bold", 18, t.Title) },
		func() error { wr.gap(6); return wr.line("bold", 12, t.Envelope+": "+in.Title) },
		func() error { return wr.line("regular", 10, t.ID+": "+in.EnvelopeID) },
		func() error { return wr.line("regular", 10, t.SealedAt+": "+when(&in.SealedAt)) },
	}
	if in.UnstampedTSA != "" {
		steps = append(steps, func() error { return wr.line("regular", 10, t.Unstamped+": "+in.UnstampedTSA) })
	}
	steps = append(steps, func() error { wr.gap(8); return wr.line("bold", 12, t.Documents) })
	for _, d := range in.Documents {
		steps = append(steps,
			func() error { return wr.line("regular", 9, d.Title) },
			func() error { return wr.line("regular", 9, "    "+t.Uploaded+": "+d.SHA256) },
			func() error { return wr.line("regular", 9, "    "+t.Shown+": "+sha256Hex(d.PDF)) },
		)
	}
	steps = append(steps, func() error { wr.gap(8); return wr.line("bold", 12, t.Recipients) })
	for _, p := range in.Parties {
		steps = append(steps, func() error { return party(wr, t, roles, p, when) })
	}
	steps = append(steps,
		func() error { wr.gap(8); return wr.line("bold", 12, t.Audit) },
		func() error { return wr.line("regular", 9, t.AuditHelp) },
		func() error { return wr.line("regular", 9, in.AuditHash) },
	)
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("certificate: %w", err)
		}
	}
	return nil
}

func party(wr *writer, t certText, roles map[envelope.Role]string, p Party, when func(*time.Time) string) error {
	wr.ensure(120)
	wr.gap(6)
	name := p.Name
	if name == "" {
		name = p.Email
	}
	lines := []struct {
		font string
		text string
	}{
		{"bold", fmt.Sprintf("%s <%s> · %s", name, p.Email, roles[p.Role])},
		{"regular", fmt.Sprintf("%s: %s   %s: %s", t.Sent, when(p.Sent), t.Opened, when(p.Opened))},
	}
	done := t.Signed + ": " + when(p.Completed)
	if p.Rejected {
		done = t.Rejected + ": " + when(p.Completed)
	}
	lines = append(lines, struct{ font, text string }{"regular", done})
	if p.IP != "" || p.UserAgent != "" {
		lines = append(lines, struct{ font, text string }{"regular", fmt.Sprintf("%s: %s   %s: %s", t.IP, p.IP, t.Agent, p.UserAgent)})
	}
	auth := t.None
	if len(p.Auth) > 0 {
		auth = strings.Join(p.Auth, ", ")
	}
	lines = append(lines, struct{ font, text string }{"regular", t.Auth + ": " + auth})
	if p.ClaveUnica != "" {
		lines = append(lines, struct{ font, text string }{"regular", t.ClaveUnica + ": " + p.ClaveUnica})
	}
	if a := p.Account; a != nil {
		lines = append(lines, struct{ font, text string }{"regular", fmt.Sprintf("%s %s (%d)", t.Account, a.Email, a.ID)})
		for _, proof := range []struct {
			name string
			at   *time.Time
		}{{t.Password, a.PasswordAt}, {t.TOTP, a.TOTPAt}, {t.Passkey, a.PasskeyAt}} {
			if proof.at == nil {
				continue
			}
			text := "    " + proof.name + ": " + when(proof.at)
			if proof.name == t.Passkey && a.PasskeyID != "" {
				text += "  (" + a.PasskeyID + ")"
			}
			lines = append(lines, struct{ font, text string }{"regular", text})
		}
	}
	if p.Certificate != "" {
		lines = append(lines, struct{ font, text string }{"regular", t.Certificate + ": " + p.Certificate})
		if p.Revocation != "" {
			lines = append(lines, struct{ font, text string }{"regular", "    " + t.Revocation + ": " + p.Revocation})
		}
	}
	if p.Signature != "" {
		lines = append(lines, struct{ font, text string }{"italic", t.Signature + ": " + p.Signature})
	}
	for _, f := range p.Prefilled {
		lines = append(lines, struct{ font, text string }{"regular", t.Prefilled + " " + f})
	}
	for _, l := range lines {
		size := 9.0
		if l.font == "bold" {
			size = 10
		}
		if err := wr.line(l.font, size, l.text); err != nil {
			return err
		}
	}
	if len(p.SignaturePNG) > 0 {
		wr.ensure(50)
		if err := drawImage(wr.pdf, p.SignaturePNG, wr.left, wr.y+2, 150, 45); err == nil {
			wr.y += 50
		}
	}
	return nil
}
