// Package claveunicadev is a local OpenID provider with Clave Única's shape, for development and
// tests, as the mail sink stands in for a mail relay: discovery under /openid, the
// authorization-code flow with a login page that offers the sandbox test RUNs, a token endpoint
// that takes the client's secret and the state in the form, userinfo answered to POST with
// RolUnico and name {nombres, apellidos}, and Clave Única's logout endpoint.
//
// Tokens are signed with go-jose (RS256, a key made at start). Options let tests make the
// provider misbehave in the ways a relying party must refuse.
//
// It imports no package of Sobre's: it stands for a service outside Sobre.
package claveunicadev

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Person is a sandbox identity offered on the login page.
type Person struct {
	Numero    int64
	DV        string
	Nombres   []string
	Apellidos []string
}

// Label is the RUN as Chileans write it, 44.444.444-4.
func (p Person) Label() string {
	s := fmt.Sprint(p.Numero)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	return b.String() + "-" + p.DV
}

// SandboxPeople are the test RUNs that Clave Única's sandbox accepts, with made-up names.
var SandboxPeople = []Person{
	{Numero: 44444444, DV: "4", Nombres: []string{"María", "Carmen"}, Apellidos: []string{"Del Río", "González"}},
	{Numero: 55555555, DV: "5", Nombres: []string{"José", "Miguel"}, Apellidos: []string{"Ñúñez", "Pérez"}},
	{Numero: 88888888, DV: "8", Nombres: []string{"Ana"}, Apellidos: []string{"Soto", "Lagos"}},
	{Numero: 99999999, DV: "9", Nombres: []string{"Pedro", "Pablo"}, Apellidos: []string{"Araya", "Rojas"}},
}

// Client is a registered relying party.
type Client struct {
	ID     string
	Secret string
	// RedirectPrefixes: a redirect URI must start with one of these.
	RedirectPrefixes []string
}

// Options make the provider misbehave, for tests of the relying party's refusals.
type Options struct {
	TokenIssuer   string        // sign ID tokens with this iss instead of the provider's
	TokenAudience string        // ... with this aud instead of the client id
	TokenNonce    string        // ... with this nonce instead of the one asked for
	TokenLifetime time.Duration // ID token lifetime; negative: already expired
	ForeignKey    bool          // sign with a key that is not in the JWKS
	BadCheckDigit bool          // userinfo gives a RUN with a wrong check digit
	OtherSubject  bool          // userinfo's sub differs from the ID token's
}

// Provider is the local Clave Única.
type Provider struct {
	issuer  string
	clients map[string]Client
	opts    Options
	log     *slog.Logger

	key, foreign *rsa.PrivateKey
	kid          string

	mu     sync.Mutex
	codes  map[string]grant
	tokens map[string]grant
}

type grant struct {
	clientID, redirectURI, nonce, state string
	person                              Person
	expires                             time.Time
}

// New returns a provider whose issuer is issuer (for example http://127.0.0.1:8091/openid).
func New(issuer string, clients []Client, opts Options, log *slog.Logger) (*Provider, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("claveunicadev: make a signing key: %w", err)
	}
	foreign, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("claveunicadev: make a signing key: %w", err)
	}
	p := &Provider{issuer: strings.TrimRight(issuer, "/"), clients: map[string]Client{}, opts: opts, log: log,
		key: key, foreign: foreign, kid: randomString(8), codes: map[string]grant{}, tokens: map[string]grant{}}
	for _, c := range clients {
		p.clients[c.ID] = c
	}
	return p, nil
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.issuer }

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Handler serves the provider. It expects requests at the issuer's path (/openid/...) and at
// /api/v1/accounts/app/logout.
func (p *Provider) Handler() http.Handler {
	base := "/openid"
	if u, err := url.Parse(p.issuer); err == nil && u.Path != "" {
		base = u.Path
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+base+"/.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET "+base+"/authorize/", p.loginPage)
	mux.HandleFunc("POST "+base+"/authorize/", p.login)
	mux.HandleFunc("POST "+base+"/token/", p.token)
	mux.HandleFunc("POST "+base+"/userinfo/", p.userinfo)
	mux.HandleFunc("GET "+base+"/jwks", p.jwks)
	mux.HandleFunc("GET /api/v1/accounts/app/logout", p.logout)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.issuer,
		"authorization_endpoint":                p.issuer + "/authorize/",
		"token_endpoint":                        p.issuer + "/token/",
		"userinfo_endpoint":                     p.issuer + "/userinfo/",
		"jwks_uri":                              p.issuer + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "run", "name"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
		"claims_supported":                      []string{"sub", "RolUnico", "name"},
	})
}

// authRequest is a validated authorization request.
type authRequest struct {
	ClientID, RedirectURI, State, Nonce string
}

func (p *Provider) readAuthRequest(v url.Values) (authRequest, string) {
	a := authRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"), Nonce: v.Get("nonce")}
	c, ok := p.clients[a.ClientID]
	switch {
	case !ok:
		return a, "unknown client_id"
	case v.Get("response_type") != "code":
		return a, "response_type must be code"
	case v.Get("scope") != "openid run name":
		return a, "scope must be exactly \"openid run name\""
	case a.State == "":
		return a, "state is required"
	}
	for _, prefix := range c.RedirectPrefixes {
		if strings.HasPrefix(a.RedirectURI, prefix) {
			return a, ""
		}
	}
	return a, "redirect_uri is not registered for this client"
}

