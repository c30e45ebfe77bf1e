package claveunicadev_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
)

const (
	redirect = "http://sobre.test/auth/claveunica/callback"
	other    = "http://other.test/callback"
)

// stack is a provider on loopback with a clock the test moves.
type stack struct {
	srv    *httptest.Server
	issuer string
	clock  atomic.Int64 // unix nanoseconds
}

func (s *stack) advance(d time.Duration) { s.clock.Add(int64(d)) }

func start(t *testing.T, opts claveunicadev.Options) *stack {
	t.Helper()
	s := &stack{}
	s.clock.Store(time.Now().UnixNano())
	opts.Now = func() time.Time { return time.Unix(0, s.clock.Load()) }
	var h http.Handler
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(s.srv.Close)
	s.issuer = s.srv.URL + "/openid"
	p, err := claveunicadev.New(s.issuer, []claveunicadev.Client{
		{ID: "sobre", Secret: "s3cret", RedirectPrefixes: []string{"http://sobre.test/"}},
		{ID: "other", Secret: "other-secret", RedirectPrefixes: []string{"http://other.test/"}},
	}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = p.Handler()
	return s
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorize is a valid authorization request of client sobre.
func authorize() url.Values {
	return url.Values{"client_id": {"sobre"}, "response_type": {"code"}, "scope": {"openid run name"},
		"redirect_uri": {redirect}, "state": {"the-state"}, "nonce": {"the-nonce"}}
}

// code posts the login form for run and returns the code of the redirect.
func (s *stack) code(t *testing.T, req url.Values, run string) string {
	t.Helper()
	form := url.Values{}
	for k, v := range req {
		form[k] = v
	}
	form.Set("run", run)
	res, err := noFollow.PostForm(s.issuer+"/authorize/", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), req.Get("redirect_uri")+"?") {
		t.Fatalf("login: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if loc.Query().Get("state") != req.Get("state") || len(loc.Query().Get("code")) != 32 {
		t.Fatalf("redirect %s: want the state back and a 32-character code", loc)
	}
	return loc.Query().Get("code")
}

// tokenForm is a valid token request for code.
func tokenForm(code string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {"sobre"}, "client_secret": {"s3cret"},
		"redirect_uri": {redirect}, "state": {"the-state"}}
}

// post sends form to path and decodes the JSON answer.
func (s *stack) post(t *testing.T, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	res, err := http.PostForm(s.issuer+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("%s answered %s, not JSON: %v", path, res.Status, err)
	}
	return res.StatusCode, body
}

func TestDiscovery(t *testing.T) {
	s := start(t, claveunicadev.Options{})
	res, err := http.Get(s.issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var d map[string]any
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"issuer": s.issuer, "authorization_endpoint": s.issuer + "/authorize/", "token_endpoint": s.issuer + "/token/",
		"userinfo_endpoint": s.issuer + "/userinfo/", "jwks_uri": s.issuer + "/jwks"}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %s", k, d[k], v)
		}
	}
}

func TestLoginPage(t *testing.T) {
	s := start(t, claveunicadev.Options{})
	res, err := http.Get(s.issuer + "/authorize/?" + authorize().Encode())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(raw)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("login page: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	// The form's answer redirects to the relying party, which form-action must allow.
	if u, _ := url.Parse(redirect); !strings.Contains(res.Header.Get("Content-Security-Policy"), "form-action 'self' "+u.Scheme+"://"+u.Host) {
		t.Errorf("CSP %q does not let the form redirect to %s", res.Header.Get("Content-Security-Policy"), redirect)
	}
	for _, want := range []string{`<html lang="es">`, `name="viewport" content="width=device-width, initial-scale=1"`, `<form method="post">`,
		`<h1>Ingrese con ClaveÚnica</h1>`, `<legend>Elija una persona de prueba</legend>`,
		`name="state" value="the-state"`, `name="nonce" value="the-nonce"`, `name="redirect_uri" value="` + redirect + `"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the login page lacks %s", want)
		}
	}
	buttons := regexp.MustCompile(`<button type="submit" name="run" value="([^"]+)">(.*?)</button>`).FindAllStringSubmatch(page, -1)
	if len(buttons) != len(claveunicadev.SandboxPeople) {
		t.Fatalf("%d buttons, want one per sandbox person", len(buttons))
	}
	tags := regexp.MustCompile(`<[^>]+>`)
	for i, p := range claveunicadev.SandboxPeople {
		name := strings.Join(strings.Fields(tags.ReplaceAllString(buttons[i][2], " ")), " ")
		if buttons[i][1] != p.RUN() || name != "RUN "+p.Label()+" "+p.FullName() {
			t.Errorf("button %d: value %q, accessible name %q", i, buttons[i][1], name)
		}
	}
	for _, label := range []string{"44.444.444-4", "55.555.555-5", "88.888.888-8", "99.999.999-9"} {
		if !strings.Contains(page, label) {
			t.Errorf("no button for %s", label)
		}
	}
}

