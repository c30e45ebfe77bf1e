package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

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

// MailsPerHour is how many mails of one kind one account's address is sent in an hour at most:
// sign-up mails (a verification link, or the notice that the address has an account already)
// and reset mails are counted apart, so that sign-ups asked by anybody never spend the
// reset mails of the mailbox's owner. More requests are answered the same, and mail nothing.
const MailsPerHour = 5

// maxUserAgent is how much of a User-Agent header is recorded.
const maxUserAgent = 512

// Session-cookie names: __Host- under HTTPS (Secure, Path=/, no Domain: no other host can set
// it), the plain name on plain HTTP, where the prefix cannot be used.
const (
	CookieName       = "sobre_account"
	SecureCookieName = "__Host-" + CookieName
)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// ClientOf is who is asking in r: the address chi's ClientIP middleware found (the api's
// withClientIP), else the connection's peer, and the User-Agent.
func ClientOf(r *http.Request) Client {
	ip := middleware.GetClientIP(r.Context())
	if ip == "" {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		ip = host
	}
	return Client{IP: ip, UserAgent: r.UserAgent()}
}

// event is an account event of type t caused by c.
func (c Client) event(t string) persistence.AccountEvent {
	ua := c.UserAgent
	if len(ua) > maxUserAgent {
		ua = ua[:maxUserAgent]
		for !utf8.ValidString(ua) {
			ua = ua[:len(ua)-1]
		}
	}
	return persistence.AccountEvent{Type: t, IP: c.IP, UserAgent: ua}
}

func toAccount(a persistence.SignerAccount) Account {
	lang := envelope.Language(a.Language)
	if lang != envelope.LanguageSpanish {
		lang = envelope.LanguageEnglish
	}
	return Account{ID: a.ID, Email: a.Email, EmailVerified: a.EmailVerifiedAt != nil, TOTPEnabled: a.TOTPEnabledAt != nil,
		Language: lang, CreatedAt: a.CreatedAt}
}

func toSession(s persistence.AccountSession) Session {
	return Session{ID: s.ID, AccountID: s.AccountID, CreatedAt: s.CreatedAt, LastSeenAt: s.LastSeenAt, IP: s.IP, UserAgent: s.UserAgent,
		FactorConfirmedAt: s.FactorConfirmedAt}
}

