package account

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// errNotBuilt marks the interface while its bodies are written; it never lands.
var errNotBuilt = errors.New("account: not built yet")

// Service keeps signer accounts. WebAuthn may be nil: passkeys are then unavailable
// (CodeAuthUnavailable).
type Service struct {
	Store     *persistence.Store
	Mail      *mail.Sender
	MailHost  string // the host part of Message-IDs
	PublicURL string // links in mails: {PublicURL}/account/verify/{token}, /account/reset/{token}
	WebAuthn  *webauthn.WebAuthn
	Log       *slog.Logger
	Now       func() time.Time // time.Now when nil
}

// SignUp creates an account for email with password (CheckPassword), unverified, and mails a
// verification link (VerifyLinkTTL, single use) that leads, once used, to next (a path on
// Sobre: a signing page). An address that has a verified account already gets a mail saying so
// and nothing else changes; the answer is the same either way, so that nobody learns which
// addresses have accounts. An unverified account of the address takes the new password.
func (s *Service) SignUp(ctx context.Context, email, password string, lang envelope.Language, next string, c Client) error {
	return errNotBuilt
}

// VerifyEmail uses a mailed verification link: the account's email is verified. It returns the
// account and where the browser goes next. A used, expired or unknown link is CodeNotFound.
func (s *Service) VerifyEmail(ctx context.Context, token string, c Client) (Account, string, error) {
	return Account{}, "", errNotBuilt
}

// SignIn checks email and password and, when they are right and the email verified, signs the
// browser in: a new session whose secret is set as an HttpOnly, SameSite=Lax cookie (__Host- and
// Secure under HTTPS). A wrong email or password is CodeAuthFailed (counted against an existing
// account), an unverified email CodeEmailUnverified, a locked account CodeAccountLocked.
func (s *Service) SignIn(ctx context.Context, w http.ResponseWriter, r *http.Request, email, password string, c Client) (Account, Session, error) {
	return Account{}, Session{}, errNotBuilt
}

// Current is the account this browser is signed in to, if any; a use keeps the session alive
// (SessionIdleTTL from now).
func (s *Service) Current(ctx context.Context, r *http.Request) (Account, Session, bool) {
	return Account{}, Session{}, false
}

// SessionLive reports whether the session with public id is signed in now, and to which account.
func (s *Service) SessionLive(ctx context.Context, id string) (Account, bool, error) {
	return Account{}, false, errNotBuilt
}

// SignOut ends this browser's session and clears its cookie.
func (s *Service) SignOut(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	return errNotBuilt
}

// RequestReset mails a password-reset link (ResetLinkTTL, single use) to email when it has an
// account, leading to next afterwards; the answer is the same when it has none.
func (s *Service) RequestReset(ctx context.Context, email string, lang envelope.Language, next string, c Client) error {
	return errNotBuilt
}

// ResetPassword uses a reset link: the account takes password (CheckPassword), its email counts
// as verified (the link proved it), every session of it ends, and its lock is lifted. It returns
// the account and where the browser goes next.
func (s *Service) ResetPassword(ctx context.Context, token, password string, c Client) (Account, string, error) {
	return Account{}, "", errNotBuilt
}

// ConfirmPassword checks the password of a signed-in account again (PASSWORD action auth): nil
// when right, CodeAuthFailed when wrong (counted), CodeAccountLocked while locked.
func (s *Service) ConfirmPassword(ctx context.Context, a Account, password string, c Client) error {
	return errNotBuilt
}

// BeginTOTP starts enrolling an authenticator app: a new secret, kept sealed and not in use until
// EnableTOTP confirms it. An account with an app enabled already must disable it first.
func (s *Service) BeginTOTP(ctx context.Context, a Account) (TOTPEnrolment, error) {
	return TOTPEnrolment{}, errNotBuilt
}

// EnableTOTP confirms the enrolment with a code from the app and returns RecoveryCodes
// single-use recovery codes, shown once.
func (s *Service) EnableTOTP(ctx context.Context, a Account, code string, c Client) ([]string, error) {
	return nil, errNotBuilt
}

// DisableTOTP turns the app off, proved by a current code or a recovery code.
func (s *Service) DisableTOTP(ctx context.Context, a Account, code string, c Client) error {
	return errNotBuilt
}

// VerifyTOTP checks a code of the account's app (RFC 6238, 30 s steps, one step either side), or
// one of its recovery codes. A code is accepted once: a step at or before the last accepted one
// is refused. Wrong: CodeAuthFailed (counted); no app: CodeAuthNotEnrolled.
func (s *Service) VerifyTOTP(ctx context.Context, a Account, code string, c Client) error {
	return errNotBuilt
}

// BeginPasskeyRegistration returns the options (JSON, for navigator.credentials.create) of a new
// passkey for the account, the challenge bound to session sess.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, a Account, sess Session) ([]byte, error) {
	return nil, errNotBuilt
}

// FinishPasskeyRegistration checks the browser's answer (the PublicKeyCredential as JSON) against
// the challenge of sess and keeps the passkey under name.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, a Account, sess Session, name string, response []byte, c Client) (Passkey, error) {
	return Passkey{}, errNotBuilt
}

// RemovePasskey removes one of the account's passkeys.
func (s *Service) RemovePasskey(ctx context.Context, a Account, id int64) error {
	return errNotBuilt
}

// BeginPasskeyAssertion returns the options (JSON, for navigator.credentials.get) of an
// assertion by one of the account's passkeys, user verification required, the challenge bound to
// sess. No passkey: CodeAuthNotEnrolled.
func (s *Service) BeginPasskeyAssertion(ctx context.Context, a Account, sess Session) ([]byte, error) {
	return nil, errNotBuilt
}

// FinishPasskeyAssertion checks the browser's assertion against the challenge of sess and the
// account's passkeys and returns the credential id (base64url) it was made with. Wrong:
// CodeAuthFailed (counted).
func (s *Service) FinishPasskeyAssertion(ctx context.Context, a Account, sess Session, response []byte, c Client) (string, error) {
	return "", errNotBuilt
}

// Overview is what the account's page shows.
func (s *Service) Overview(ctx context.Context, a Account) (Overview, error) {
	return Overview{}, errNotBuilt
}
