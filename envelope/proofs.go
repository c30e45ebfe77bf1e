package envelope

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Proofs are what a recipient must prove before acting, worked out by RequiredProofs.
type Proofs struct {
	AccessCode bool // TWO_FACTOR_AUTH access: a mailed code before the document is shown
	ClaveUnica bool // CLAVE_UNICA action auth, or a RUT_FIRMADO field to fill
	FAOHash    bool // FAO_HASH action auth: an advanced electronic signature over the digest
	// ExpectedRUT is the RUN every identity proof must name (Recipient.ExpectedRUT); "" for any.
	ExpectedRUT string
	// Unavailable lists methods asked for that Sobre cannot take (they need signer accounts):
	// the recipient cannot act.
	Unavailable []string
}

// RequiredProofs is what recipient rec must prove on an envelope with global auth options
// global and fields fields. The recipient's own access and action lists apply, else the
// envelope's (an empty list falls back, as in Documenso). EXPLICIT_NONE among the action methods
// waives every action proof. A RUT_FIRMADO field of the recipient asks for Clave Única, which
// fills it.
func RequiredProofs(rec Recipient, global AuthOptions, fields []Field) Proofs {
	access, action := rec.AuthOptions.AccessAuth, rec.AuthOptions.ActionAuth
	if len(access) == 0 {
		access = global.GlobalAccessAuth
	}
	if len(action) == 0 {
		action = global.GlobalActionAuth
	}
	var p Proofs
	if rec.ExpectedRUT != nil {
		p.ExpectedRUT = *rec.ExpectedRUT
	}
	for _, a := range access {
		switch a {
		case AccessAuthTwoFactorAuth:
			p.AccessCode = true
		default:
			p.Unavailable = append(p.Unavailable, string(a))
		}
	}
	if !slices.Contains(action, ActionAuthExplicitNone) {
		for _, a := range action {
			switch a {
			case ActionAuthClaveUnica:
				p.ClaveUnica = true
			case ActionAuthFAOHash:
				p.FAOHash = true
			default:
				p.Unavailable = append(p.Unavailable, string(a))
			}
		}
	}
	for _, f := range fields {
		if f.RecipientID == rec.ID && f.Type == FieldRUTFirmado {
			p.ClaveUnica = true
		}
	}
	return p
}

// DefaultProofMaxAge is how old an action proof (a Clave Única login, an advanced electronic
// signature) may be when the recipient completes.
const DefaultProofMaxAge = 15 * time.Minute

// SessionProofs are the proofs one browser's session holds for one recipient: what the
// completion of that recipient is checked against.
type SessionProofs struct {
	RecipientID    int64
	AccessVerified bool
	ClaveUnicaRUN  string
	ClaveUnicaAt   *time.Time
	FEARUT         string
	FEADigest      string
	FEAAt          *time.Time
}

// CheckCompletion is the rule a completion must pass, decided in the transaction that records
// it: the session s belongs to the recipient; every proof p asks for is in it, and each action
// proof was made at most maxAge before now; the advanced signature covers digest (the digest of
// the documents and of the recipient's values as they are in that transaction); and when the
// session holds both a Clave Única RUN and a certificate RUT, they are the same person. CC
// recipients need no action proof. A recipient who needs no proof at all may complete without
// a session (s nil): the signing link is then the only proof, as in Documenso.
func CheckCompletion(p Proofs, role Role, recipientID int64, s *SessionProofs, digest string, now time.Time, maxAge time.Duration) error {
	if len(p.Unavailable) > 0 {
		return Errorf(CodeAuthUnavailable, "This document asks for %s verification, which is not available yet; ask the sender to change it", strings.Join(p.Unavailable, ", "))
	}
	if p.ExpectedRUT != "" && role != RoleCC && !p.ClaveUnica && !p.FAOHash {
		// The sender named who must sign, then took away what would prove it (auth changed,
		// RUT_FIRMADO field deleted): nobody can be shown to be that person.
		return Errorf(CodeAuthUnavailable, "This document names who must sign it but asks for no proof of identity (Clave Única or FAO_HASH); ask the sender to add one")
	}
	action := role != RoleCC && (p.ClaveUnica || p.FAOHash)
	if !p.AccessCode && !action {
		return nil
	}
	if s == nil || s.RecipientID != recipientID {
		return Errorf(CodeUnauthorized, "Open the signing link again in this browser and verify your identity before completing")
	}
	if p.AccessCode && !s.AccessVerified {
		return Errorf(CodeUnauthorized, "Enter the code we sent to your email address before completing")
	}
	if !action {
		return nil
	}
	fresh := func(at *time.Time) bool {
		return at != nil && !at.Before(now.Add(-maxAge)) && !at.After(now.Add(time.Minute))
	}
	if p.ClaveUnica {
		if s.ClaveUnicaRUN == "" {
			return Errorf(CodeUnauthorized, "Verify your identity with ClaveÚnica before signing")
		}
		if !fresh(s.ClaveUnicaAt) {
			return Errorf(CodeUnauthorized, "Your ClaveÚnica verification is more than %s old; verify again before signing", minutes(maxAge))
		}
	}
	if p.FAOHash {
		if s.FEARUT == "" {
			return Errorf(CodeUnauthorized, "Give your advanced electronic signature over the document's digest before signing")
		}
		if !fresh(s.FEAAt) {
			return Errorf(CodeUnauthorized, "Your advanced electronic signature is more than %s old; sign the digest again", minutes(maxAge))
		}
		if s.FEADigest != digest {
			return Errorf(CodeUnauthorized, "The document or your fields changed after your advanced electronic signature; sign the new digest")
		}
	}
	for _, run := range []string{s.ClaveUnicaRUN, s.FEARUT} {
		if run != "" && p.ExpectedRUT != "" && run != p.ExpectedRUT {
			return Errorf(CodeRUTMismatch, "The RUN proved in this session is not the one this document is for")
		}
	}
	if s.ClaveUnicaRUN != "" && s.FEARUT != "" && s.ClaveUnicaRUN != s.FEARUT {
		return Errorf(CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by ClaveÚnica (%s)", s.FEARUT, s.ClaveUnicaRUN)
	}
	return nil
}

func minutes(d time.Duration) string { return fmt.Sprintf("%.0f minutes", d.Minutes()) }
