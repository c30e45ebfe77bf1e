package claveunica_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/auth/claveunicadev"
)

const redirect = "http://sobre.test/auth/claveunica/callback"

// provider starts the local Clave Única with opts on loopback. Its issuer is srv.URL+"/openid".
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

// login follows the authorization URL as a person would: the login page fetched, its form
// posted with a test RUN. It returns the code and state of the redirect back to Sobre.
func login(t *testing.T, authURL, run string) (code, state string) {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, want := range map[string]string{"scope": "openid run name", "response_type": "code", "redirect_uri": redirect, "client_id": "sobre"} {
		if got := q.Get(k); got != want {
			t.Fatalf("authorization URL's %s is %q, want %q", k, got, want)
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
	if err != nil || res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), redirect+"?") {
		t.Fatalf("login answered %s to %q", res.Status, res.Header.Get("Location"))
	}
	return loc.Query().Get("code"), loc.Query().Get("state")
}

func TestLogin(t *testing.T) {
	for _, person := range claveunicadev.SandboxPeople {
		t.Run(person.Label(), func(t *testing.T) {
			srv := provider(t, claveunicadev.Options{})
			c := rp(srv.URL + "/openid")
			ctx := context.Background()
			authURL, err := c.AuthCodeURL(ctx, "state-123", "nonce-456")
			if err != nil {
				t.Fatal(err)
			}
			if q, _ := url.ParseQuery(authURL[strings.IndexByte(authURL, '?')+1:]); q.Get("state") != "state-123" || q.Get("nonce") != "nonce-456" {
				t.Fatalf("authorization URL %s lacks the state or the nonce", authURL)
			}
			code, state := login(t, authURL, person.RUN())
			if state != "state-123" {
				t.Fatalf("state came back as %q", state)
			}
			p, err := c.Exchange(ctx, code, state, "nonce-456")
			if err != nil {
				t.Fatal(err)
			}
			if p.RUN != person.RUN() || p.FullName() != person.FullName() || p.Subject == "" ||
				strings.Join(p.GivenNames, "|") != strings.Join(person.Nombres, "|") || strings.Join(p.Surnames, "|") != strings.Join(person.Apellidos, "|") {
				t.Fatalf("person %+v, want %+v", p, person)
			}
		})
	}
	t.Run("RUN and name of 44.444.444-4", func(t *testing.T) {
		srv := provider(t, claveunicadev.Options{})
		c := rp(srv.URL + "/openid")
		authURL, err := c.AuthCodeURL(context.Background(), "s", "n")
		if err != nil {
			t.Fatal(err)
		}
		code, state := login(t, authURL, "44444444-4")
		p, err := c.Exchange(context.Background(), code, state, "n")
		if err != nil || p.RUN != "44444444-4" || p.FullName() != "María Carmen Del Río González" {
			t.Fatalf("Exchange = %+v, %v", p, err)
		}
	})
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		opts  claveunicadev.Options
		state string // the state sent at the token request, if not the right one
		nonce string // the nonce Sobre expects, if not the right one
		spend bool   // redeem the code once before the attempt
		down  bool   // stop the provider between the login and the exchange
		want  error
	}{
		{name: "wrong state at the token request", state: "another-state", want: claveunica.ErrToken},
		{name: "reused code", spend: true, want: claveunica.ErrToken},
		{name: "wrong nonce", nonce: "another-nonce", want: claveunica.ErrNonce},
		{name: "ID token nonce differs", opts: claveunicadev.Options{TokenNonce: "replayed"}, want: claveunica.ErrNonce},
		{name: "ID token from another issuer", opts: claveunicadev.Options{TokenIssuer: "https://evil.example/openid"}, want: claveunica.ErrToken},
		{name: "ID token for another audience", opts: claveunicadev.Options{TokenAudience: "someone-else"}, want: claveunica.ErrToken},
		{name: "expired ID token", opts: claveunicadev.Options{TokenLifetime: -time.Hour}, want: claveunica.ErrToken},
		{name: "ID token signed with a foreign key", opts: claveunicadev.Options{ForeignKey: true}, want: claveunica.ErrToken},
		{name: "RUN with a bad check digit", opts: claveunicadev.Options{BadCheckDigit: true}, want: claveunica.ErrRUN},
		{name: "no RolUnico", opts: claveunicadev.Options{NoRolUnico: true}, want: claveunica.ErrUserInfo},
		{name: "userinfo about another subject", opts: claveunicadev.Options{OtherSubject: true}, want: claveunica.ErrUserInfo},
		{name: "provider down", down: true, want: claveunica.ErrUnreachable},
	}
	sentinels := []error{claveunica.ErrUnreachable, claveunica.ErrToken, claveunica.ErrNonce, claveunica.ErrUserInfo, claveunica.ErrRUN}
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
			if tc.spend {
				if _, err := c.Exchange(ctx, code, state, nonce); err != nil {
					t.Fatalf("first use of the code: %v", err)
				}
			}
			if tc.down {
				srv.Close()
			}
			p, err := c.Exchange(ctx, code, state, nonce)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Exchange = %+v, %v; want %v", p, err, tc.want)
			}
			for _, other := range sentinels {
				if other != tc.want && errors.Is(err, other) {
					t.Errorf("the error %v is also %v", err, other)
				}
			}
		})
	}
}