// randomSecret is n random bytes, base64url.
func randomSecret(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func sha(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// Errors of a failed proof. None says which part was wrong, nor whether the address has an
// account.
var (
	errSignInFailed   = envelope.Errorf(envelope.CodeAuthFailed, "The email address or the password is not right")
	errPasswordWrong  = envelope.Errorf(envelope.CodeAuthFailed, "The password is not right")
	errCodeWrong      = envelope.Errorf(envelope.CodeAuthFailed, "That code is not right, or was used already")
	errPasskeyFailed  = envelope.Errorf(envelope.CodeAuthFailed, "The passkey's answer could not be verified")
	errEmailUnproved  = envelope.Errorf(envelope.CodeEmailUnverified, "Confirm your email address first: open the link we mailed you, or ask for a new one by signing up again")
	errLinkNotWorking = envelope.Errorf(envelope.CodeNotFound, "This link does not work: it was used already or has expired")
	errNoMail         = envelope.Errorf(envelope.CodeUnavailable, "Mail is not configured: account links cannot be sent")
)

// lockedError is the answer while proofs of kind are locked until until.
func lockedError(kind persistence.AccountFailures, until, now time.Time) error {
	wait := until.Sub(now)
	if wait < time.Second {
		wait = time.Second
	}
	minutes := int((wait + time.Minute - 1) / time.Minute)
	unit := "minutes"
	if minutes == 1 {
		unit = "minute"
	}
	what := "no password"
	if kind == factorFailures {
		what = "no authenticator code, recovery code or passkey"
	}
	return &envelope.Error{Code: envelope.CodeAccountLocked, RetryAfter: wait,
		Message: fmt.Sprintf("Too many failed attempts: this account takes %s for %d more %s", what, minutes, unit)}
}

// Which count a failure goes to: wrong passwords, or wrong codes and failed passkey assertions.
const (
	passwordFailures = persistence.PasswordFailures
	factorFailures   = persistence.FactorFailures
)

// attempt counts an attempt to prove account id with a secret of kind before the secret is tested
// (persistence.Store.ReserveAccountAttempt): while proofs of kind are locked it is refused with
// CodeAccountLocked (the lock of the other kind does not matter). The caller then calls failed,
// or clears the count of kind on success.
func (s *Service) attempt(ctx context.Context, id int64, kind persistence.AccountFailures) error {
	now := s.now()
	ok, until, err := s.Store.ReserveAccountAttempt(ctx, id, kind, MaxFailures, now)
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case until != nil:
		return lockedError(kind, *until, now)
	default:
		// MaxFailures attempts are being tested at this moment: kind is as good as locked.
		return lockedError(kind, now.Add(LockDuration), now)
	}
}

// failed records a failed attempt of kind on account id (ev) and answers wrong, or
// CodeAccountLocked when this failure locked proofs of kind.
func (s *Service) failed(ctx context.Context, id int64, kind persistence.AccountFailures, ev persistence.AccountEvent, wrong error) error {
	now := s.now()
	until, err := s.Store.RecordAccountFailure(ctx, id, kind, ev, MaxFailures, LockDuration, now)
	if err != nil {
		return err
	}
	if until != nil {
		s.log().WarnContext(ctx, "signer account locked after too many failures", "account", id, "proofs", kind, "event", ev.Type, "until", until)
		return lockedError(kind, *until, now)
	}
	return wrong
}

// succeeded clears account id's count kind of failures after a right secret of that kind; the
// other count stays: a right password never clears the wrong codes.
func (s *Service) succeeded(ctx context.Context, id int64, kind persistence.AccountFailures) error {
	return s.Store.ClearAccountFailures(ctx, id, kind)
}

// checkPassword tests password against account a, counted against its lock: it returns the
// account's password hash as it now stands (rehashed under stronger parameters, perhaps) when
// right, and the error for a wrong one (wrong, or CodeAccountLocked) after recording ev.
func (s *Service) checkPassword(ctx context.Context, a persistence.SignerAccount, password string, ev persistence.AccountEvent, wrong error) (string, error) {
	if err := s.attempt(ctx, a.ID, passwordFailures); err != nil {
		return "", err
	}
	ok, err := VerifyPassword(ctx, a.PasswordHash, password)
	if err != nil {
		return "", fmt.Errorf("verify the password of account %d: %w", a.ID, err)
	}
	if !ok {
		return "", s.failed(ctx, a.ID, passwordFailures, ev, wrong)
	}
	if needsRehash(a.PasswordHash) {
		if h, err := HashPassword(ctx, password); err == nil {
			if err := s.Store.SetSignerPasswordHash(ctx, a.ID, a.PasswordHash, h); err != nil {
				s.log().WarnContext(ctx, "rehash a password", "account", a.ID, "err", err)
			} else {
				return h, nil
			}
		}
	}
	return a.PasswordHash, nil
}

// SignUp creates an account for email with password (CheckPassword), unverified, and mails a
// verification link (VerifyLinkTTL, single use) that leads, once used, to next (a path on
// Sobre: a signing page). An address that has a verified account already gets a mail saying so
// and nothing else changes; the answer is the same either way, so that nobody learns which
// addresses have accounts. An unverified account of the address takes the new password, and
// only the newest link works. An address sent MailsPerHour sign-up mails in the last hour is
// answered the same, and nothing changes or is mailed; reset mails are counted apart, so that
// sign-ups never keep the owner of the mailbox from a reset (RequestReset), which verifies an
// unverified account with the owner's password. The notice that the address has an account
// already carries no next: who signed up chose it, not the account's holder.
func (s *Service) SignUp(ctx context.Context, email, password string, lang envelope.Language, next string, c Client) error {
	var p envelope.Problems
	if !envelope.ValidEmail(email) {
		p.Add("email", "must be one email address")
	}
	checkPassword(&p, "password", email, password)
	if err := p.Err(); err != nil {
		return err
	}
	if s.Mail == nil {
		return errNoMail
	}
	if lang != envelope.LanguageSpanish {
		lang = envelope.LanguageEnglish
	}
	next = CleanNext(next)
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	// An address mailed too often already changes nothing: its earlier links stay those of the
	// password they were mailed for.
	switch existing, err := s.Store.SignerAccountByEmail(ctx, email); {
	case err == nil:
		if ok, err := s.mayMail(ctx, existing.ID, persistence.AccountEventSignUp, now); err != nil || !ok {
			return err
		}
	case !envelope.IsNotFound(err):
		return err
	}
	a, created, err := s.Store.UpsertSignerAccount(ctx, email, hash, string(lang), now)
	if err != nil {
		return err
	}
	ev := c.event(persistence.AccountEventSignUp)
	ev.Data = map[string]any{"created": created, "verified": a.EmailVerifiedAt != nil}
	if err := s.Store.RecordAccountEvent(ctx, a.ID, ev, now); err != nil {
		return err
	}
	if a.EmailVerifiedAt != nil {
		return s.mailAccountExists(ctx, a, lang)
	}
	return s.mailLink(ctx, a, lang, persistence.AccountLinkVerify, next, now)
}

// mayMail reports whether account id's address may be sent another mail of the kind that event
// records now (persistence.AccountEventSignUp: a sign-up mail; AccountEventResetRequested: a
// reset mail): at most MailsPerHour of each kind. A refusal is logged, and answered like a mail
// sent.
func (s *Service) mayMail(ctx context.Context, id int64, event string, now time.Time) (bool, error) {
	n, err := s.Store.CountAccountEvents(ctx, id, []string{event}, now.Add(-time.Hour))
	if err != nil {
		return false, err
	}
	if n >= MailsPerHour {
		s.log().WarnContext(ctx, "account mail not sent: too many in the last hour", "account", id, "kind", event)
		return false, nil
	}
	return true, nil
}

// LinkEmail is the address of the account whose mailed verification link token is, while the
// link works; it changes nothing and does not use the link, so that the page a link opens (or a
// mail scanner's GET of it) only shows which address it is for. A used, expired or unknown link
// is CodeNotFound.
func (s *Service) LinkEmail(ctx context.Context, token string) (string, error) {
	if token == "" || len(token) > 100 {
		return "", errLinkNotWorking
	}
	a, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkVerify, s.now())
	if envelope.IsNotFound(err) {
		return "", errLinkNotWorking
	}
	if err != nil {
		return "", err
	}
	return a.Email, nil
}

