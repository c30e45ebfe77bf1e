// Direct links: a template's public link, where anyone who has it fills in their name and email
// and signs a document made from the template as its direct recipient.

package envelope

import (
	"slices"
	"strings"
	"time"
)

// DirectLink is a template's direct link: its public token, whether it takes visitors now, and
// the template recipient a visitor becomes. Placeholder says that recipient was made for the
// link (no directRecipientId was given), so deleting the link removes it.
type DirectLink struct {
	ID          string
	EnvelopeID  string
	Token       string
	Enabled     bool
	RecipientID int64
	Placeholder bool
	CreatedAt   time.Time
}

// The placeholder recipient a direct link without a directRecipientId makes, as Documenso names
// it: a visitor always replaces its name and email, and nobody is ever mailed at this address.
const (
	DirectRecipientEmail = "direct.link@documenso.com"
	DirectRecipientName  = "Direct link recipient"
)

// MayChangeDirectLink decides whether member m may create, toggle or delete the direct link of
// envelope e: e must be a TEMPLATE (a DOCUMENT has no direct link: INVALID_REQUEST) that m may
// manage (MayManage) and that may still change (RequireEditable).
func MayChangeDirectLink(m Member, e *Envelope) error {
	if err := MayManage(m, e.Owned()); err != nil {
		return err
	}
	if e.Type != TypeTemplate {
		return Errorf(CodeInvalidRequest, "Envelope %s is a %s; only a TEMPLATE has a direct link", e.ID, e.Type)
	}
	return RequireEditable(e.Status)
}

// CheckDirectLinkCreate decides whether template e may get a direct link: it has none yet
// (ALREADY_EXISTS); with a directRecipientID, that recipient is e's (NOT_FOUND) and may be a
// direct recipient (CheckDirectRecipient); without one, no recipient of e already has the
// placeholder's email (INVALID_BODY naming directRecipientId), since the placeholder is made.
func CheckDirectLinkCreate(e *Envelope, hasLink bool, directRecipientID *int64) error {
	if hasLink {
		return Errorf(CodeAlreadyExists, "Template %s already has a direct link; delete it first", e.ID)
	}
	if directRecipientID == nil {
		for _, r := range e.Recipients {
			if strings.EqualFold(r.Email, DirectRecipientEmail) {
				return Invalid("directRecipientId", "is required: recipient %d already has the placeholder address %s; name it as the direct recipient", r.ID, DirectRecipientEmail)
			}
		}
		return CheckDirectAuth(e, nil)
	}
	r := e.Recipient(*directRecipientID)
	if r == nil {
		return NotFound("Recipient")
	}
	return CheckDirectRecipient(e, *r, "directRecipientId")
}

// CheckDirectRecipient decides whether recipient r of template e may be its direct recipient,
// the one a visitor of the public page becomes (path names it in the refusal):
//
//   - not a CC: a CC signs nothing (INVALID_BODY);
//   - a SIGNER has a signature field (MISSING_SIGNATURE_FIELD), since the visitor signs it;
//   - no RUT_FIRMADO field: only Clave Única fills one, and the page takes no login
//     (INVALID_BODY);
//   - no authentication the public page cannot prove (CheckDirectAuth).
func CheckDirectRecipient(e *Envelope, r Recipient, path string) error {
	if r.Role == RoleCC {
		return Invalid(path, "recipient %d is a CC; a direct recipient must sign, approve or view", r.ID)
	}
	if r.Role == RoleSigner && !hasSignatureField(r.ID, e.Fields) {
		return &Error{Code: CodeMissingSignatureField, Message: "The direct recipient is a SIGNER without a signature field; add one first",
			Issues: []Issue{{Path: path, Message: "recipient has no SIGNATURE or FREE_SIGNATURE field"}}}
	}
	for _, f := range e.Fields {
		if f.RecipientID == r.ID && f.Type == FieldRUTFirmado {
			return Invalid(path, "recipient %d has a RUT_FIRMADO field, which only a Clave Única login fills; a direct link takes none", r.ID)
		}
	}
	return CheckDirectAuth(e, &r)
}

