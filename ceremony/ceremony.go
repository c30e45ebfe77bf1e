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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/auth/fea"
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
	cookiePrefix  = "sobre_ceremony_"
)

// AccessCodes is the policy of mailed access codes (TWO_FACTOR_AUTH): valid 10 minutes, at most
// 5 per recipient in 15 minutes (Documenso's rate), 5 wrong guesses spend a code.
var AccessCodes = persistence.AccessCodePolicy{TTL: 10 * time.Minute, MaxRequests: 5, Window: 15 * time.Minute, MaxAttempts: 5}

// Service runs ceremonies. ClaveUnica and FEA may be nil: the methods they serve are then
// reported as unavailable.
type Service struct {
	Store      *persistence.Store
	Mail       *mail.Sender
	MailHost   string
	ClaveUnica IdentityProvider
	FEA        *fea.Verifier
	PublicURL  string
	Log        *slog.Logger
}

// cookieName is the cookie that holds recipient id's ceremony in this browser: one per
// recipient, so that two signing links opened side by side do not displace each other.
func cookieName(recipientID int64) string { return cookiePrefix + strconv.FormatInt(recipientID, 10) }

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

func (s *Service) secure() bool { return strings.HasPrefix(s.PublicURL, "https://") }

// Begin exchanges a signing link for a ceremony: unless the browser already holds a live one for
// this recipient, a new session is stored and its secret set as an HttpOnly, SameSite=Lax cookie
// (Secure under HTTPS). Lax, not Strict: the browser must send it when Clave Única redirects back.
func (s *Service) Begin(ctx context.Context, w http.ResponseWriter, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, error) {
	if c, ok := s.Session(ctx, r, rec); ok {
		return c, nil
	}
	secret, err := randomToken(32)
	if err != nil {
		return persistence.Ceremony{}, err
	}
	expires := time.Now().Add(SessionTTL)
	if err := s.Store.StartCeremony(ctx, hash(secret), rec.ID, expires); err != nil {
		return persistence.Ceremony{}, err
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(rec.ID), Value: secret, Path: "/", Expires: expires, MaxAge: int(SessionTTL.Seconds()),
		HttpOnly: true, Secure: s.secure(), SameSite: http.SameSiteLaxMode,
	})
	return persistence.Ceremony{IDHash: hash(secret), RecipientID: rec.ID, ExpiresAt: expires}, nil
}

// Session is the browser's live ceremony with rec, if it has one.
func (s *Service) Session(ctx context.Context, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, bool) {
	ck, err := r.Cookie(cookieName(rec.ID))
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return persistence.Ceremony{}, false
	}
	c, err := s.Store.CeremonyByHash(ctx, hash(ck.Value))
	if err != nil || c.RecipientID != rec.ID {
		return persistence.Ceremony{}, false
	}
	return c, true
}

// Requirements are the proofs a recipient must give, from its auth options (else the
// envelope's) and its fields.
type Requirements struct {
	AccessCode bool // TWO_FACTOR_AUTH access: a mailed code before the document is shown
	ClaveUnica bool // CLAVE_UNICA action auth, or a RUT_FIRMADO field to fill
	FAOHash    bool // FAO_HASH action auth: an advanced electronic signature over the digest
	// Unavailable lists methods the envelope demands that Sobre cannot take yet (they need
	// signer accounts): the recipient cannot act.
	Unavailable []string
}

// Require works out what rec must prove on envelope e.
func Require(e *envelope.Envelope, rec envelope.Recipient) Requirements {
	access, action := rec.AuthOptions.AccessAuth, rec.AuthOptions.ActionAuth
	if len(access) == 0 {
		access = e.AuthOptions.GlobalAccessAuth
	}
	if len(action) == 0 {
		action = e.AuthOptions.GlobalActionAuth
	}
	var q Requirements
	for _, a := range access {
		switch a {
		case envelope.AccessAuthTwoFactorAuth:
			q.AccessCode = true
		default:
			q.Unavailable = append(q.Unavailable, string(a))
		}
	}
	if !slices.Contains(action, envelope.ActionAuthExplicitNone) {
		for _, a := range action {
			switch a {
			case envelope.ActionAuthClaveUnica:
				q.ClaveUnica = true
			case envelope.ActionAuthFAOHash:
				q.FAOHash = true
			default:
				q.Unavailable = append(q.Unavailable, string(a))
			}
		}
	}
	for _, f := range e.Fields {
		if f.RecipientID == rec.ID && f.Type == envelope.FieldRUTFirmado {
			q.ClaveUnica = true
		}
	}
	return q
}