// VerifyEmail uses a mailed verification link together with the account's password: only
// someone who holds both the mailbox and the password chosen at sign-up proves the address, so
// that whoever signs up first for someone else's address gains nothing when the owner (or a mail
// scanner) opens the link. When the password is right, the email is verified, the link is spent
// and the browser is signed in (a new session, as SignIn makes); it returns the account, the
// session and where the browser goes next (the link's next). A wrong password is counted like a
// wrong sign-in (CodeAuthFailed, or CodeAccountLocked) and leaves the link working. A used,
// expired or unknown link, or one whose account took another password (a later sign-up)
// meanwhile, is CodeNotFound.
func (s *Service) VerifyEmail(ctx context.Context, w http.ResponseWriter, r *http.Request, token, password string, c Client) (Account, Session, string, error) {
	if token == "" || len(token) > 100 {
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if password == "" || utf8.RuneCountInString(password) > MaxPasswordLength {
		var p envelope.Problems
		p.Add("password", "is required, at most %d characters", MaxPasswordLength)
		return Account{}, Session{}, "", p.Err()
	}
	stored, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkVerify, s.now())
	if envelope.IsNotFound(err) {
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, Session{}, "", err
	}
	ev := c.event(persistence.AccountEventSignInFailed)
	ev.Data = map[string]any{"link": persistence.AccountLinkVerify}
	hash, err := s.checkPassword(ctx, stored, password, ev, errPasswordWrong)
	if err != nil {
		return Account{}, Session{}, "", err
	}
	a, next, err := s.Store.VerifySignerEmail(ctx, sha(token), hash, c.event(persistence.AccountEventEmailVerified), s.now())
	if envelope.IsNotFound(err) {
		if err := s.succeeded(ctx, stored.ID, passwordFailures); err != nil {
			return Account{}, Session{}, "", err
		}
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, Session{}, "", err
	}
	sess, err := s.startSession(ctx, w, r, a, c)
	if err != nil {
		return Account{}, Session{}, "", err
	}
	return toAccount(a), sess, next, nil
}

// cookieName is the session cookie's name for this service's PublicURL.
func (s *Service) cookieName() string {
	if config.ServedOverHTTPS(s.PublicURL) {
		return SecureCookieName
	}
	return CookieName
}

