// Package claveunicadev is a local OpenID provider with Clave Única's shape, for development and
// tests, as the mail sink stands in for a mail relay:
//
//   - discovery at {issuer}/.well-known/openid-configuration, keys at {issuer}/jwks;
//   - {issuer}/authorize/: a login page in Spanish offering the sandbox test RUNs, one button
//     each, in a form that POSTs the field run with the authorization request as hidden fields;
//   - {issuer}/token/: client_id and client_secret in the form, the redirect_uri and the
//     non-standard state of the authorization request, a code that works once within 5 minutes;
//     an RS256 ID token with iss, aud, sub, iat, exp and nonce;
//   - {issuer}/userinfo/: answered to POST with a Bearer token, with RolUnico and
//     name {nombres, apellidos};
//   - /api/v1/accounts/app/logout?redirect=URL, Clave Única's logout, a 302 to redirect.
//
// Tokens are signed with go-jose (a 2048-bit RSA key made at start, so tokens die with the
// process). Options make the provider misbehave in the ways a relying party must refuse; they
// are for tests only. `sobre claveunica-dev` serves it; tests use New and Handler in-process.
//
// It imports no package of Sobre's: it stands for a service outside Sobre.
package claveunicadev
