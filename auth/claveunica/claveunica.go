// Package claveunica is Sobre's relying party for Clave Única, the Chilean State's OpenID
// Connect login: the authorization URL, the code exchange, the ID token's verification (with
// go-oidc) and the userinfo call, as Clave Única's integration manual describes them:
//
//   - scope exactly "openid run name"; the token request carries client_id and client_secret in
//     the form and, besides the standard parameters, the state;
//   - userinfo is read with POST (go-oidc's UserInfo uses GET);
//   - the person is identified by RolUnico (numero + DV, check digit verified), never by sub;
//     sub is only compared between the ID token and userinfo.
//
// go-oidc does not check the nonce; Exchange does. It may import the domain (envelope) and
// go-oidc/oauth2; nothing of Sobre's other packages.
package claveunica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/sobre-sign/sobre/envelope"
)

// Scope is the scope Clave Única certifies.
const Scope = "openid run name"

// Errors of a login, for errors.Is. Their messages are fit for the person logging in.
var (
	ErrUnreachable = errors.New("ClaveÚnica cannot be reached right now; try again in a moment")
	ErrToken       = errors.New("ClaveÚnica's answer could not be verified")
	ErrNonce       = errors.New("ClaveÚnica's answer belongs to another login")
	ErrUserInfo    = errors.New("ClaveÚnica did not give your identity")
	ErrRUN         = errors.New("ClaveÚnica gave a RUN whose check digit is wrong")
)

// Config is a relying party's registration with Clave Única.
type Config struct {
	IssuerURL    string // https://accounts.claveunica.gob.cl/openid
	ClientID     string
	ClientSecret string
	RedirectURL  string // {SOBRE_PUBLIC_URL}/auth/claveunica/callback
	// LogoutURL is Clave Única's logout endpoint, which its discovery document does not name
	// (https://accounts.claveunica.gob.cl/api/v1/accounts/app/logout); empty: no logout.
	LogoutURL  string
	HTTPClient *http.Client // nil: a client with a 10 s timeout
}

// Person is who Clave Única vouches for.
type Person struct {
	RUN        string // normalised, 12345678-5
	GivenNames []string
	Surnames   []string
	Subject    string // Clave Única's sub; not an identifier of the person
}

// FullName is the given names then the surnames.
func (p Person) FullName() string {
	return strings.TrimSpace(strings.Join(append(append([]string{}, p.GivenNames...), p.Surnames...), " "))
}

// Client talks to one Clave Única issuer. Discovery happens on first use and is retried on
// later uses until it succeeds, so Sobre may start before its provider.
type Client struct {
	cfg  Config
	http *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, http: cfg.HTTPClient}
	if c.http == nil {
		c.http = &http.Client{Timeout: 10 * time.Second}
	}
	return c
}

func (c *Client) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, c.http), c.cfg.IssuerURL)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery at %s: %w", ErrUnreachable, c.cfg.IssuerURL, err)
	}
	c.provider = p
	return p, nil
}

func (c *Client) oauth(p *oidc.Provider) *oauth2.Config {
	ep := p.Endpoint()
	ep.AuthStyle = oauth2.AuthStyleInParams
	return &oauth2.Config{ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, RedirectURL: c.cfg.RedirectURL,
		Endpoint: ep, Scopes: strings.Fields(Scope)}
}

// AuthCodeURL is where to send the browser to log in, with state and nonce.
func (c *Client) AuthCodeURL(ctx context.Context, state, nonce string) (string, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return "", err
	}
	return c.oauth(p).AuthCodeURL(state, oidc.Nonce(nonce)), nil
}