// SignIn checks email and password and, when they are right and the email verified, signs the
// browser in: a new session whose secret is set as an HttpOnly, SameSite=Lax cookie (__Host- and
// Secure under HTTPS). A wrong email or password is CodeAuthFailed (counted against an existing
// account), an unverified email CodeEmailUnverified, a locked account CodeAccountLocked. An
// address without an account costs the same password hashing as one with. A session the browser
// held already ends.
func (s *Service) SignIn(ctx context.Context, w http.ResponseWriter, r *http.Request, email, password string, c Client) (Account, Session, error) {
	email = strings.TrimSpace(email)
	var p envelope.Problems
	if email == "" {
		p.Add("email", "is required")
	}
	if password == "" {
		p.Add("password", "is required")
	} else if utf8.RuneCountInString(password) > MaxPasswordLength {
		p.Add("password", "must be at most %d characters long", MaxPasswordLength)
	}
	if err := p.Err(); err != nil {
		return Account{}, Session{}, err
	}
	a, err := s.Store.SignerAccountByEmail(ctx, email)
	if envelope.IsNotFound(err) {
		spendVerification(ctx, password)
		return Account{}, Session{}, errSignInFailed
	}
	if err != nil {
		return Account{}, Session{}, err
	}
	if _, err := s.checkPassword(ctx, a, password, c.event(persistence.AccountEventSignInFailed), errSignInFailed); err != nil {
		return Account{}, Session{}, err
	}
	if a.EmailVerifiedAt == nil {
		if err := s.succeeded(ctx, a.ID, passwordFailures); err != nil {
			return Account{}, Session{}, err
		}
		return Account{}, Session{}, errEmailUnproved
	}
	sess, err := s.startSession(ctx, w, r, a, c)
	if err != nil {
		return Account{}, Session{}, err
	}
	return toAccount(a), sess, nil
}

// startSession signs the browser of r in to account a, its password just proved: a new session
// whose secret is set as the cookie, the account's count of wrong passwords cleared. A session
// the browser held already (perhaps of another account) ends: one browser, one session.
func (s *Service) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request, a persistence.SignerAccount, c Client) (Session, error) {
	if prev := s.sessionSecret(r); prev != "" {
		if _, err := s.Store.EndAccountSession(ctx, sha(prev), c.event(persistence.AccountEventSignOut), s.now()); err != nil {
			return Session{}, err
		}
	}
	secret, err := randomSecret(32)
	if err != nil {
		return Session{}, err
	}
	sess, err := s.Store.StartAccountSession(ctx, sha(secret), a.ID, "PASSWORD", c.event(persistence.AccountEventSignIn), s.now())
	if err != nil {
		return Session{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: secret, Path: "/", HttpOnly: true,
		Secure: config.ServedOverHTTPS(s.PublicURL), SameSite: http.SameSiteLaxMode})
	return toSession(sess), nil
}

// sessionSecret is the session cookie's value in r, "" without one.
func (s *Service) sessionSecret(r *http.Request) string {
	ck, err := r.Cookie(s.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return ""
	}
	return ck.Value
}

// Current is the account this browser is signed in to, if any; a use keeps the session alive
// (SessionIdleTTL from now).
func (s *Service) Current(ctx context.Context, r *http.Request) (Account, Session, bool) {
	secret := s.sessionSecret(r)
	if secret == "" {
		return Account{}, Session{}, false
	}
	now := s.now()
	sess, a, err := s.Store.LiveAccountSession(ctx, sha(secret), now.Add(-SessionIdleTTL))
	if err != nil {
		if !envelope.IsNotFound(err) {
			s.log().WarnContext(ctx, "read an account session", "err", err)
		}
		return Account{}, Session{}, false
	}
	if now.Sub(sess.LastSeenAt) >= time.Minute {
		if err := s.Store.TouchAccountSession(ctx, sha(secret), now); err != nil {
			s.log().WarnContext(ctx, "touch an account session", "err", err)
		} else {
			sess.LastSeenAt = now
		}
	}
	return toAccount(a), toSession(sess), true
}

