package ceremony

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// Policies of the ceremony.
const (
	// SessionTTL is how long a browser's ceremony lasts before the signing link must be opened again.
	SessionTTL = 12 * time.Hour
	// ClaveUnicaTTL is how long a Clave Única login may take, from the redirect to the callback.
	ClaveUnicaTTL = 10 * time.Minute
	cookieBase    = "sobre_ceremony_"
)

// AccessCodes is the policy of mailed access codes (TWO_FACTOR_AUTH): valid 10 minutes, at most
// 5 per recipient in 15 minutes (Documenso's rate), 5 wrong guesses spend a code, and
// Service.MaxCodeFailures wrong codes in all (20 by default) lock the recipient's code entry
// until the envelope is sent to them again; between wrong codes the wait of
// envelope.CodeBackoff applies.
var AccessCodes = persistence.AccessCodePolicy{TTL: 10 * time.Minute, MaxRequests: 5, Window: 15 * time.Minute, MaxAttempts: 5}

// Service runs ceremonies. ClaveUnica and FEA may be nil: the methods they serve are then
// reported as unavailable.
type Service struct {
	Store      *persistence.Store
	Mail       *mail.Sender
	MailHost   string
	ClaveUnica IdentityProvider
	FEA        *fea.Verifier
	// Accounts keeps signer accounts (ACCOUNT, PASSWORD, TWO_FACTOR_AUTH and PASSKEY). Nil: no
	// browser is ever signed in, so those methods cannot be met.
	Accounts  *account.Service
	PublicURL string
	Log       *slog.Logger
	// ProofMaxAge is how old an action proof may be when the recipient completes
	// (envelope.DefaultProofMaxAge when 0).
	ProofMaxAge time.Duration
	// MaxCodeFailures is how many wrong access codes lock a recipient's code entry
	// (envelope.DefaultMaxCodeFailures when 0).
	MaxCodeFailures int
	// TellOwner tells the envelope's workflow that something happened its owner must hear of (a
	// recipient's code entry locked, an identity refused), so that it mails the owner
	// (workflows.Client.Refresh: the workflow reads what happened with the envelope). Nil: nobody
	// is told until the workflow next reads the envelope.
	TellOwner func(ctx context.Context, envelopeID string) error
	// Now is the clock of the wait between wrong codes (time.Now when nil).
	Now func() time.Time
}