// TestDiscovery: a provider that is not up yet makes ErrUnreachable, and the next use discovers
// it; once discovered, the document is not fetched again.
func TestDiscovery(t *testing.T) {
	var up atomic.Bool
	var fetched atomic.Int32
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/openid-configuration") {
			fetched.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p, err := claveunicadev.New(srv.URL+"/openid", nil, claveunicadev.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = p.Handler()
	c := rp(srv.URL + "/openid")
	ctx := context.Background()
	if _, err := c.AuthCodeURL(ctx, "s", "n"); !errors.Is(err, claveunica.ErrUnreachable) {
		t.Fatalf("AuthCodeURL before the provider is up: %v", err)
	}
	if _, err := c.Exchange(ctx, "code", "s", "n"); !errors.Is(err, claveunica.ErrUnreachable) {
		t.Fatalf("Exchange before the provider is up: %v", err)
	}
	up.Store(true)
	for range 3 {
		if _, err := c.AuthCodeURL(ctx, "s", "n"); err != nil {
			t.Fatalf("AuthCodeURL once the provider is up: %v", err)
		}
	}
	if n := fetched.Load(); n != 1 {
		t.Fatalf("discovery fetched %d times, want once", n)
	}
}

func TestProviderNeverUp(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	issuer := srv.URL + "/openid"
	srv.Close()
	c := rp(issuer)
	if _, err := c.AuthCodeURL(context.Background(), "s", "n"); !errors.Is(err, claveunica.ErrUnreachable) {
		t.Fatalf("AuthCodeURL with the provider down: %v", err)
	}
}

// TestIssuerExact: discovery whose issuer differs from the configured one (a trailing slash
// here) is refused, as OpenID Connect Discovery requires.
func TestIssuerExact(t *testing.T) {
	srv := provider(t, claveunicadev.Options{})
	c := rp(srv.URL + "/openid/")
	if _, err := c.AuthCodeURL(context.Background(), "s", "n"); err == nil {
		t.Fatal("an issuer that is not the discovery document's was accepted")
	}
}

func TestLogoutURL(t *testing.T) {
	cases := []struct {
		logout, redirect, want string
	}{
		{"", "http://sobre.test/back", ""},
		{"https://accounts.claveunica.gob.cl/api/v1/accounts/app/logout", "https://sobre.example/sign/done?x=1",
			"https://accounts.claveunica.gob.cl/api/v1/accounts/app/logout?redirect=https%3A%2F%2Fsobre.example%2Fsign%2Fdone%3Fx%3D1"},
	}
	for _, tc := range cases {
		c := claveunica.New(claveunica.Config{LogoutURL: tc.logout})
		if got := c.LogoutURL(tc.redirect); got != tc.want {
			t.Errorf("LogoutURL(%q) with %q = %q, want %q", tc.redirect, tc.logout, got, tc.want)
		}
	}
}