func TestAuthorizeRefusals(t *testing.T) {
	s := start(t, claveunicadev.Options{})
	cases := []struct {
		name   string
		change func(url.Values)
	}{
		{"unknown client", func(v url.Values) { v.Set("client_id", "nobody") }},
		{"implicit flow", func(v url.Values) { v.Set("response_type", "id_token") }},
		{"another scope", func(v url.Values) { v.Set("scope", "openid") }},
		{"no state", func(v url.Values) { v.Del("state") }},
		{"unregistered redirect", func(v url.Values) { v.Set("redirect_uri", "http://evil.test/cb") }},
		{"another client's redirect", func(v url.Values) { v.Set("redirect_uri", other) }},
		{"unknown RUN", func(v url.Values) { v.Set("run", "12345678-5") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := authorize()
			v.Set("run", "44444444-4")
			tc.change(v)
			res, err := noFollow.PostForm(s.issuer+"/authorize/", v)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("POST answered %s, want 400", res.Status)
			}
			if tc.name == "unknown RUN" {
				return
			}
			if res, err = http.Get(s.issuer + "/authorize/?" + v.Encode()); err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("GET answered %s, want 400", res.Status)
			}
		})
	}
}

// keys is the provider's JWKS.
func (s *stack) keys(t *testing.T) jose.JSONWebKeySet {
	t.Helper()
	res, err := http.Get(s.issuer + "/jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(res.Body).Decode(&set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("jwks: %v, %d keys", err, len(set.Keys))
	}
	return set
}

