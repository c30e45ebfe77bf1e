package envelope

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Proofs are what a recipient must prove, worked out by RequiredProofs.
type Proofs struct {
	AccessCode    bool // TWO_FACTOR_AUTH access: a mailed code before the document is shown
	AccessAccount bool // ACCOUNT access: signed in to the account of the recipient's email
	// Action lists the methods any one of which proves the recipient may complete, in the
	// order asked; empty: no action proof.
	Action []ActionAuth
	// RUTFirmado: the recipient has a RUT_FIRMADO field, which only a Clave Única login fills:
	// that login is needed whatever Action says.
	RUTFirmado bool
	// ExpectedRUT is the RUN every identity proof must name (Recipient.ExpectedRUT); "" for any.
	// When set, only an identity proof (CLAVE_UNICA, FAO_HASH) completes.
	ExpectedRUT string
}

// Offers reports whether m is one of the methods that prove the action.
func (p Proofs) Offers(m ActionAuth) bool { return slices.Contains(p.Action, m) }

// ClaveUnica reports whether a Clave Única login is asked for: offered by the action auth, or
// needed by a RUT_FIRMADO field.
func (p Proofs) ClaveUnica() bool { return p.RUTFirmado || p.Offers(ActionAuthClaveUnica) }

// FAOHash reports whether an advanced electronic signature over the digest is offered.
func (p Proofs) FAOHash() bool { return p.Offers(ActionAuthFAOHash) }

// Identity reports whether some proof of a RUN is asked for or offered.
func (p Proofs) Identity() bool { return p.ClaveUnica() || p.FAOHash() }

// AccountMethods are the action methods that rest on a signer account.
var AccountMethods = []ActionAuth{ActionAuthAccount, ActionAuthPassword, ActionAuthTwoFactorAuth, ActionAuthPasskey}

// NeedsAccount reports whether the recipient must be signed in to their account for anything:
// ACCOUNT access, or an account method among the action methods.
func (p Proofs) NeedsAccount() bool {
	if p.AccessAccount {
		return true
	}
	for _, m := range AccountMethods {
		if p.Offers(m) {
			return true
		}
	}
	return false
}

// RequiredProofs is what recipient rec must prove on an envelope with global auth options
// global and fields fields. The recipient's own access and action lists apply, else the
// envelope's (an empty list falls back, as in Documenso). Every access method must be passed;
// any one action method proves the action. EXPLICIT_NONE among the action methods waives every
// action proof. A RUT_FIRMADO field of the recipient asks for Clave Única, which fills it.
func RequiredProofs(rec Recipient, global AuthOptions, fields []Field) Proofs {
	in := RecipientAuth(rec.AuthOptions, global)
	var p Proofs
	if rec.ExpectedRUT != nil {
		p.ExpectedRUT = *rec.ExpectedRUT
	}
	for _, a := range in.Access {
		switch a {
		case AccessAuthTwoFactorAuth:
			p.AccessCode = true
		case AccessAuthAccount:
			p.AccessAccount = true
		}
	}
	for _, a := range in.Action {
		if a != ActionAuthExplicitNone && !slices.Contains(p.Action, a) {
			p.Action = append(p.Action, a)
		}
	}
	for _, f := range fields {
		if f.RecipientID == rec.ID && f.Type == FieldRUTFirmado {
			p.RUTFirmado = true
		}
	}
	return p
}

// DefaultProofMaxAge is how old an identity proof (a Clave Única login, an advanced electronic
// signature) may be when the recipient completes.
const DefaultProofMaxAge = 15 * time.Minute

// AccountProofMaxAge is how old a password typed again, an authenticator code or a passkey
// assertion may be when the recipient completes.
const AccountProofMaxAge = 5 * time.Minute

// Fresh reports whether a proof made at at still counts at now when proofs may be maxAge old:
// made at most maxAge before now, and not more than a minute after it (clocks apart). Nil: no
// proof.
func Fresh(at *time.Time, now time.Time, maxAge time.Duration) bool {
	return at != nil && !at.Before(now.Add(-maxAge)) && !at.After(now.Add(time.Minute))
}

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
	// Account is the account the browser is signed in to now (its session live), if any; its
	// password, authenticator code and passkey assertion typed for this recipient are below.
	Account             *SignedIn
	PasswordAt          *time.Time
	TOTPAt              *time.Time
	PasskeyAt           *time.Time
	PasskeyCredentialID string // the passkey of PasskeyAt (base64url)
}

// SignedIn is the signer account a browser is signed in to.
type SignedIn struct {
	ID            int64
	Email         string
	EmailVerified bool
}

