package claveunicadev

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Person is a sandbox identity offered on the login page.
type Person struct {
	Numero    int64 // the RUN's body
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

// RUN is the value of the login form's field run for p: 44444444-4.
func (p Person) RUN() string { return fmt.Sprintf("%d-%s", p.Numero, p.DV) }

// FullName is the given names then the surnames.
func (p Person) FullName() string {
	return strings.Join(append(append([]string{}, p.Nombres...), p.Apellidos...), " ")
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
	// RedirectPrefixes: a redirect URI must start with one of these, such as
	// "http://127.0.0.1:8080/" for any redirect to Sobre's public host.
	RedirectPrefixes []string
}

// Options make the provider misbehave, for tests of the relying party's refusals. The zero
// value is a well-behaved provider.
type Options struct {
	TokenIssuer   string        // sign ID tokens with this iss instead of the provider's
	TokenAudience string        // ... with this aud instead of the client id
	TokenNonce    string        // ... with this nonce instead of the one asked for
	TokenLifetime time.Duration // ID token lifetime (default an hour); negative: already expired
	ForeignKey    bool          // sign with a key that is not in the JWKS
	BadCheckDigit bool          // userinfo gives a RUN with a wrong check digit
	NoRolUnico    bool          // userinfo has no RolUnico
	OtherSubject  bool          // userinfo's sub differs from the ID token's
	Now           func() time.Time
}

// CodeLifetime is how long an authorization code may be redeemed, as at Clave Única.
const CodeLifetime = 5 * time.Minute

// Provider is the local Clave Única.
type Provider struct {
	issuer  string
	clients map[string]Client
	opts    Options
	log     *slog.Logger

	key, foreign *rsa.PrivateKey
	kid          string

	mu     sync.Mutex
	codes  map[string]grant // by authorization code
	tokens map[string]grant // by access token
}

// grant is what a code, then an access token, stands for.
type grant struct {
	clientID, redirectURI, nonce, state string
	person                              Person
	expires                             time.Time
}

// New returns a provider whose issuer is issuer (for example http://127.0.0.1:8091/openid),
// with the given registered clients. log may be nil.
func New(issuer string, clients []Client, opts Options, log *slog.Logger) (*Provider, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("claveunicadev: issuer %q is not an http(s) URL", issuer)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("claveunicadev: make the signing key: %w", err)
	}
	var foreign *rsa.PrivateKey
	if opts.ForeignKey {
		if foreign, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			return nil, fmt.Errorf("claveunicadev: make a foreign key: %w", err)
		}
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

// randomString is n random bytes in base64url: 24 bytes make Clave Única's 32-character codes.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Handler serves the provider. It expects requests at the issuer's path (/openid/...) and at
// /api/v1/accounts/app/logout.
func (p *Provider) Handler() http.Handler {
	base := "/openid"
	if u, err := url.Parse(p.issuer); err == nil {
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

// client is the registered client id with secret, compared in constant time.
func (p *Provider) client(id, secret string) (Client, bool) {
	c, ok := p.clients[id]
	if !ok || subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) != 1 {
		return Client{}, false
	}
	return c, true
}

// remember stores g under a fresh random key in m, dropping grants that have expired.
func (p *Provider) remember(m map[string]grant, g grant) string {
	k := randomString(24)
	now := p.opts.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for old, og := range m {
		if now.After(og.expires) {
			delete(m, old)
		}
	}
	m[k] = g
	return k
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

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: string(jose.RS256), Use: "sig"},
	}})
}

// logout ends the (absent) session and sends the browser to redirect, as Clave Única does.
func (p *Provider) logout(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("redirect")
	u, err := url.Parse(to)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !p.registered(to) {
		http.Error(w, "redirect debe ser una URL registrada por la aplicación", http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, to, http.StatusFound)
}

// registered tells whether uri starts with a redirect prefix of any client: Clave Única sends
// the browser back after logout only to a registered authority.
func (p *Provider) registered(uri string) bool {
	for _, c := range p.clients {
		if c.allows(uri) {
			return true
		}
	}
	return false
}

// allows tells whether uri starts with one of c's redirect prefixes.
func (c Client) allows(uri string) bool {
	for _, prefix := range c.RedirectPrefixes {
		if strings.HasPrefix(uri, prefix) {
			return true
		}
	}
	return false
}
