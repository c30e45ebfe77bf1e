package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-webauthn/webauthn/webauthn"

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
	return persistence.AccountEvent{Type: t, IP: envelope.CapClientText(c.IP), UserAgent: envelope.CapClientText(c.UserAgent)}
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
