package envelope

import "strings"

// CheckDistributable decides whether envelope e may be sent (distributed, or used from a
// template and sent at once), with Documenso's checks, in this order:
//
//   - it is a DOCUMENT: a template is never sent nor signed itself, but used (POST
//     /envelope/use) to make documents (INVALID_REQUEST);
//   - it is not finished (RequireEditable);
//   - it has recipients, and documents (INVALID_REQUEST);
//   - every recipient but a CC with an authentication list of its own or the envelope's (any
//     list, EXPLICIT_NONE too) has an email address, and no recipient has the direct link's
//     placeholder address (DirectRecipientEmail), which stands for a visitor and is never
//     mailed: one INVALID_BODY naming each;
//   - every SIGNER has a signature field (SIGNATURE or FREE_SIGNATURE):
//     MISSING_SIGNATURE_FIELD naming the signers without one by email.
func CheckDistributable(e *Envelope) error {
	if e.Type == TypeTemplate {
		return Errorf(CodeInvalidRequest, "A template is not sent: use it (POST /api/v2/envelope/use) to make a document, and send that")
	}
	if err := RequireEditable(e.Status); err != nil {
		return err
	}
	if len(e.Recipients) == 0 {
		return Errorf(CodeInvalidRequest, "The envelope has no recipients")
	}
	if len(e.Items) == 0 {
		return Errorf(CodeInvalidRequest, "The envelope has no documents; add one with /envelope/item/create-many")
	}
	var p Problems
	for i, r := range e.Recipients {
		if r.Role != RoleCC && hasAuthLists(r.AuthOptions, e.AuthOptions) && !ValidEmail(r.Email) {
			p.Add(Join(Join("recipients", i), "email"), "recipient %d needs an email address for its authentication", r.ID)
		}
		if strings.EqualFold(r.Email, DirectRecipientEmail) {
			p.Add(Join(Join("recipients", i), "email"), "recipient %d still has the direct link's placeholder address %s, which stands for a visitor; give it a real address", r.ID, DirectRecipientEmail)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	var missing []string
	for _, r := range e.Recipients {
		if r.Role == RoleSigner && !hasSignatureField(r.ID, e.Fields) {
			email := r.Email
			if email == "" {
				email = "(no email)"
			}
			missing = append(missing, email)
		}
	}
	if len(missing) > 0 {
		return &Error{Code: CodeMissingSignatureField,
			Message: "Some signers are missing required fields. Signers must have at least one signature field.",
			Issues:  []Issue{{Message: "signers without a signature field: " + strings.Join(missing, ", ")}}}
	}
	return nil
}

// hasAuthLists reports whether any authentication list applies to a recipient with options
// rec on an envelope with options global: its own or the envelope's, whatever they hold.
func hasAuthLists(rec RecipientAuthOptions, global AuthOptions) bool {
	return len(rec.AccessAuth) > 0 || len(rec.ActionAuth) > 0 || len(global.GlobalAccessAuth) > 0 || len(global.GlobalActionAuth) > 0
}

// hasSignatureField reports whether recipient id has a field a signature goes in.
func hasSignatureField(id int64, fields []Field) bool {
	for _, f := range fields {
		if f.RecipientID == id && f.Type.IsSignature() {
			return true
		}
	}
	return false
}
