// Package claveunica is Sobre's relying party for Clave Única, the Chilean State's OpenID
// Connect login: the authorization URL, the code exchange, the ID token's verification (with
// go-oidc) and the userinfo call, as Clave Única's integration manual describes them:
//
//   - scope exactly "openid run name"; the token request carries client_id and client_secret in
//     the form and, besides the standard parameters, the state;
//   - the ID token is verified for its RS256 signature, issuer (exactly), audience (the client
//     id) and expiry by go-oidc, and for its nonce here (go-oidc leaves the nonce to the caller);
//   - userinfo is read with POST and a Bearer token (go-oidc's UserInfo uses GET);
//   - the person is identified by RolUnico (numero + DV, check digit verified), never by sub;
//     sub is only compared between the ID token and userinfo.
//
// Discovery is lazy: a Client may be made before its provider is up, and discovery is retried
// on each use until it succeeds once.
//
// Every failure wraps one of the sentinel errors (ErrUnreachable, ErrToken, ErrNonce,
// ErrUserInfo, ErrRUN), whose messages may be shown to the person logging in.
//
// It may import the domain (envelope), go-oidc and oauth2; nothing else of Sobre's.
package claveunica