// CheckAccount is the rule of ACCOUNT: nil when account (nil: not signed in) proves that its
// holder owns email (its email verified, and the same address without regard to case).
func CheckAccount(account *SignedIn, email string) error {
	switch {
	case account == nil:
		return Errorf(CodeAccountRequired, "Sign in to the Sobre account of %s (or create it) to continue", email)
	case !account.EmailVerified:
		return Errorf(CodeEmailUnverified, "Verify your account's email address with the link we sent before continuing")
	case email == "" || !SameEmail(account.Email, email):
		return Errorf(CodeAccountMismatch, "This browser is signed in to the account of %s; this document is for %s. Sign out and sign in to that account", account.Email, email)
	}
	return nil
}

// CheckAccess is the rule of access auth: every method p asks for is passed by s (nil: the
// caller has no session with the recipient) for a recipient whose email is email.
func CheckAccess(p Proofs, s *SessionProofs, email string) error {
	if p.AccessCode && (s == nil || !s.AccessVerified) {
		return Errorf(CodeUnauthorized, "Enter the code we sent to your email address to open this document")
	}
	if p.AccessAccount {
		var account *SignedIn
		if s != nil {
			account = s.Account
		}
		if err := CheckAccount(account, email); err != nil {
			return err
		}
	}
	return nil
}

