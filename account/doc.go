// Package account keeps the accounts of people who are asked to sign: an email address proved
// by a mailed link together with the password chosen at sign-up, a password (argon2id), an
// optional authenticator app (TOTP, with recovery codes) and passkeys (WebAuthn), which guard one
// another (factors.go), and the browser sessions signed in to them.
//
// An envelope that asks a recipient for ACCOUNT, PASSWORD, TWO_FACTOR_AUTH (as action auth) or
// PASSKEY asks that the signer be signed in to the account whose verified email is the
// recipient's, and, for the last three, that they prove it again at the moment of signing. The
// account pages (web) and the signing ceremony (ceremony) ask this package; it never decides
// what an envelope requires (envelope.RequiredProofs does).
//
// Accounts are for signers only: they are not team members and hold no API key.
//
// It may import the domain (envelope), persistence, mail and config; never api, web, ceremony or
// cmd.
package account