// CheckDirectAuth decides whether the public page can prove what template e and its direct
// recipient r (nil: a placeholder, which has none) ask: it proves nothing but a name and an
// email typed in, so any access authentication and any action authentication but EXPLICIT_NONE,
// of the template or of the recipient, is refused with INVALID_BODY naming the list. (Documenso
// takes ACCOUNT access on a direct template; Sobre takes no authentication there.)
func CheckDirectAuth(e *Envelope, r *Recipient) error {
	if len(e.AuthOptions.GlobalAccessAuth) > 0 {
		return Invalid("authOptions.globalAccessAuth", "must be empty on a template with a direct link: its public page proves no account or code")
	}
	if provesSomething(e.AuthOptions.GlobalActionAuth) {
		return Invalid("authOptions.globalActionAuth", "must be empty or EXPLICIT_NONE on a template with a direct link: its public page proves nothing but a typed name and email")
	}
	if r == nil {
		return nil
	}
	if len(r.AuthOptions.AccessAuth) > 0 {
		return Invalid("recipients.authOptions.accessAuth", "must be empty for the direct recipient (%d): its public page proves no account or code", r.ID)
	}
	if provesSomething(r.AuthOptions.ActionAuth) {
		return Invalid("recipients.authOptions.actionAuth", "must be empty or EXPLICIT_NONE for the direct recipient (%d): its public page proves nothing but a typed name and email", r.ID)
	}
	if r.ExpectedRUT != nil {
		return Invalid("recipients.expectedRut", "must be empty for the direct recipient (%d): its public page proves no RUN", r.ID)
	}
	return nil
}

// provesSomething reports whether an action auth list asks for a proof.
func provesSomething(list []ActionAuth) bool {
	return slices.ContainsFunc(list, func(a ActionAuth) bool { return a != ActionAuthExplicitNone })
}

// CheckDirectUse decides whether a visitor may use template e's direct link now: the link takes
// visitors (disabled: SIGNING_LINK_ENDED, 410), its recipient is still e's and still may be a
// direct recipient (CheckDirectRecipient; a change of the template after the link was made can
// break it), and every other SIGNER has a signature field (MISSING_SIGNATURE_FIELD), as
// Documenso checks before creating anything.
func CheckDirectUse(e *Envelope, l DirectLink) error {
	if !l.Enabled {
		return Errorf(CodeLinkEnded, "This direct link is disabled")
	}
	r := e.Recipient(l.RecipientID)
	if r == nil {
		return Errorf(CodeInvalidRequest, "The template of this direct link has no direct recipient")
	}
	if err := CheckDirectRecipient(e, *r, "directTemplateRecipientId"); err != nil {
		return err
	}
	for _, o := range e.Recipients {
		if o.Role == RoleSigner && !hasSignatureField(o.ID, e.Fields) {
			return &Error{Code: CodeMissingSignatureField, Message: "One or more signers on this template are missing a signature field"}
		}
	}
	return nil
}

// DirectVisitor is who a visitor of a direct link says they are: the name and email typed on
// the page, which replace the direct recipient's in the document made for them.
type DirectVisitor struct {
	Name  string
	Email string
}

// CheckDirectVisitor collects into p the problems of what a visitor typed: an email address
// (required) and a name (required, at most MaxRecipientName).
func CheckDirectVisitor(p *Problems, v DirectVisitor) {
	if !ValidEmail(v.Email) {
		p.Add("email", "must be an email address, got %q", v.Email)
	}
	CheckLength(p, "name", v.Name, 1, MaxRecipientName)
}

// DirectCreatedAudit is the DOCUMENT_CREATED entry of a document made through a direct link:
// its source {type: TEMPLATE_DIRECT_LINK, templateId, directRecipientEmail}, as Documenso logs it.
func DirectCreatedAudit(title string, templateID int64, visitorEmail string) Audit {
	return Audit{AuditDocumentCreated, map[string]any{"title": title, "source": map[string]any{
		"type": SourceTemplateDirectLink, "templateId": templateID, "directRecipientEmail": visitorEmail}}}
}

// MailOwnerDirectCreated tells the owner that a visitor signed a document made through their
// template's direct link (ownerDocumentCreated).
const MailOwnerDirectCreated = Mail("owner_document_created")

// DirectCreatedNotices is the plan when a document made through a direct link is sent: the owner
// is told who signed it (About: the visitor's recipient), when ownerDocumentCreated is on.
func DirectCreatedNotices(m Meta, visitorID int64) []Notice {
	if visitorID == 0 || !m.EmailSettings.OwnerDocumentCreated {
		return nil
	}
	return []Notice{{Mail: MailOwnerDirectCreated, About: visitorID}}
}

// CheckDirectLinkKept decides whether template e, as a change leaves it, still suits its direct
// link (none: nothing to check): no authentication the page cannot prove (CheckDirectAuth) and a
// direct recipient that is not a CC (INVALID_BODY naming directTemplateRecipientId). A change
// that breaks the link is refused: delete the link first. Fields are not checked: a template is
// built a field at a time, and until the direct recipient may sign the page says the link is not
// ready (CheckDirectUse).
func CheckDirectLinkKept(e *Envelope) error {
	if e.DirectLink == nil {
		return nil
	}
	r := e.Recipient(e.DirectLink.RecipientID)
	if r == nil {
		return nil // removed with its recipient
	}
	if r.Role == RoleCC {
		return Invalid("directTemplateRecipientId", "recipient %d is the template's direct recipient and may not become a CC; delete the direct link first", r.ID)
	}
	return CheckDirectAuth(e, r)
}