func TestToken(t *testing.T) {
	s := start(t, claveunicadev.Options{})
	code := s.code(t, authorize(), "44444444-4")
	status, body := s.post(t, "/token/", tokenForm(code))
	if status != http.StatusOK || body["token_type"] != "bearer" || body["expires_in"] != 3600.0 || body["access_token"] == "" {
		t.Fatalf("token: %d %v", status, body)
	}
	tok, err := jwt.ParseSigned(body["id_token"].(string), []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	set := s.keys(t)
	if tok.Headers[0].KeyID != set.Keys[0].KeyID {
		t.Errorf("kid %q, JWKS has %q", tok.Headers[0].KeyID, set.Keys[0].KeyID)
	}
	var claims jwt.Claims
	var extra struct {
		Nonce string `json:"nonce"`
	}
	if err := tok.Claims(set.Keys[0].Key, &claims, &extra); err != nil {
		t.Fatalf("the ID token does not verify with the JWKS: %v", err)
	}
	err = claims.Validate(jwt.Expected{Issuer: s.issuer, AnyAudience: jwt.Audience{"sobre"}, Time: time.Now()})
	if err != nil || claims.Subject == "" || extra.Nonce != "the-nonce" || claims.Expiry.Time().Sub(claims.IssuedAt.Time()) != time.Hour {
		t.Fatalf("claims %+v nonce %q: %v", claims, extra.Nonce, err)
	}

	// userinfo: POST with the Bearer token, numero as a JSON number.
	req, _ := http.NewRequest(http.MethodPost, s.issuer+"/userinfo/", nil)
	req.Header.Set("Authorization", "Bearer "+body["access_token"].(string))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`"sub":"` + claims.Subject + `"`, `"RolUnico":{"DV":"4","numero":44444444,"tipo":"RUN"}`,
		`"name":{"apellidos":["Del Río","González"],"nombres":["María","Carmen"]}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("userinfo %s lacks %s", raw, want)
		}
	}
	// GET is not Clave Única's userinfo.
	req, _ = http.NewRequest(http.MethodGet, s.issuer+"/userinfo/", nil)
	req.Header.Set("Authorization", "Bearer "+body["access_token"].(string))
	if res, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET userinfo answered %s", res.Status)
	}
	// The access token dies after an hour.
	s.advance(time.Hour + time.Second)
	req, _ = http.NewRequest(http.MethodPost, s.issuer+"/userinfo/", nil)
	req.Header.Set("Authorization", "Bearer "+body["access_token"].(string))
	if res, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("userinfo with an expired token answered %s", res.Status)
	}
}

func TestTokenRefusals(t *testing.T) {
	cases := []struct {
		name   string
		before func(t *testing.T, s *stack, code string) // what happens between the login and the token request
		change func(form url.Values)                     // how the token request differs from a valid one
		login  func() url.Values                         // the authorization request, if not authorize()
		status int                                       // the answer
		errc   string                                    // its error code
	}{
		{name: "wrong secret", change: func(f url.Values) { f.Set("client_secret", "guess") }, status: 401, errc: "invalid_client"},
		{name: "no secret", change: func(f url.Values) { f.Del("client_secret") }, status: 401, errc: "invalid_client"},
		{name: "unknown client", change: func(f url.Values) { f.Set("client_id", "nobody") }, status: 401, errc: "invalid_client"},
		{name: "another client's code", change: func(f url.Values) { f.Set("client_id", "other"); f.Set("client_secret", "other-secret") },
			status: 400, errc: "invalid_grant"},
		{name: "another grant type", change: func(f url.Values) { f.Set("grant_type", "password") }, status: 400, errc: "unsupported_grant_type"},
		{name: "another redirect_uri", change: func(f url.Values) { f.Set("redirect_uri", redirect+"/x") }, status: 400, errc: "invalid_grant"},
		{name: "no redirect_uri", change: func(f url.Values) { f.Del("redirect_uri") }, status: 400, errc: "invalid_grant"},
		{name: "another state", change: func(f url.Values) { f.Set("state", "forged") }, status: 400, errc: "invalid_grant"},
		{name: "no state", change: func(f url.Values) { f.Del("state") }, status: 400, errc: "invalid_grant"},
		{name: "unknown code", change: func(f url.Values) { f.Set("code", "made-up") }, status: 400, errc: "invalid_grant"},
		{name: "code after 5 minutes", before: func(_ *testing.T, s *stack, _ string) { s.advance(5*time.Minute + time.Second) }, status: 400, errc: "invalid_grant"},
		{name: "code used twice", before: func(t *testing.T, s *stack, code string) {
			if status, body := s.post(t, "/token/", tokenForm(code)); status != http.StatusOK {
				t.Fatalf("first use: %d %v", status, body)
			}
		}, status: 400, errc: "invalid_grant"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, claveunicadev.Options{})
			code := s.code(t, authorize(), "88888888-8")
			if tc.before != nil {
				tc.before(t, s, code)
			}
			form := tokenForm(code)
			if tc.change != nil {
				tc.change(form)
			}
			status, body := s.post(t, "/token/", form)
			if status != tc.status || body["error"] != tc.errc || body["id_token"] != nil {
				t.Fatalf("token: %d %v, want %d %s", status, body, tc.status, tc.errc)
			}
			// A request that reached the code spends it, refused or not; one refused before (a
			// client that did not authenticate, an unknown code) leaves it.
			status, _ = s.post(t, "/token/", tokenForm(code))
			if spent := tc.errc == "invalid_grant" && tc.name != "unknown code"; spent != (status != http.StatusOK) {
				t.Fatalf("then the right request: %d; the code should be spent: %v", status, spent)
			}
		})
	}
	t.Run("a code within 5 minutes", func(t *testing.T) {
		s := start(t, claveunicadev.Options{})
		code := s.code(t, authorize(), "88888888-8")
		s.advance(5*time.Minute - time.Second)
		if status, body := s.post(t, "/token/", tokenForm(code)); status != http.StatusOK {
			t.Fatalf("token: %d %v", status, body)
		}
	})
}

func TestLogout(t *testing.T) {
	s := start(t, claveunicadev.Options{})
	cases := []struct {
		redirect string
		status   int
	}{
		{"http://sobre.test/sign/abc?done=1", http.StatusFound},
		{"http://other.test/", http.StatusFound},
		{"http://evil.test/", http.StatusBadRequest},
		{"javascript:alert(1)", http.StatusBadRequest},
		{"", http.StatusBadRequest},
	}
	for _, tc := range cases {
		res, err := noFollow.Get(s.srv.URL + "/api/v1/accounts/app/logout?" + url.Values{"redirect": {tc.redirect}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status || (tc.status == http.StatusFound && res.Header.Get("Location") != tc.redirect) {
			t.Errorf("logout to %q: %s to %q", tc.redirect, res.Status, res.Header.Get("Location"))
		}
	}
}

func TestNew(t *testing.T) {
	for _, issuer := range []string{"", "127.0.0.1:8091/openid", "ftp://x/openid", "http:///openid"} {
		if _, err := claveunicadev.New(issuer, nil, claveunicadev.Options{}, nil); err == nil {
			t.Errorf("New(%q) accepted", issuer)
		}
	}
}