// SessionLive reports whether the session with public id is signed in now, and to which account.
func (s *Service) SessionLive(ctx context.Context, id string) (Account, bool, error) {
	if id == "" {
		return Account{}, false, nil
	}
	_, a, err := s.Store.LiveAccountSessionByID(ctx, id, s.now().Add(-SessionIdleTTL))
	if envelope.IsNotFound(err) {
		return Account{}, false, nil
	}
	if err != nil {
		return Account{}, false, err
	}
	return toAccount(a), true, nil
}

// SignOut ends this browser's session and clears its cookie. The SIGN_OUT event names the
// client as ClientOf(r) sees it.
func (s *Service) SignOut(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: config.ServedOverHTTPS(s.PublicURL), SameSite: http.SameSiteLaxMode})
	secret := s.sessionSecret(r)
	if secret == "" {
		return nil
	}
	_, err := s.Store.EndAccountSession(ctx, sha(secret), ClientOf(r).event(persistence.AccountEventSignOut), s.now())
	return err
}

// RequestReset mails a password-reset link (ResetLinkTTL, single use) to email when it has an
// account, verified or not, leading to next afterwards; the answer is the same when it has none,
// or when the address was sent MailsPerHour reset mails in the last hour (nothing is mailed
// then). Sign-up mails are counted apart and never hold a reset back. A newer reset link ends the
// older ones, so the newest mail's link always works.
func (s *Service) RequestReset(ctx context.Context, email string, lang envelope.Language, next string, c Client) error {
	email = strings.TrimSpace(email)
	if !envelope.ValidEmail(email) {
		var p envelope.Problems
		p.Add("email", "must be one email address")
		return p.Err()
	}
	if s.Mail == nil {
		return errNoMail
	}
	a, err := s.Store.SignerAccountByEmail(ctx, email)
	if envelope.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if lang != envelope.LanguageSpanish && lang != envelope.LanguageEnglish {
		lang = toAccount(a).Language
	}
	now := s.now()
	if ok, err := s.mayMail(ctx, a.ID, persistence.AccountEventResetRequested, now); err != nil || !ok {
		return err
	}
	if err := s.Store.RecordAccountEvent(ctx, a.ID, c.event(persistence.AccountEventResetRequested), now); err != nil {
		return err
	}
	return s.mailLink(ctx, a, lang, persistence.AccountLinkReset, CleanNext(next), now)
}

// ResetPassword uses a reset link: the account takes password (CheckPassword), its email counts
// as verified (the link proved it; an unverified account is verified so, with the password of
// whoever holds the mailbox), every session of it ends, its other links stop working, and the lock
// on its password is lifted; the lock on its second factors stays (only time lifts it). It
// returns the account and where the browser goes next. A password CheckPassword refuses leaves
// the link working.
func (s *Service) ResetPassword(ctx context.Context, token, password string, c Client) (Account, string, error) {
	if token == "" || len(token) > 100 {
		return Account{}, "", errLinkNotWorking
	}
	a, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkReset, s.now())
	if envelope.IsNotFound(err) {
		return Account{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, "", err
	}
	if err := CheckPassword(a.Email, password); err != nil {
		return Account{}, "", err
	}
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return Account{}, "", err
	}
	a, next, err := s.Store.ResetSignerPassword(ctx, sha(token), hash, c.event(persistence.AccountEventPasswordReset), s.now())
	if envelope.IsNotFound(err) {
		return Account{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, "", err
	}
	return toAccount(a), next, nil
}

// ConfirmPassword checks the password of a signed-in account again (PASSWORD action auth): nil
// when right, CodeAuthFailed when wrong (counted), CodeAccountLocked while passwords are locked. A right
// password clears the count of wrong passwords only, never that of wrong codes.
func (s *Service) ConfirmPassword(ctx context.Context, a Account, password string, c Client) error {
	if password == "" || utf8.RuneCountInString(password) > MaxPasswordLength {
		var p envelope.Problems
		p.Add("password", "is required, at most %d characters", MaxPasswordLength)
		return p.Err()
	}
	stored, err := s.Store.SignerAccountByID(ctx, a.ID)
	if err != nil {
		return err
	}
	if _, err := s.checkPassword(ctx, stored, password, c.event(persistence.AccountEventPasswordFailed), errPasswordWrong); err != nil {
		return err
	}
	if err := s.succeeded(ctx, a.ID, passwordFailures); err != nil {
		return err
	}
	return s.Store.RecordAccountEvent(ctx, a.ID, c.event(persistence.AccountEventPasswordConfirmed), s.now())
}