// Status is where a recipient's ceremony in this browser stands.
type Status struct {
	Requirements
	HasSession     bool
	AccessVerified bool
	ClaveUnicaRUN  string // verified in this browser's session
	ClaveUnicaName string
	FEA            *persistence.Identity // the recipient's verified FAO_HASH signature, if any
	Digest         string                // the FAO_HASH digest of the envelope as it is now
}

// StatusOf reports rec's ceremony as seen from request r.
func (s *Service) StatusOf(ctx context.Context, r *http.Request, e *envelope.Envelope, rec envelope.Recipient) (Status, error) {
	st := Status{Requirements: Require(e, rec)}
	if c, ok := s.Session(ctx, r, rec); ok {
		st.HasSession = true
		st.AccessVerified = c.AccessVerifiedAt != nil
		st.ClaveUnicaRUN, st.ClaveUnicaName = c.ClaveUnicaRUN, c.ClaveUnicaName
	}
	if st.FAOHash {
		id, err := s.Store.RecipientIdentity(ctx, rec.ID)
		if err != nil {
			return st, err
		}
		if id.FEARUT != "" {
			st.FEA = &id
		}
		if st.Digest, err = s.Digest(ctx, e, rec); err != nil {
			return st, err
		}
	}
	return st, nil
}

// ErrAccessRequired: the recipient must enter a mailed code before seeing the document.
var ErrAccessRequired = envelope.Errorf(envelope.CodeUnauthorized, "Enter the code we sent to your email address to open this document")

// CheckAccess refuses a request that may not see the document yet.
func (st Status) CheckAccess() error {
	if st.AccessCode && !st.AccessVerified {
		return ErrAccessRequired
	}
	return nil
}

// CheckAction refuses a completion the recipient has not proved enough for.
func (st Status) CheckAction(role envelope.Role) error {
	if err := st.CheckAccess(); err != nil {
		return err
	}
	if len(st.Unavailable) > 0 {
		return envelope.Errorf(envelope.CodeAuthUnavailable, "This document asks for %s verification, which is not available yet; ask the sender to change it", strings.Join(st.Unavailable, ", "))
	}
	if role == envelope.RoleCC {
		return nil
	}
	if st.ClaveUnica && st.ClaveUnicaRUN == "" {
		return envelope.Errorf(envelope.CodeUnauthorized, "Verify your identity with ClaveÚnica before signing")
	}
	if st.FAOHash {
		if st.FEA == nil {
			return envelope.Errorf(envelope.CodeUnauthorized, "Give your advanced electronic signature over the document's digest before signing")
		}
		if st.FEA.FEADigest != st.Digest {
			return envelope.Errorf(envelope.CodeUnauthorized, "The document or your fields changed after your advanced electronic signature; sign the new digest")
		}
		if st.ClaveUnicaRUN != "" && st.ClaveUnicaRUN != st.FEA.FEARUT {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by Clave Única (%s)", st.FEA.FEARUT, st.ClaveUnicaRUN)
		}
	}
	return nil
}

// RequestCode mails a new six-digit access code to rec, bound to this browser's session.
func (s *Service) RequestCode(ctx context.Context, r *http.Request, e *envelope.Envelope, rec envelope.Recipient, actor persistence.Actor) error {
	c, ok := s.Session(ctx, r, rec)
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
	secret, _ := r.Cookie(cookieName(rec.ID))
	if err := s.Store.RequestAccessCode(ctx, c, rec, codeMAC(secret.Value, code), AccessCodes, actor); err != nil {
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

// VerifyCode checks a code typed in this browser.
func (s *Service) VerifyCode(ctx context.Context, r *http.Request, rec envelope.Recipient, code string, actor persistence.Actor) error {
	c, ok := s.Session(ctx, r, rec)
	if !ok {
		return envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link again to continue")
	}
	code = strings.TrimSpace(code)
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		return &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: "code", Message: "is six digits"}}}
	}
	secret, _ := r.Cookie(cookieName(rec.ID))
	err := s.Store.VerifyAccessCode(ctx, c, rec, codeMAC(secret.Value, code), AccessCodes, actor)
	switch {
	case errors.Is(err, persistence.ErrCodeWrong):
		return envelope.Errorf(envelope.CodeVerificationFailed, "That code is not right; check the latest email and try again")
	case errors.Is(err, persistence.ErrCodeExpired):
		return envelope.Errorf(envelope.CodeVerificationFailed, "That code has expired or was already used; ask for a new one")
	}
	return err
}