// Exchange redeems the code of a callback: the token request (with the state, as Clave Única
// asks), the ID token verified (signature, issuer, audience, expiry) and its nonce compared,
// then userinfo read with POST, its sub compared with the ID token's, and the RUN's check digit
// verified.
func (c *Client) Exchange(ctx context.Context, code, state, nonce string) (Person, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return Person{}, err
	}
	octx := oidc.ClientContext(ctx, c.http)
	tok, err := c.oauth(p).Exchange(octx, code, oauth2.SetAuthURLParam("state", state))
	if err != nil {
		return Person{}, fmt.Errorf("%w: token request: %w", ErrToken, err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Person{}, fmt.Errorf("%w: no id_token in the token response", ErrToken)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID}).Verify(octx, raw)
	if err != nil {
		return Person{}, fmt.Errorf("%w: %w", ErrToken, err)
	}
	if nonce == "" || idt.Nonce != nonce {
		return Person{}, ErrNonce
	}
	info, err := c.userInfo(ctx, p.UserInfoEndpoint(), tok.AccessToken)
	if err != nil {
		return Person{}, err
	}
	if info.Sub != idt.Subject {
		return Person{}, fmt.Errorf("%w: userinfo is about another subject than the ID token", ErrUserInfo)
	}
	return info.person()
}

// userInfo is Clave Única's userinfo answer.
type userInfo struct {
	Sub      string `json:"sub"`
	RolUnico *struct {
		Numero json.Number `json:"numero"`
		DV     string      `json:"DV"`
		Tipo   string      `json:"tipo"`
	} `json:"RolUnico"`
	Name struct {
		Nombres   []string `json:"nombres"`
		Apellidos []string `json:"apellidos"`
	} `json:"name"`
}

func (c *Client) userInfo(ctx context.Context, endpoint, accessToken string) (userInfo, error) {
	var info userInfo
	if endpoint == "" {
		return info, fmt.Errorf("%w: the provider names no userinfo endpoint", ErrUserInfo)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return info, fmt.Errorf("%w: %w", ErrUserInfo, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	res, err := c.http.Do(req)
	if err != nil {
		return info, fmt.Errorf("%w: userinfo: %w", ErrUnreachable, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if err != nil {
		return info, fmt.Errorf("%w: read userinfo: %w", ErrUserInfo, err)
	}
	if res.StatusCode != http.StatusOK {
		return info, fmt.Errorf("%w: userinfo answered %s", ErrUserInfo, res.Status)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&info); err != nil {
		return info, fmt.Errorf("%w: userinfo is not JSON: %w", ErrUserInfo, err)
	}
	return info, nil
}

func (u userInfo) person() (Person, error) {
	if u.RolUnico == nil || u.RolUnico.Numero == "" || u.RolUnico.DV == "" {
		return Person{}, fmt.Errorf("%w: no RolUnico in userinfo", ErrUserInfo)
	}
	if u.RolUnico.Tipo != "" && u.RolUnico.Tipo != "RUN" {
		return Person{}, fmt.Errorf("%w: RolUnico of type %q, not RUN", ErrUserInfo, u.RolUnico.Tipo)
	}
	n, err := strconv.ParseInt(u.RolUnico.Numero.String(), 10, 64)
	if err != nil || n < 1 || n > 99_999_999 {
		return Person{}, fmt.Errorf("%w: RolUnico.numero %q", ErrRUN, u.RolUnico.Numero)
	}
	run, err := envelope.NormalizeRUT(strconv.FormatInt(n, 10) + "-" + u.RolUnico.DV)
	if err != nil {
		return Person{}, fmt.Errorf("%w: %d-%s", ErrRUN, n, u.RolUnico.DV)
	}
	return Person{RUN: run, GivenNames: u.Name.Nombres, Surnames: u.Name.Apellidos, Subject: u.Sub}, nil
}

// LogoutURL is where to end the Clave Única session before returning to redirect, or "" when
// no logout URL is configured. Clave Única's manual asks one-shot flows, such as signing, to log
// out right after userinfo, so that the next signature asks for the password again.
func (c *Client) LogoutURL(redirect string) string {
	if c.cfg.LogoutURL == "" {
		return ""
	}
	u, err := url.Parse(c.cfg.LogoutURL)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("redirect", redirect)
	u.RawQuery = q.Encode()
	return u.String()
}
