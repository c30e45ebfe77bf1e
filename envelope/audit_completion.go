package envelope

import "time"

// Completion is how a recipient completed, as DOCUMENT_RECIPIENT_COMPLETED records it.
type Completion struct {
	// ActionAuth lists the action methods in force for the recipient ([] for none).
	ActionAuth []string
	// Identity is what the completing session proved.
	Identity ProvenIdentity
	// Documents are the documents the recipient was shown, by content hash.
	Documents []ShownDocument
	// Prefilled are the fields an assistant filled for the recipients after it, still as it
	// filled them when it completed.
	Prefilled []PrefilledField
}

// ShownDocument is one document a recipient completed on: its item and the SHA-256 (hex) of the
// PDF shown.
type ShownDocument struct {
	EnvelopeItemID string `json:"envelopeItemId"`
	SHA256         string `json:"sha256"`
}

// ProvenIdentity is what a recipient proved when completing: the RUN and name verified by Clave
// Única, the advanced-signature certificate of a FAO_HASH signature, and the signer account
// the browser was signed in to with the account proofs it gave. Empty members were not proved.
type ProvenIdentity struct {
	ClaveUnicaRUN  string
	ClaveUnicaName string
	ClaveUnicaAt   *time.Time

	FEARUT        string
	FEASubject    string
	FEAIssuer     string
	FEASerial     string
	FEADigest     string
	FEARevocation string
	FEAAt         *time.Time

	AccountID           int64
	AccountEmail        string
	PasswordAt          *time.Time
	TOTPAt              *time.Time
	PasskeyAt           *time.Time
	PasskeyCredentialID string
}

// auditData is what DOCUMENT_RECIPIENT_COMPLETED records besides R: actionAuth, identity
// {claveUnica, certificate}, proofs and an assistant's prefilled when there are any, and
// documents.
func (c Completion) auditData() map[string]any {
	out := map[string]any{"actionAuth": c.ActionAuth, "documents": c.Documents}
	id := c.Identity
	identity := map[string]any{}
	if id.ClaveUnicaRUN != "" {
		identity["claveUnica"] = map[string]any{"run": id.ClaveUnicaRUN, "name": id.ClaveUnicaName, "verifiedAt": id.ClaveUnicaAt}
	}
	if id.FEARUT != "" {
		identity["certificate"] = map[string]any{"rut": id.FEARUT, "subject": id.FEASubject, "issuer": id.FEAIssuer,
			"serialNumber": id.FEASerial, "digest": id.FEADigest, "verifiedAt": id.FEAAt, "revocation": id.FEARevocation}
	}
	if len(identity) > 0 {
		out["identity"] = identity
	}
	if proofs := id.proofs(); len(proofs) > 0 {
		out["proofs"] = proofs
	}
	if len(c.Prefilled) > 0 {
		out["prefilled"] = c.Prefilled
	}
	return out
}

// proofs lists each method a completion rested on, as DOCUMENT_RECIPIENT_COMPLETED records it
// (under "proofs") and the certificate of completion shows it: ACCOUNT (the account signed in),
// PASSWORD, TWO_FACTOR_AUTH and PASSKEY (with the account, and the passkey's credential id),
// CLAVE_UNICA (the RUN) and FAO_HASH (the certificate's RUT), each with its time.
func (id ProvenIdentity) proofs() []map[string]any {
	var out []map[string]any
	account := func(method ActionAuth, at *time.Time) map[string]any {
		return map[string]any{"method": string(method), "accountId": id.AccountID, "accountEmail": id.AccountEmail, "at": at}
	}
	if id.AccountID != 0 {
		out = append(out, account(ActionAuthAccount, nil))
		if id.PasswordAt != nil {
			out = append(out, account(ActionAuthPassword, id.PasswordAt))
		}
		if id.TOTPAt != nil {
			out = append(out, account(ActionAuthTwoFactorAuth, id.TOTPAt))
		}
		if id.PasskeyAt != nil {
			p := account(ActionAuthPasskey, id.PasskeyAt)
			p["credentialId"] = id.PasskeyCredentialID
			out = append(out, p)
		}
	}
	if id.ClaveUnicaRUN != "" {
		out = append(out, map[string]any{"method": string(ActionAuthClaveUnica), "run": id.ClaveUnicaRUN, "at": id.ClaveUnicaAt})
	}
	if id.FEARUT != "" {
		out = append(out, map[string]any{"method": string(ActionAuthFAOHash), "rut": id.FEARUT, "serialNumber": id.FEASerial, "at": id.FEAAt})
	}
	return out
}