// CheckCompletion is the rule a completion must pass, decided in the transaction that records
// it, for recipient recipientID with email email and role role:
//
//   - the session s belongs to the recipient, and every access method p asks for is passed
//     (CheckAccess);
//   - a recipient with a RUT_FIRMADO field has a Clave Única login in the session;
//   - unless the recipient is a CC, one of the action methods is proved in the session: ACCOUNT
//     by being signed in to the account of email; PASSWORD, TWO_FACTOR_AUTH and PASSKEY by that
//     and by a password, authenticator code or passkey assertion of that account at most
//     AccountProofMaxAge old; CLAVE_UNICA by a login, FAO_HASH by an advanced signature over
//     digest (the digest of the documents and of the recipient's values as they are in that
//     transaction), each at most maxAge old. With an expected RUN only CLAVE_UNICA and FAO_HASH
//     complete, and nothing does when neither is asked for;
//   - every RUN the session proved is the expected one, and a Clave Única RUN and a certificate
//     RUT in one session are the same person.
//
// A recipient who needs no proof at all may complete without a session (s nil): the signing
// link is then the only proof, as in Documenso.
func CheckCompletion(p Proofs, role Role, recipientID int64, email string, s *SessionProofs, digest string, now time.Time, maxAge time.Duration) error {
	acts := role != RoleCC
	if p.ExpectedRUT != "" && acts && !p.Identity() {
		// The sender named who must sign, then took away what would prove it (auth changed,
		// RUT_FIRMADO field deleted): nobody can be shown to be that person.
		return Errorf(CodeAuthUnavailable, "This document names who must sign it but asks for no proof of identity (Clave Única or FAO_HASH); ask the sender to add one")
	}
	needsAction := acts && (len(p.Action) > 0 || p.RUTFirmado)
	if !p.AccessCode && !p.AccessAccount && !needsAction {
		return nil
	}
	if s == nil || s.RecipientID != recipientID {
		return Errorf(CodeUnauthorized, "Open the signing link again in this browser and verify your identity before completing")
	}
	if err := CheckAccess(p, s, email); err != nil {
		return err
	}
	if !needsAction {
		return nil
	}
	fresh := func(at *time.Time, age time.Duration) bool { return Fresh(at, now, age) }
	claveUnica := s.ClaveUnicaRUN != "" && fresh(s.ClaveUnicaAt, maxAge)
	if p.RUTFirmado && !claveUnica {
		if s.ClaveUnicaRUN != "" {
			return Errorf(CodeUnauthorized, "Your ClaveÚnica verification is more than %s old; verify again before signing", minutes(maxAge))
		}
		return Errorf(CodeUnauthorized, "Verify your identity with ClaveÚnica before signing: it fills your RUT_FIRMADO field")
	}
	for _, run := range []string{s.ClaveUnicaRUN, s.FEARUT} {
		if run != "" && p.ExpectedRUT != "" && run != p.ExpectedRUT {
			return Errorf(CodeRUTMismatch, "The RUN proved in this session is not the one this document is for")
		}
	}
	if s.ClaveUnicaRUN != "" && s.FEARUT != "" && s.ClaveUnicaRUN != s.FEARUT {
		return Errorf(CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by ClaveÚnica (%s)", s.FEARUT, s.ClaveUnicaRUN)
	}
	if len(p.Action) == 0 {
		return nil // only the RUT_FIRMADO field asked, and the login is there
	}
	proved := func(m ActionAuth) bool {
		if p.ExpectedRUT != "" && m != ActionAuthClaveUnica && m != ActionAuthFAOHash {
			return false
		}
		switch m {
		case ActionAuthClaveUnica:
			return claveUnica
		case ActionAuthFAOHash:
			return s.FEARUT != "" && fresh(s.FEAAt, maxAge) && s.FEADigest == digest
		}
		return CheckAccount(s.Account, email) == nil && s.AccountProved(m, now)
	}
	for _, m := range p.Action {
		if proved(m) {
			return nil
		}
	}
	return missingAction(p, s, email, now, maxAge)
}

// AccountProved reports whether the session proved account method m, its account being the
// recipient's: being signed in is ACCOUNT; PASSWORD, TWO_FACTOR_AUTH and PASSKEY need their
// proof typed within AccountProofMaxAge of now. Any other method is not an account's.
func (s *SessionProofs) AccountProved(m ActionAuth, now time.Time) bool {
	switch m {
	case ActionAuthAccount:
		return true
	case ActionAuthPassword:
		return Fresh(s.PasswordAt, now, AccountProofMaxAge)
	case ActionAuthTwoFactorAuth:
		return Fresh(s.TOTPAt, now, AccountProofMaxAge)
	case ActionAuthPasskey:
		return Fresh(s.PasskeyAt, now, AccountProofMaxAge)
	}
	return false
}

// missingAction explains what the session lacks to complete: the first thing the signer can do.
func missingAction(p Proofs, s *SessionProofs, email string, now time.Time, maxAge time.Duration) error {
	only := func(m ActionAuth) bool { return len(p.Action) == 1 && p.Action[0] == m }
	switch {
	case only(ActionAuthClaveUnica) && s.ClaveUnicaRUN != "":
		return Errorf(CodeUnauthorized, "Your ClaveÚnica verification is more than %s old; verify again before signing", minutes(maxAge))
	case only(ActionAuthClaveUnica):
		return Errorf(CodeUnauthorized, "Verify your identity with ClaveÚnica before signing")
	case only(ActionAuthFAOHash) && s.FEARUT == "":
		return Errorf(CodeUnauthorized, "Give your advanced electronic signature over the document's digest before signing")
	case only(ActionAuthFAOHash) && s.FEAAt != nil && s.FEAAt.Before(now.Add(-maxAge)):
		return Errorf(CodeUnauthorized, "Your advanced electronic signature is more than %s old; sign the digest again", minutes(maxAge))
	case only(ActionAuthFAOHash):
		return Errorf(CodeUnauthorized, "The document or your fields changed after your advanced electronic signature; sign the new digest")
	}
	if p.ExpectedRUT == "" && !p.Offers(ActionAuthClaveUnica) && !p.Offers(ActionAuthFAOHash) {
		if err := CheckAccount(s.Account, email); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(p.Action))
	for _, m := range p.Action {
		if p.ExpectedRUT == "" || m == ActionAuthClaveUnica || m == ActionAuthFAOHash {
			names = append(names, methodName(m))
		}
	}
	return Errorf(CodeUnauthorized, "Before signing, prove it is you with one of: %s (password, authenticator code and passkey count for %s)",
		strings.Join(names, ", "), minutes(AccountProofMaxAge))
}

// methodName is how a message names an action method.
func methodName(m ActionAuth) string {
	switch m {
	case ActionAuthAccount:
		return "your account"
	case ActionAuthPassword:
		return "your account's password"
	case ActionAuthTwoFactorAuth:
		return "a code from your authenticator app"
	case ActionAuthPasskey:
		return "a passkey"
	case ActionAuthClaveUnica:
		return "ClaveÚnica"
	case ActionAuthFAOHash:
		return "an advanced electronic signature"
	}
	return string(m)
}

func minutes(d time.Duration) string { return fmt.Sprintf("%.0f minutes", d.Minutes()) }

// FilledElsewhere lists, in the order given, the ids of the fields among fields that signing
// session must fill or clear again before it completes for recipient rec, when rec must prove
// who they are (proofs.Action, or a RUT_FIRMADO field): those whose value another signing
// session gave or cleared last. A proof given in one browser vouches only for what that browser
// filled: a value typed in another, by whoever else holds the link perhaps, would be sealed
// under this one's name. The fields are rec's own, and for an ASSISTANT the values it put in
// others' fields (its prefills, which its completion vouches for). The sender's values, an
// assistant's in rec's own fields (shown on the page, and logged as prefilled), RUT_FIRMADO
// (filled from the proof itself) and DATE (filled when the recipient completes) are nobody
// else's session. A CC acts on nothing.
func FilledElsewhere(proofs Proofs, rec Recipient, session string, fields []Field) []int64 {
	if rec.Role == RoleCC || (len(proofs.Action) == 0 && !proofs.RUTFirmado) {
		return nil
	}
	var ids []int64
	for _, f := range fields {
		own := f.RecipientID == rec.ID && f.PrefilledBy == nil
		prefill := f.PrefilledBy != nil && *f.PrefilledBy == rec.ID
		if (own || prefill) && f.Type != FieldRUTFirmado && f.Type != FieldDate &&
			f.FilledBy != "" && f.FilledBy != session && f.FilledBy != FilledBySender {
			ids = append(ids, f.ID)
		}
	}
	return ids
}
