package web

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

func TestAccountPanelProofs(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	recent, old := now.Add(-time.Minute), now.Add(-6*time.Minute)
	all := []envelope.ActionAuth{envelope.ActionAuthAccount, envelope.ActionAuthPassword, envelope.ActionAuthTwoFactorAuth, envelope.ActionAuthPasskey}
	cases := []struct {
		name   string
		f      accountFacts
		proved []string
	}{
		{"signed out", accountFacts{Methods: all, PasswordAt: &recent}, nil},
		{"another account", accountFacts{Methods: all, SignedIn: "x@y.cl", PasswordAt: &recent, TOTPAt: &recent}, nil},
		{"signed in, nothing typed", accountFacts{Methods: all[1:], SignedIn: "a@b.cl", Matches: true}, nil},
		{"signed in is ACCOUNT", accountFacts{Methods: all, SignedIn: "a@b.cl", Matches: true}, []string{"account"}},
		{"a fresh password", accountFacts{Methods: all[1:], SignedIn: "a@b.cl", Matches: true, PasswordAt: &recent}, []string{"password"}},
		{"an old code", accountFacts{Methods: all[1:], SignedIn: "a@b.cl", Matches: true, TOTPAt: &old, PasskeyAt: &recent}, []string{"passkey"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Now, c.f.Recipient = now, "a@b.cl"
			p := newAccountPanel(textFor(envelope.LanguageEnglish), c.f, "abcdefghijklmnop")
			var got []string
			for _, m := range p.Methods {
				if m.Proved {
					got = append(got, m.Key)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.proved, ",") {
				t.Errorf("proved %v, want %v", got, c.proved)
			}
			if p.Proved != (len(c.proved) > 0) {
				t.Errorf("panel proved = %v", p.Proved)
			}
			if !p.AnyOne {
				t.Error("several methods, and the panel does not say any one is enough")
			}
		})
	}
}

func TestAccountPanelLinks(t *testing.T) {
	p := newAccountPanel(textFor(envelope.LanguageSpanish), accountFacts{Recipient: "ana+firma@example.cl",
		Methods: []envelope.ActionAuth{envelope.ActionAuthPasskey}}, "abcdefghijklmnop")
	for _, link := range []string{p.SignInURL, p.SignUpURL, p.SetUpURL} {
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		if next := u.Query().Get("next"); next != "/sign/abcdefghijklmnop" || safeNext(next) != next {
			t.Errorf("%s: next %q, want this signing page", link, next)
		}
		if u.Query().Get("lang") != "es" {
			t.Errorf("%s: not in the signing page's language", link)
		}
	}
	for _, link := range []string{p.SignInURL, p.SignUpURL} {
		u, _ := url.Parse(link)
		if u.Query().Get("email") != "ana+firma@example.cl" {
			t.Errorf("%s does not carry the recipient's email", link)
		}
	}
	if p.AnyOne {
		t.Error("one method, and the panel says any one is enough")
	}
}

// renderPage is the signing page of v as the template writes it.
func renderPage(t *testing.T, v *view) string {
	t.Helper()
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestAccountAccessPage(t *testing.T) {
	e := &envelope.Envelope{Title: "Arriendo"}
	rec := envelope.Recipient{Token: "abcdefghijklmnop", Email: "ana@example.cl", Role: envelope.RoleSigner}
	for _, lang := range envelope.Languages() {
		tx := textFor(lang)
		required := renderPage(t, accountAccessView(tx, e, rec, accountFacts{Recipient: rec.Email}, envelope.CodeAccountRequired))
		for _, want := range []string{`<html lang="` + string(lang) + `">`, `id="account-signin-link"`, `id="account-signup-link"`,
			`href="/account/signin?email=ana%40example.cl&amp;lang=` + string(lang) + `&amp;next=%2Fsign%2Fabcdefghijklmnop"`, "ana@example.cl", tx.AccountAccessHeading} {
			if !strings.Contains(required, want) {
				t.Errorf("%s: the page of a browser signed out lacks %s:\n%s", lang, want, required)
			}
		}
		if strings.Contains(required, `id="account-signout"`) {
			t.Errorf("%s: a browser signed out is offered to sign out", lang)
		}
		other := renderPage(t, accountAccessView(tx, e, rec, accountFacts{Recipient: rec.Email, SignedIn: "beto@example.cl", Verified: true}, envelope.CodeAccountMismatch))
		for _, want := range []string{"beto@example.cl", "ana@example.cl", `action="/account/signout"`, `id="account-signout"`,
			`name="next" value="/sign/abcdefghijklmnop"`} {
			if !strings.Contains(other, want) {
				t.Errorf("%s: the page of a browser signed in to another account lacks %s:\n%s", lang, want, other)
			}
		}
	}
}

func TestVerifyPanel(t *testing.T) {
	now := time.Now()
	methods := []envelope.ActionAuth{envelope.ActionAuthPassword, envelope.ActionAuthTwoFactorAuth, envelope.ActionAuthPasskey}
	tx := textFor(envelope.LanguageEnglish)
	base := func(f accountFacts) *view {
		f.Recipient, f.Methods, f.Now = "ana@example.cl", methods, now
		v := &view{T: tx, State: "document", Token: "abcdefghijklmnop", Heading: tx.TitleSign, Action: tx.Sign, Meta: "{}"}
		v.Account = newAccountPanel(tx, f, v.Token)
		v.ActionPending = !v.Account.Proved
		return v
	}
	cases := []struct {
		name       string
		f          accountFacts
		want, lack []string
	}{
		{"signed out", accountFacts{},
			[]string{`id="account-signin-link"`, `id="account-signup-link"`, `id="verify-any"`, `id="auth-message"`, `aria-live="polite"`,
				`id="complete" class="primary" disabled`, `id="complete-hint"`, `src="/static/sign/passkey.js"`},
			[]string{`id="auth-password"`, `id="auth-totp"`, `id="auth-passkey"`}},
		{"signed in, all set up", accountFacts{SignedIn: "ana@example.cl", Verified: true, Matches: true, TOTP: true, Passkeys: true},
			[]string{`<label for="auth-password">`, `id="auth-password-submit"`, `<label for="auth-totp">`, `autocomplete="one-time-code"`,
				`id="auth-totp-submit"`, `id="auth-passkey"`, `id="proved-password"`, `id="account-signout"`, `disabled`},
			[]string{`id="account-signin-link"`, `id="auth-totp-setup"`, `id="auth-passkey-setup"`}},
		{"signed in, nothing set up", accountFacts{SignedIn: "ana@example.cl", Verified: true, Matches: true},
			[]string{`id="auth-totp-setup" href="/account?lang=en&amp;next=%2Fsign%2Fabcdefghijklmnop"`, `id="auth-passkey-setup"`, `id="auth-password"`},
			[]string{`id="auth-totp"`, `id="auth-passkey"`}},
		{"password typed a minute ago", accountFacts{SignedIn: "ana@example.cl", Verified: true, Matches: true, PasswordAt: ptr(now.Add(-time.Minute))},
			[]string{`id="proved-password">✓ ` + tx.Proved},
			[]string{`id="auth-password"`, `disabled`, `id="complete-hint"`}},
		{"another account", accountFacts{SignedIn: "beto@example.cl", Verified: true},
			[]string{"beto@example.cl", `id="account-signout"`},
			[]string{`id="auth-password"`, `id="account-signin-link"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := renderPage(t, base(c.f))
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("lacks %s", w)
				}
			}
			for _, l := range c.lack {
				if strings.Contains(page, l) {
					t.Errorf("has %s", l)
				}
			}
			if t.Failed() {
				t.Log(page)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