// tellOwner tells the envelope's workflow (TellOwner) of what, which is committed already: the
// workflow reads it at its next event anyway, so a failure is only logged.
func (s *Service) tellOwner(ctx context.Context, rec envelope.Recipient, what string) {
	if s.TellOwner == nil {
		return
	}
	if err := s.TellOwner(ctx, rec.EnvelopeID); err != nil {
		s.Log.WarnContext(ctx, "tell the workflow of "+what, "envelope", rec.EnvelopeID, "recipient", rec.ID, "err", err)
	}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// codePolicy is AccessCodes with this service's ceiling.
func (s *Service) codePolicy() persistence.AccessCodePolicy {
	p := AccessCodes
	p.MaxFailures = s.MaxCodeFailures
	return p
}

// CodeEntryLocked reports whether rec's code entry is locked: too many wrong codes were typed on
// their signing link, and it takes no more until the envelope is sent to them again.
func (s *Service) CodeEntryLocked(ctx context.Context, rec envelope.Recipient) (bool, error) {
	return s.Store.CodeEntryLocked(ctx, rec, s.codePolicy().Ceiling())
}

// cookieName is the cookie that holds recipient id's ceremony in this browser: one per
// recipient, so that two signing links opened side by side do not displace each other.
func (s *Service) cookieName(recipientID int64) string {
	return s.cookiePrefix() + strconv.FormatInt(recipientID, 10)
}

// cookiePrefix starts the name of every ceremony cookie. Under HTTPS it begins with __Host-,
// which browsers keep only when it is Secure, for Path=/ and without Domain: no other host (a
// sibling subdomain, a plain-HTTP page) can set or replace the cookie and so hand a signer a
// session it knows. Plain HTTP (development on 127.0.0.1) cannot use the prefix. A cookie of
// the other name is not read: after a switch to HTTPS, opening the link again starts a new
// session.
func (s *Service) cookiePrefix() string {
	if s.secure() {
		return "__Host-" + cookieBase
	}
	return cookieBase
}

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (s *Service) secure() bool { return config.ServedOverHTTPS(s.PublicURL) }

// Begin exchanges a signing link for a ceremony: unless the browser already holds a live one for
// this recipient, a new session is stored and its secret set as an HttpOnly, SameSite=Lax cookie
// (Secure and __Host- under HTTPS). Lax, not Strict: the browser must send it when Clave Única redirects back.
func (s *Service) Begin(ctx context.Context, w http.ResponseWriter, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, error) {
	return s.begin(ctx, w, r, rec, false)
}

// begin is Begin; embedded sets the cookie of BeginEmbedded instead.
func (s *Service) begin(ctx context.Context, w http.ResponseWriter, r *http.Request, rec envelope.Recipient, embedded bool) (persistence.Ceremony, error) {
	if c, ok := s.Session(ctx, r, rec); ok {
		return c, nil
	}
	secret, err := randomToken(32)
	if err != nil {
		return persistence.Ceremony{}, err
	}
	expires := time.Now().Add(SessionTTL)
	if err := s.Store.StartCeremony(ctx, hash(secret), rec.ID, rec.Token, expires); err != nil {
		return persistence.Ceremony{}, err
	}
	ck := &http.Cookie{
		Name: s.cookieName(rec.ID), Value: secret, Path: "/", Expires: expires, MaxAge: int(SessionTTL.Seconds()),
		HttpOnly: true, Secure: s.secure(), SameSite: http.SameSiteLaxMode,
	}
	if embedded {
		embeddedCookie(ck)
	}
	http.SetCookie(w, ck)
	return persistence.Ceremony{IDHash: hash(secret), RecipientID: rec.ID, ExpiresAt: expires}, nil
}

// Session is the browser's live ceremony with rec, if it has one.
func (s *Service) Session(ctx context.Context, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, bool) {
	_, c, ok := s.sessionCookie(ctx, r, rec)
	return c, ok
}

// sessionCookie is the browser's cookie of its live ceremony with rec and that ceremony. A
// browser may send two of the name (a page framed by a site of the same site sends the
// top-level cookie and the embedded one): the first live one counts, and no more than two are
// looked at.
func (s *Service) sessionCookie(ctx context.Context, r *http.Request, rec envelope.Recipient) (*http.Cookie, persistence.Ceremony, bool) {
	for i, ck := range r.CookiesNamed(s.cookieName(rec.ID)) {
		if i == 2 {
			break
		}
		if ck.Value == "" || len(ck.Value) > 100 {
			continue
		}
		if c, err := s.Store.CeremonyByHash(ctx, hash(ck.Value)); err == nil && c.RecipientID == rec.ID {
			return ck, c, true
		}
	}
	return nil, persistence.Ceremony{}, false
}

// Requirements are the proofs a recipient must give (envelope.RequiredProofs).
type Requirements = envelope.Proofs

// Require works out what rec must prove on envelope e.
func Require(e *envelope.Envelope, rec envelope.Recipient) Requirements {
	return envelope.RequiredProofs(rec, e.AuthOptions, e.Fields)
}

// Status is where a recipient's ceremony in this browser stands. Every proof in it is this
// browser's: a login or a signature given in another browser is not.
type Status struct {
	Requirements
	RecipientID    int64
	Session        *persistence.Ceremony // this browser's session with the recipient, if any
	HasSession     bool
	AccessVerified bool
	ClaveUnicaRUN  string // verified in this browser's session
	ClaveUnicaName string
	FEA            *persistence.FEASignature // the advanced signature given in this session
	Digest         string                    // the FAO_HASH digest this session would sign now
	ProofMaxAge    time.Duration             // how old an action proof may be at completion
	Email          string                    // the recipient's: the address an account must prove
	// Account is the signer account this browser is signed in to (nil: none), AccountSession
	// its session; AccountMatches says it proves the recipient's email (envelope.CheckAccount).
	Account        *account.Account
	AccountSession *account.Session
	AccountMatches bool
	// The account proofs this session gave for the recipient, by the account signed in now.
	PasswordAt, TOTPAt, PasskeyAt *time.Time
}

// signedIn is the account as the domain's rules read it.
func (st Status) signedIn() *envelope.SignedIn {
	if st.Account == nil {
		return nil
	}
	return &envelope.SignedIn{ID: st.Account.ID, Email: st.Account.Email, EmailVerified: st.Account.EmailVerified}
}

// held is what this browser's session proved, for the domain's rules (nil without a session).
func (st Status) held() *envelope.SessionProofs {
	if st.Session == nil {
		if st.Account == nil {
			return nil
		}
		return &envelope.SessionProofs{RecipientID: st.RecipientID, Account: st.signedIn()}
	}
	p := st.Session.Proofs()
	p.Account = st.signedIn()
	p.PasswordAt, p.TOTPAt, p.PasskeyAt = st.PasswordAt, st.TOTPAt, st.PasskeyAt
	return &p
}

// SessionID is the id of this browser's session, "" without one.
func (st Status) SessionID() string {
	if st.Session == nil {
		return ""
	}
	return st.Session.ID
}

// StatusOf reports rec's ceremony as seen from request r.
func (s *Service) StatusOf(ctx context.Context, r *http.Request, e *envelope.Envelope, rec envelope.Recipient) (Status, error) {
	st := Status{Requirements: Require(e, rec), RecipientID: rec.ID, ProofMaxAge: s.proofMaxAge(), Email: rec.Email}
	if c, ok := s.Session(ctx, r, rec); ok {
		st.Session = &c
		st.HasSession = true
		st.AccessVerified = c.AccessVerifiedAt != nil
		st.ClaveUnicaRUN, st.ClaveUnicaName = c.ClaveUnicaRUN, c.ClaveUnicaName
		st.FEA = c.FEA
	}
	if err := s.accountOf(ctx, r, &st); err != nil {
		return st, err
	}
	if st.FAOHash() {
		var err error
		if st.Digest, err = s.Digest(ctx, e, rec, st.ClaveUnicaRUN); err != nil {
			return st, err
		}
	}
	return st, nil
}

func (s *Service) proofMaxAge() time.Duration {
	if s.ProofMaxAge > 0 {
		return s.ProofMaxAge
	}
	return envelope.DefaultProofMaxAge
}

// CheckAccess refuses a request that may not see the document yet (envelope.CheckAccess): a
// mailed code not entered in this browser, or ACCOUNT access without being signed in to the
// account of the recipient's email.
func (st Status) CheckAccess() error {
	return envelope.CheckAccess(st.Requirements, st.held(), st.Email)
}

// CheckAction refuses a completion this browser has not proved enough for, early; the
// completion's transaction decides again on the same rule (envelope.CheckCompletion).
func (st Status) CheckAction(role envelope.Role) error {
	if err := st.CheckAccess(); err != nil {
		return err
	}
	maxAge := st.ProofMaxAge
	if maxAge <= 0 {
		maxAge = envelope.DefaultProofMaxAge
	}
	return envelope.CheckCompletion(st.Requirements, role, st.RecipientID, st.Email, st.held(), st.Digest, time.Now(), maxAge)
}

// RequestCode mails a new six-digit access code to rec, bound to this browser's session.
func (s *Service) RequestCode(ctx context.Context, r *http.Request, e *envelope.Envelope, rec envelope.Recipient, actor envelope.Actor) error {
	secret, c, ok := s.sessionCookie(ctx, r, rec)
	if !ok {
		return envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link again to continue")
	}
	if rec.Email == "" {
		return envelope.Errorf(envelope.CodeInvalidRequest, "This recipient has no email address to send a code to")
	}
	if s.Mail == nil {
		return envelope.Errorf(envelope.CodeUnavailable, "Mail is not configured; codes cannot be sent")
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return fmt.Errorf("draw an access code: %w", err)
	}
	code := fmt.Sprintf("%06d", n.Int64())
	if err := s.Store.RequestAccessCode(ctx, c, rec, codeMAC(secret.Value, code), s.codePolicy(), actor, s.now()); err != nil {
		return err
	}
	composed, err := mail.ComposeAccessCode(e.Meta.Language, mail.AccessCodeData{RecipientName: rec.Name, Title: e.Title, Code: code, Minutes: int(AccessCodes.TTL.Minutes())})
	if err != nil {
		return err
	}
	id, err := randomToken(12)
	if err != nil {
		return err
	}
	host := s.MailHost
	if host == "" {
		host = "sobre.localhost"
	}
	msg := mail.Message{ID: "access-code." + id + "@" + host, To: rec.Email, ToName: rec.Name, EnvelopeID: e.ID, Composed: composed}
	if err := s.Mail.Send(ctx, msg, func() error { return nil }); err != nil {
		return fmt.Errorf("mail access code: %w", err)
	}
	return nil
}

// codeMAC keys a code's stored form by the session's secret, which the database never holds.
func codeMAC(sessionSecret, code string) []byte {
	m := hmac.New(sha256.New, []byte(sessionSecret))
	m.Write([]byte(code))
	return m.Sum(nil)
}

// VerifyCode checks a code typed in this browser. A wrong code is refused with
// VERIFICATION_FAILED; a code typed too soon after a wrong one with TOO_MANY_REQUESTS and the
// wait; a code on a locked entry, and the wrong code that locks it, with ACCESS_CODE_LOCKED. When
// the entry locks, the envelope's workflow is told, and it mails the owner.
func (s *Service) VerifyCode(ctx context.Context, r *http.Request, rec envelope.Recipient, code string, actor envelope.Actor) error {
	secret, c, ok := s.sessionCookie(ctx, r, rec)
	if !ok {
		return envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link again to continue")
	}
	code = strings.TrimSpace(code)
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		return envelope.Invalid("code", "is six digits")
	}
	err := s.Store.VerifyAccessCode(ctx, c, rec, codeMAC(secret.Value, code), s.codePolicy(), actor, s.now())
	switch {
	case errors.Is(err, persistence.ErrCodeLocked):
		s.Log.WarnContext(ctx, "access-code entry locked after too many wrong codes", "envelope", rec.EnvelopeID, "recipient", rec.ID)
		s.tellOwner(ctx, rec, "a locked code entry")
		return envelope.ErrCodeEntryLocked()
	case errors.Is(err, persistence.ErrCodeWrong):
		return envelope.Errorf(envelope.CodeVerificationFailed, "That code is not right; check the latest email and try again")
	case errors.Is(err, persistence.ErrCodeExpired):
		return envelope.Errorf(envelope.CodeVerificationFailed, "That code has expired or was already used; ask for a new one")
	}
	return err
}
