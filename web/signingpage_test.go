package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// pendingFor stores a PENDING envelope with one signer, whose email is email and whose own
// auth options are auth, and returns the signer.
func pendingFor(t *testing.T, store *persistence.Store, email string, auth envelope.RecipientAuthOptions) envelope.Recipient {
	t.Helper()
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "owner@acme.cl", "Olga", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Arriendo", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 " + email), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: email, Name: "Ana", Role: envelope.RoleSigner, AuthOptions: auth},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}}},
	}
	var id string
	err = store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return e.Recipients[0]
}

// signingServer serves the signing and account pages on store, with accounts kept by svc.
func signingServer(t *testing.T, store *persistence.Store, svc *account.Service) *httptest.Server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	h := &Handler{Store: store, Accounts: svc, Log: log, ClientIP: func(*http.Request) string { return "192.0.2.7" },
		Ceremony: &ceremony.Service{Store: store, Accounts: svc, PublicURL: "http://127.0.0.1:8080", Log: log}}
	r := chi.NewRouter()
	h.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

func TestSigningPageSignedOut(t *testing.T) {
	store := pgtest.New(t)
	svc := &account.Service{Store: store, PublicURL: "http://127.0.0.1:8080", Log: slog.New(slog.DiscardHandler)}
	srv := signingServer(t, store, svc)
	email := fmt.Sprintf("ana-%d@example.cl", time.Now().UnixNano())

	t.Run("ACCOUNT access", func(t *testing.T) {
		rec := pendingFor(t, store, email, envelope.RecipientAuthOptions{AccessAuth: []envelope.AccessAuth{envelope.AccessAuthAccount}})
		v := newVisitor(t, srv)
		a := v.get("/sign/" + rec.Token)
		if a.status != http.StatusUnauthorized {
			t.Fatalf("signing page signed out: %d, want 401", a.status)
		}
		next := url.QueryEscape("/sign/" + rec.Token)
		for _, want := range []string{`id="account-signin-link"`, `id="account-signup-link"`, email,
			`href="/account/signin?email=` + url.QueryEscape(email) + `&amp;lang=en&amp;next=` + next + `"`,
			`href="/account/signup?email=` + url.QueryEscape(email) + `&amp;lang=en&amp;next=` + next + `"`} {
			if !strings.Contains(a.body, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if strings.Contains(a.body, `class="page"`) || strings.Contains(a.body, "/pages/") {
			t.Error("the document is shown before signing in")
		}
		if img := v.get("/sign/" + rec.Token + "/pages/x/1.png"); img.status == http.StatusOK {
			t.Error("a page image is served before signing in")
		}
	})

	t.Run("PASSWORD action", func(t *testing.T) {
		rec := pendingFor(t, store, email, envelope.RecipientAuthOptions{ActionAuth: []envelope.ActionAuth{envelope.ActionAuthPassword, envelope.ActionAuthPasskey}})
		a := newVisitor(t, srv).get("/sign/" + rec.Token)
		if a.status != http.StatusOK {
			t.Fatalf("signing page: %d", a.status)
		}
		for _, want := range []string{`id="verify-account"`, `id="account-signin-link"`, `id="method-password"`, `id="method-passkey"`,
			`id="verify-any"`, `id="complete" class="primary" disabled`, `src="/static/sign/passkey.js"`} {
			if !strings.Contains(a.body, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if strings.Contains(a.body, `id="auth-password"`) {
			t.Error("a password input is offered before signing in")
		}
	})

	t.Run("no account method", func(t *testing.T) {
		rec := pendingFor(t, store, email, envelope.RecipientAuthOptions{})
		a := newVisitor(t, srv).get("/sign/" + rec.Token)
		if a.status != http.StatusOK || strings.Contains(a.body, `id="verify-account"`) || strings.Contains(a.body, "passkey.js") ||
			strings.Contains(a.body, `id="complete" class="primary" disabled`) {
			t.Errorf("a page that asks for no account: %d, with account parts:\n%s", a.status, a.body)
		}
	})
}

// request is a request to path carrying the cookies v holds for its server.
func (v *visitor) request(path string) *http.Request {
	v.t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	u, err := url.Parse(v.base)
	if err != nil {
		v.t.Fatal(err)
	}
	for _, c := range v.client.Jar.Cookies(u) {
		r.AddCookie(c)
	}
	return r
}

func TestSigningPageSignedIn(t *testing.T) {
	svc, sink := accountsService(t)
	store := svc.Store
	srv := signingServer(t, store, svc)
	v := newVisitor(t, srv)
	email, password := v.signedIn(sink, "fer")
	auth := envelope.RecipientAuthOptions{AccessAuth: []envelope.AccessAuth{envelope.AccessAuthAccount},
		ActionAuth: []envelope.ActionAuth{envelope.ActionAuthPassword, envelope.ActionAuthTwoFactorAuth}}
	rec := pendingFor(t, store, strings.ToUpper(email), auth)

	a := v.get("/sign/" + rec.Token)
	if a.status != http.StatusOK {
		t.Fatalf("signing page signed in: %d:\n%s", a.status, a.body)
	}
	for _, want := range []string{`id="verify-account"`, `id="account-signed-in"`, email, `<label for="auth-password">`, `id="auth-password-submit"`,
		`id="auth-totp-setup" href="/account?lang=en&amp;next=` + url.QueryEscape("/sign/"+rec.Token) + `"`, `id="account-signout"`,
		`id="complete" class="primary" disabled`, `id="auth-message"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(a.body, `id="auth-totp"`) {
		t.Error("a code input is offered to an account without an authenticator app")
	}

	// The password typed again (as the signing API takes it) shows as proved, and completing is offered.
	e, err := store.EnvelopeForRecipient(context.Background(), rec.EnvelopeID)
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Store: store, Accounts: svc, Log: slog.New(slog.DiscardHandler),
		Ceremony: &ceremony.Service{Store: store, Accounts: svc, PublicURL: "http://127.0.0.1:8080", Log: slog.New(slog.DiscardHandler)}}
	req := v.request("/sign/" + rec.Token)
	st, err := h.Ceremony.StatusOf(context.Background(), req, e, rec)
	if err != nil {
		t.Fatal(err)
	}
	actor := envelope.RecipientActor(rec, "192.0.2.7", "test")
	if err := h.Ceremony.ProvePassword(context.Background(), st, rec, password, account.Client{IP: "192.0.2.7"}, actor); err != nil {
		t.Fatal(err)
	}
	a = v.get("/sign/" + rec.Token)
	if !strings.Contains(a.body, `id="proved-password">✓`) || strings.Contains(a.body, `id="auth-password"`) ||
		strings.Contains(a.body, `id="complete" class="primary" disabled`) {
		t.Errorf("after the password was proved the page does not show it, or still holds completing back:\n%s", a.body)
	}

	// The account page lists the envelope, with its signing link.
	if a = v.get("/account"); !strings.Contains(a.body, `id="asked-envelopes"`) || !strings.Contains(a.body, "/sign/"+rec.Token+`">Arriendo</a>`) {
		t.Errorf("the account page does not list the envelope asked to sign:\n%s", a.body)
	}

	// Another account in the same browser: the page names both and offers to sign out.
	other := newVisitor(t, srv)
	otherEmail, _ := other.signedIn(sink, "gabi")
	a = other.get("/sign/" + rec.Token)
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, otherEmail) || !strings.Contains(a.body, `id="account-signout"`) ||
		!strings.Contains(a.body, `name="next" value="/sign/`+rec.Token+`"`) || strings.Contains(a.body, `class="page"`) {
		t.Fatalf("signed in to another account: %d:\n%s", a.status, a.body)
	}
	a = other.post("/account/signout", url.Values{"next": {"/sign/" + rec.Token}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/sign/"+rec.Token {
		t.Fatalf("sign-out from the signing page: %d to %q", a.status, a.header.Get("Location"))
	}
	if a = other.get("/sign/" + rec.Token); a.status != http.StatusUnauthorized || !strings.Contains(a.body, `id="account-signin-link"`) {
		t.Fatalf("after signing out: %d, want the sign-in links", a.status)
	}
}
