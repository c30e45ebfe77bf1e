package claveunica_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/auth/claveunicadev"
)

const redirect = "http://sobre.test/auth/claveunica/callback"

// provider starts the local Clave Única with opts on loopback.
func provider(t *testing.T, opts claveunicadev.Options) *httptest.Server {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p, err := claveunicadev.New(srv.URL+"/openid", []claveunicadev.Client{{ID: "sobre", Secret: "s3cret", RedirectPrefixes: []string{"http://sobre.test/"}}}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = p.Handler()
	return srv
}

func rp(issuer string) *claveunica.Client {
	return claveunica.New(claveunica.Config{IssuerURL: issuer, ClientID: "sobre", ClientSecret: "s3cret", RedirectURL: redirect,
		LogoutURL: strings.TrimSuffix(issuer, "/openid") + "/api/v1/accounts/app/logout"})
}

// login follows the authorization URL as a person would: the login page's form posted with a
// test RUN. It returns the code and state of the redirect back to Sobre.
func login(t *testing.T, authURL, run string) (code, state string) {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"openid run name"} {
		if got := u.Query().Get("scope"); got != want {
			t.Fatalf("scope %q, want %q", got, want)
		}
	}
	page, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("login page: %s", page.Status)
	}
	form := u.Query()
	form.Set("run", run)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.PostForm(u.Scheme+"://"+u.Host+u.Path, form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), redirect) {
		t.Fatalf("login answered %s to %q", res.Status, res.Header.Get("Location"))
	}
	return loc.Query().Get("code"), loc.Query().Get("state")
}

func TestLogin(t *testing.T) {
	srv := provider(t, claveunicadev.Options{})
	c := rp(srv.URL + "/openid")
	ctx := context.Background()
	authURL, err := c.AuthCodeURL(ctx, "state-123", "nonce-456")
	if err != nil {
		t.Fatal(err)
	}
	code, state := login(t, authURL, "44444444-4")
	if state != "state-123" {
		t.Fatalf("state came back as %q", state)
	}
	p, err := c.Exchange(ctx, code, state, "nonce-456")
	if err != nil {
		t.Fatal(err)
	}
	if p.RUN != "44444444-4" || p.FullName() != "María Carmen Del Río González" || p.Subject == "" {
		t.Fatalf("person %+v", p)
	}
	if got := c.LogoutURL("http://sobre.test/back"); got != srv.URL+"/api/v1/accounts/app/logout?redirect=http%3A%2F%2Fsobre.test%2Fback" {
		t.Errorf("logout URL %q", got)
	}
	// The code was spent.
	if _, err := c.Exchange(ctx, code, state, "nonce-456"); !errors.Is(err, claveunica.ErrToken) {
		t.Fatalf("a reused code: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		opts  claveunicadev.Options
		state string // the state sent at the token request, if not the right one
		nonce string // the nonce Sobre expects, if not the right one
		want  error
	}{
		{name: "wrong state at the token request", state: "another-state", want: claveunica.ErrToken},
		{name: "wrong nonce", nonce: "another-nonce", want: claveunica.ErrNonce},
		{name: "ID token nonce differs", opts: claveunicadev.Options{TokenNonce: "replayed"}, want: claveunica.ErrNonce},
		{name: "ID token from another issuer", opts: claveunicadev.Options{TokenIssuer: "https://evil.example/openid"}, want: claveunica.ErrToken},
		{name: "ID token for another audience", opts: claveunicadev.Options{TokenAudience: "someone-else"}, want: claveunica.ErrToken},
		{name: "expired ID token", opts: claveunicadev.Options{TokenLifetime: -time.Hour}, want: claveunica.ErrToken},
		{name: "ID token signed with a foreign key", opts: claveunicadev.Options{ForeignKey: true}, want: claveunica.ErrToken},
		{name: "RUN with a bad check digit", opts: claveunicadev.Options{BadCheckDigit: true}, want: claveunica.ErrRUN},
		{name: "userinfo about another subject", opts: claveunicadev.Options{OtherSubject: true}, want: claveunica.ErrUserInfo},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := provider(t, tc.opts)
			c := rp(srv.URL + "/openid")
			ctx := context.Background()
			authURL, err := c.AuthCodeURL(ctx, "the-state", "the-nonce")
			if err != nil {
				t.Fatal(err)
			}
			code, state := login(t, authURL, "55555555-5")
			if tc.state != "" {
				state = tc.state
			}
			nonce := "the-nonce"
			if tc.nonce != "" {
				nonce = tc.nonce
			}
			p, err := c.Exchange(ctx, code, state, nonce)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Exchange = %+v, %v; want %v", p, err, tc.want)
			}
		})
	}
}

func TestProviderDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	issuer := srv.URL + "/openid"
	srv.Close()
	c := rp(issuer)
	if _, err := c.AuthCodeURL(context.Background(), "s", "n"); !errors.Is(err, claveunica.ErrUnreachable) {
		t.Fatalf("AuthCodeURL with the provider down: %v", err)
	}
}