var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ClaveÚnica (local)</title>
<style>
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1a1a1a}
header{background:#0f69c4;color:#fff;padding:.75rem 1rem;font-weight:700}
main{max-width:28rem;margin:0 auto;padding:1rem}
button{display:block;width:100%;margin:.5rem 0;padding:.75rem;font:inherit;font-weight:600;border:2px solid #0f69c4;border-radius:6px;background:#fff;color:#0b4f93;min-height:44px;cursor:pointer}
p.note{color:#3d4451;font-size:.9rem}
</style></head>
<body><header>ClaveÚnica · entorno local de desarrollo</header>
<main>
<h1>Ingrese con ClaveÚnica</h1>
<p>Este proveedor local reemplaza a ClaveÚnica en desarrollo y pruebas. Elija una persona de prueba:</p>
<form method="post">
<input type="hidden" name="client_id" value="{{.Req.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.Req.RedirectURI}}">
<input type="hidden" name="state" value="{{.Req.State}}">
<input type="hidden" name="nonce" value="{{.Req.Nonce}}">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="scope" value="openid run name">
{{range .People}}<button type="submit" name="run" value="{{.Numero}}-{{.DV}}">{{.Label}} · {{range .Nombres}}{{.}} {{end}}{{range .Apellidos}}{{.}} {{end}}</button>
{{end}}</form>
<p class="note">RUN del entorno de pruebas de ClaveÚnica. Nada sale de este equipo.</p>
</main></body></html>`))

func (p *Provider) loginPage(w http.ResponseWriter, r *http.Request) {
	a, problem := p.readAuthRequest(r.URL.Query())
	if problem != "" {
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Referrer-Policy", "no-referrer")
	_ = loginTemplate.Execute(w, map[string]any{"Req": a, "People": SandboxPeople})
}

func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "unreadable form", http.StatusBadRequest)
		return
	}
	a, problem := p.readAuthRequest(r.PostForm)
	if problem != "" {
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	var person *Person
	for i := range SandboxPeople {
		if fmt.Sprintf("%d-%s", SandboxPeople[i].Numero, SandboxPeople[i].DV) == r.PostForm.Get("run") {
			person = &SandboxPeople[i]
		}
	}
	if person == nil {
		http.Error(w, "unknown test RUN", http.StatusBadRequest)
		return
	}
	code := randomString(24)
	p.mu.Lock()
	p.codes[code] = grant{clientID: a.ClientID, redirectURI: a.RedirectURI, nonce: a.Nonce, state: a.State, person: *person, expires: time.Now().Add(5 * time.Minute)}
	p.mu.Unlock()
	p.log.Info("local Clave Única login", "run", person.Label(), "client", a.ClientID)
	to, _ := url.Parse(a.RedirectURI)
	q := to.Query()
	q.Set("code", code)
	q.Set("state", a.State)
	to.RawQuery = q.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	f := r.PostForm
	c, ok := p.clients[f.Get("client_id")]
	if !ok || f.Get("client_secret") != c.Secret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	if f.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code only")
		return
	}
	p.mu.Lock()
	g, found := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code")) // a code works once, even when the request fails
	p.mu.Unlock()
	switch {
	case !found || time.Now().After(g.expires):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
		return
	case g.clientID != c.ID || g.redirectURI != f.Get("redirect_uri"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "code issued to another client or redirect_uri")
		return
	case g.state != f.Get("state"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "state does not match the authorization request")
		return
	}
	now := time.Now()
	sub := fmt.Sprint(g.person.Numero % 9_999_991)
	claims := map[string]any{"iss": p.issuer, "aud": c.ID, "sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	if p.opts.TokenIssuer != "" {
		claims["iss"] = p.opts.TokenIssuer
	}
	if p.opts.TokenAudience != "" {
		claims["aud"] = p.opts.TokenAudience
	}
	if p.opts.TokenNonce != "" {
		claims["nonce"] = p.opts.TokenNonce
	}
	if p.opts.TokenLifetime != 0 {
		claims["exp"] = now.Add(p.opts.TokenLifetime).Unix()
		if p.opts.TokenLifetime < 0 {
			claims["iat"] = now.Add(2 * p.opts.TokenLifetime).Unix()
		}
	}
	key := p.key
	if p.opts.ForeignKey {
		key = p.foreign
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", p.kid))
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	idToken, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	access := randomString(24)
	g.expires = now.Add(time.Hour)
	p.mu.Lock()
	p.tokens[access] = g
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "bearer", "expires_in": 3600, "id_token": idToken})
}

func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	access, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	g, found := p.tokens[access]
	p.mu.Unlock()
	if !ok || !found || time.Now().After(g.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	person := g.person
	if p.opts.BadCheckDigit {
		person.DV = map[string]string{"0": "1"}[person.DV]
		if person.DV == "" {
			person.DV = "0"
		}
	}
	sub := fmt.Sprint(g.person.Numero % 9_999_991)
	if p.opts.OtherSubject {
		sub += "0"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sub":      sub,
		"RolUnico": map[string]any{"numero": person.Numero, "DV": person.DV, "tipo": "RUN"},
		"name":     map[string]any{"nombres": person.Nombres, "apellidos": person.Apellidos},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: string(jose.RS256), Use: "sig"}}})
}

// logout ends the (absent) session and sends the browser to redirect, as Clave Única does.
func (p *Provider) logout(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("redirect")
	u, err := url.Parse(to)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		http.Error(w, "redirect must be an http(s) URL", http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, to, http.StatusFound)
}
