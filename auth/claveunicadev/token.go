package claveunicadev

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// token redeems a code: the client's id and secret from the form, the code's client,
// redirect_uri and state compared with the authorization request's. A code is spent by its
// first use, even a refused one.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	f := r.PostForm
	c, ok := p.client(f.Get("client_id"), f.Get("client_secret"))
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	if f.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code only")
		return
	}
	now := p.opts.Now()
	p.mu.Lock()
	g, found := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code"))
	p.mu.Unlock()
	switch {
	case !found || now.After(g.expires):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
		return
	case g.clientID != c.ID:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "code issued to another client")
		return
	case g.redirectURI != f.Get("redirect_uri"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
		return
	case g.state != f.Get("state"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "state differs from the authorization request's")
		return
	}
	idToken, err := p.idToken(c, g)
	if err != nil {
		p.log.Error("local Clave Única: sign an ID token", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "could not sign the ID token")
		return
	}
	g.expires = now.Add(accessLifetime)
	access := p.remember(p.tokens, g)
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "bearer", "expires_in": int(accessLifetime.Seconds()), "id_token": idToken,
	})
}

// accessLifetime is the access token's and, by default, the ID token's lifetime.
const accessLifetime = time.Hour

// subject is the provider's sub for a person: stable, and not the RUN, as at Clave Única.
func subject(person Person) string { return fmt.Sprint(person.Numero % 9_999_991) }

// idToken signs the ID token of g for c, bent by the options.
func (p *Provider) idToken(c Client, g grant) (string, error) {
	now := p.opts.Now()
	claims := map[string]any{"iss": p.issuer, "aud": c.ID, "sub": subject(g.person), "iat": now.Unix(), "exp": now.Add(accessLifetime).Unix()}
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
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", p.kid))
	if err != nil {
		return "", fmt.Errorf("signer: %w", err)
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// userinfo answers the person of a Bearer access token, in Clave Única's shape.
func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	access, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	g, found := p.tokens[access]
	p.mu.Unlock()
	if !ok || !found || p.opts.Now().After(g.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	person := g.person
	if p.opts.BadCheckDigit {
		person.DV = map[bool]string{true: "1", false: "0"}[person.DV == "0"]
	}
	sub := subject(g.person)
	if p.opts.OtherSubject {
		sub += "0"
	}
	answer := map[string]any{
		"sub":      sub,
		"RolUnico": map[string]any{"numero": person.Numero, "DV": person.DV, "tipo": "RUN"},
		"name":     map[string]any{"nombres": person.Nombres, "apellidos": person.Apellidos},
	}
	if p.opts.NoRolUnico {
		delete(answer, "RolUnico")
	}
	writeJSON(w, http.StatusOK, answer)
}
