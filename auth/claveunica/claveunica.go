package claveunica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Scope is the scope Clave Única certifies.
const Scope = "openid run name"

// Errors of a login, for errors.Is. Their messages are fit for the person logging in; the
// wrapped detail is for the logs.
var (
	// ErrUnreachable: the provider did not answer (discovery, token, keys or userinfo), or
	// answered with a server error. Trying again later may work.
	ErrUnreachable = errors.New("ClaveÚnica cannot be reached right now; try again in a moment")
	// ErrToken: the token request was refused (a wrong, reused or expired code, a wrong state)
	// or the ID token failed verification (signature, issuer, audience, expiry).
	ErrToken = errors.New("ClaveÚnica's answer could not be verified")
	// ErrNonce: the ID token's nonce is not the one of this login, or none was expected.
	ErrNonce = errors.New("ClaveÚnica's answer belongs to another login")
	// ErrUserInfo: userinfo was refused, unreadable, or about another subject than the ID token.
	ErrUserInfo = errors.New("ClaveÚnica did not give your identity")
	// ErrRUN: userinfo has no RolUnico of type RUN, or its check digit is wrong.
	ErrRUN = errors.New("ClaveÚnica did not give a valid RUN")
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
// later uses until it succeeds, so Sobre may start before its provider. A Client is safe for
// concurrent use.
type Client struct {
	cfg  Config
	http *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

// New returns a Client for cfg. It does not contact the provider.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, http: cfg.HTTPClient}
	if c.http == nil {
		c.http = &http.Client{Timeout: 10 * time.Second}
	}
	return c
}

// discover returns the provider, fetching its discovery document unless an earlier call did.
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

// AuthCodeURL is where to send the browser to log in: response_type=code, the scope, the
// redirect URI, state and nonce. It fails with ErrUnreachable while discovery fails.
func (c *Client) AuthCodeURL(ctx context.Context, state, nonce string) (string, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return "", err
	}
	return c.oauth(p).AuthCodeURL(state, oidc.Nonce(nonce)), nil
}

// Exchange redeems the code of a callback: the token request (with the state, as Clave Única
// asks), the ID token verified (RS256 signature, issuer, audience, expiry) and its nonce
// compared, then userinfo read with POST, its sub compared with the ID token's, and the RUN's
// check digit verified.
func (c *Client) Exchange(ctx context.Context, code, state, nonce string) (Person, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return Person{}, err
	}
	octx := oidc.ClientContext(ctx, c.http)
	tok, err := c.oauth(p).Exchange(octx, code, oauth2.SetAuthURLParam("state", state))
	if err != nil {
		return Person{}, classify(ErrToken, "token request", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Person{}, fmt.Errorf("%w: no id_token in the token response", ErrToken)
	}
	verifier := p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID, SupportedSigningAlgs: []string{oidc.RS256}})
	idt, err := verifier.Verify(octx, raw)
	if err != nil {
		return Person{}, classify(ErrToken, "ID token", err)
	}
	if nonce == "" || idt.Nonce != nonce {
		return Person{}, fmt.Errorf("%w: the ID token's nonce is not this login's", ErrNonce)
	}
	info, err := c.userInfo(ctx, p.UserInfoEndpoint(), tok.AccessToken)
	if err != nil {
		return Person{}, err
	}
	if info.Sub != idt.Subject {
		return Person{}, fmt.Errorf("%w: userinfo is about subject %q, the ID token about %q", ErrUserInfo, info.Sub, idt.Subject)
	}
	return info.person()
}

// classify wraps err in ErrUnreachable when the provider could not be reached, else in refused.
func classify(refused error, what string, err error) error {
	var ue *url.Error
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 500:
		return fmt.Errorf("%w: %s: %w", ErrUnreachable, what, err)
	case errors.As(err, &re):
		return fmt.Errorf("%w: %s: %w", refused, what, err)
	case errors.As(err, &ue):
		return fmt.Errorf("%w: %s: %w", ErrUnreachable, what, err)
	}
	return fmt.Errorf("%w: %s: %w", refused, what, err)
}

// userInfo reads the userinfo endpoint with POST and the access token as Bearer, as Clave Única
// documents it.
func (c *Client) userInfo(ctx context.Context, endpoint, accessToken string) (userInfo, error) {
	if endpoint == "" {
		return userInfo{}, fmt.Errorf("%w: the provider names no userinfo endpoint", ErrUserInfo)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return userInfo{}, fmt.Errorf("%w: userinfo request: %w", ErrUserInfo, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return userInfo{}, fmt.Errorf("%w: userinfo: %w", ErrUnreachable, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxUserInfo+1))
	switch {
	case err != nil:
		return userInfo{}, fmt.Errorf("%w: read userinfo: %w", ErrUnreachable, err)
	case res.StatusCode >= 500:
		return userInfo{}, fmt.Errorf("%w: userinfo answered %s", ErrUnreachable, res.Status)
	case res.StatusCode != http.StatusOK:
		return userInfo{}, fmt.Errorf("%w: userinfo answered %s", ErrUserInfo, res.Status)
	case len(body) > maxUserInfo:
		return userInfo{}, fmt.Errorf("%w: userinfo is larger than %d bytes", ErrUserInfo, maxUserInfo)
	}
	return parseUserInfo(body)
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
