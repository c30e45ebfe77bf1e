package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// The signing page's part of signer accounts: the page shown while ACCOUNT access is not met,
// and the "verify to sign" panel of the account methods of the action auth.

// accountFacts is what a signing page needs to know of the recipient's account methods and of
// the account this browser is signed in to.
type accountFacts struct {
	Recipient string                // the recipient's email: the account's address
	Methods   []envelope.ActionAuth // the account methods among the action methods, in the order asked
	Others    bool                  // the action methods include others (Clave Única, FAO_HASH)
	SignedIn  string                // the email of this browser's account, "" when signed out
	Verified  bool                  // that account's email was verified
	Matches   bool                  // that account is the recipient's (envelope.CheckAccount)
	TOTP      bool                  // that account has an authenticator app
	Passkeys  bool                  // that account has a passkey
	// PasswordAt, TOTPAt and PasskeyAt are this session's proofs with that account.
	PasswordAt, TOTPAt, PasskeyAt *time.Time
	Now                           time.Time
}

// proved reports whether this session proved m with the recipient's account, recently enough
// to complete with (envelope.SessionProofs.AccountProved).
func (f accountFacts) proved(m envelope.ActionAuth) bool {
	s := envelope.SessionProofs{PasswordAt: f.PasswordAt, TOTPAt: f.TOTPAt, PasskeyAt: f.PasskeyAt}
	return f.Matches && s.AccountProved(m, f.Now)
}

// accountPanel is the "verify to sign" panel, or the links of the account page.
type accountPanel struct {
	Recipient string
	SignedIn  string
	Matches   bool
	// SignInURL and SignUpURL lead to the account pages and back to this signing page.
	SignInURL, SignUpURL string
	SetUpURL             string // the account page, and back here
	Back                 string // this signing page: where signing out leads
	SignOutText          string
	Methods              []methodView
	AnyOne               bool // several methods: any one is enough
	Proved               bool // one of the methods is proved already
}

type methodView struct {
	Method   envelope.ActionAuth
	Key      string // password, totp, passkey, account: the ids of its controls
	Proved   bool
	Enrolled bool // the account has what the method needs (an authenticator app, a passkey)
}

// newAccountPanel is the panel of facts for the signing page of token.
func newAccountPanel(t Text, f accountFacts, token string) *accountPanel {
	// The account pages speak the signing page's language.
	back := "/sign/" + token
	q := url.Values{"next": {back}, "lang": {t.Lang}}
	setUp := "/account?" + q.Encode()
	if f.Recipient != "" {
		q.Set("email", f.Recipient)
	}
	p := &accountPanel{
		Recipient: f.Recipient, SignedIn: f.SignedIn, Matches: f.Matches, Back: back, SignOutText: t.SignOut,
		SignInURL: "/account/signin?" + q.Encode(), SignUpURL: "/account/signup?" + q.Encode(), SetUpURL: setUp,
		AnyOne: len(f.Methods) > 1 || (len(f.Methods) > 0 && f.Others),
	}
	for _, m := range f.Methods {
		mv := methodView{Method: m, Proved: f.proved(m), Enrolled: true}
		switch m {
		case envelope.ActionAuthAccount:
			mv.Key = "account"
		case envelope.ActionAuthPassword:
			mv.Key = "password"
		case envelope.ActionAuthTwoFactorAuth:
			mv.Key, mv.Enrolled = "totp", f.TOTP
		case envelope.ActionAuthPasskey:
			mv.Key, mv.Enrolled = "passkey", f.Passkeys
		default:
			continue
		}
		p.Proved = p.Proved || mv.Proved
		p.Methods = append(p.Methods, mv)
	}
	return p
}

// accountAccessView is the page of a recipient whose envelope asks them to be signed in to
// their account (ACCOUNT access) and who is not: code is the refusal's (ACCOUNT_REQUIRED,
// ACCOUNT_MISMATCH or EMAIL_NOT_VERIFIED).
func accountAccessView(t Text, e *envelope.Envelope, rec envelope.Recipient, f accountFacts, code envelope.Code) *view {
	v := &view{T: t, State: "account", Token: rec.Token, Title: e.Title, Role: rec.Role, Heading: t.AccountAccessHeading}
	v.Account = newAccountPanel(t, f, rec.Token)
	switch code {
	case envelope.CodeAccountMismatch:
		v.Message = fmt.Sprintf(t.AccountMismatch, f.SignedIn, f.Recipient)
	case envelope.CodeEmailUnverified:
		v.Message = fmt.Sprintf(t.AccountUnverified, f.SignedIn)
	default:
		v.Message = fmt.Sprintf(t.AccountRequired, f.Recipient)
	}
	return v
}

// isAccountRefusal reports whether code refuses access for want of the right signed-in account.
func isAccountRefusal(code envelope.Code) bool {
	return code == envelope.CodeAccountRequired || code == envelope.CodeAccountMismatch || code == envelope.CodeEmailUnverified
}

// accountFacts reads, from the ceremony's status st, what the signing page of rec shows of
// signer accounts. Account methods are listed only when they can complete: with an expected
// RUN only Clave Única and FAO_HASH do.
func (h *Handler) accountFacts(r *http.Request, st ceremony.Status, rec envelope.Recipient) accountFacts {
	f := accountFacts{Recipient: st.Email, Now: time.Now(), Matches: st.AccountMatches,
		PasswordAt: st.PasswordAt, TOTPAt: st.TOTPAt, PasskeyAt: st.PasskeyAt}
	if f.Recipient == "" {
		f.Recipient = rec.Email
	}
	for _, m := range st.Action {
		if slices.Contains(envelope.AccountMethods, m) {
			if st.ExpectedRUT == "" {
				f.Methods = append(f.Methods, m)
			}
		} else {
			f.Others = true
		}
	}
	if a := st.Account; a != nil {
		f.SignedIn, f.Verified, f.TOTP = a.Email, a.EmailVerified, a.TOTPEnabled
		f.Passkeys = true
		if f.Matches && h.Accounts != nil && slices.Contains(f.Methods, envelope.ActionAuthPasskey) {
			// Without a passkey the page offers to add one instead of a button that cannot work.
			if ov, err := h.Accounts.Overview(r.Context(), *a); err == nil {
				f.Passkeys = len(ov.Passkeys) > 0
			} else {
				h.Log.WarnContext(r.Context(), "read the signer account's passkeys", "account", a.ID, "err", err)
			}
		}
	}
	return f
}
