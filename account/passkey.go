package account

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// ChallengeTTL is how long a passkey ceremony (registration or assertion) may take, from its
// options to the browser's answer.
const ChallengeTTL = 5 * time.Minute

// MaxPasskeyName is how long a passkey's name may be (characters).
const MaxPasskeyName = 100

var errPasskeysUnavailable = envelope.Errorf(envelope.CodeAuthUnavailable, "Passkeys are not available on this server")

// NewWebAuthn is the relying party of Sobre's passkeys for publicURL (SOBRE_PUBLIC_URL): named
// "Sobre", its id the host of publicURL without the port, and its one origin publicURL's scheme,
// host and port. Browsers refuse WebAuthn on an IP address: when the host is a loopback address
// (127.0.0.0/8, ::1) the relying party is "localhost" on the same scheme and port instead, so
// that a developer opens Sobre as http://localhost:PORT. Any other IP address is refused.
// Registration asks for a discoverable credential where the authenticator can make one, and
// every ceremony requires user verification.
func NewWebAuthn(publicURL string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return nil, fmt.Errorf("passkeys: SOBRE_PUBLIC_URL %q is not an http(s) URL with a host", publicURL)
	}
	host := strings.ToLower(u.Hostname())
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return nil, fmt.Errorf("passkeys: browsers refuse them on an IP address (%s): serve Sobre on a domain", host)
		}
		host = "localhost"
	}
	origin := u.Scheme + "://" + host
	if p := u.Port(); p != "" {
		origin += ":" + p
	}
	notRequired := false
	return webauthn.New(&webauthn.Config{
		RPID:          host,
		RPDisplayName: "Sobre",
		RPOrigins:     []string{origin},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementPreferred,
			RequireResidentKey: &notRequired,
			UserVerification:   protocol.VerificationRequired,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: ChallengeTTL, TimeoutUVD: ChallengeTTL},
			Registration: webauthn.TimeoutConfig{Timeout: ChallengeTTL, TimeoutUVD: ChallengeTTL},
		},
	})
}

// passkeyUser is an account as the WebAuthn library sees it: its user handle is the account id
// (8 bytes, big-endian), its name the email.
type passkeyUser struct {
	a     Account
	creds []webauthn.Credential
}

func (u passkeyUser) WebAuthnID() []byte                         { return userHandle(u.a.ID) }
func (u passkeyUser) WebAuthnName() string                       { return u.a.Email }
func (u passkeyUser) WebAuthnDisplayName() string                { return u.a.Email }
func (u passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func userHandle(id int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(id)) }

// passkeyUserOf reads a's passkeys for the library.
func (s *Service) passkeyUserOf(ctx context.Context, a Account) (passkeyUser, []persistence.AccountPasskey, error) {
	stored, err := s.Store.AccountPasskeys(ctx, a.ID)
	if err != nil {
		return passkeyUser{}, nil, err
	}
	u := passkeyUser{a: a}
	for _, p := range stored {
		var c webauthn.Credential
		if err := json.Unmarshal(p.Credential, &c); err != nil {
			return passkeyUser{}, nil, fmt.Errorf("decode passkey %d of account %d: %w", p.ID, a.ID, err)
		}
		u.creds = append(u.creds, c)
	}
	return u, stored, nil
}

// checkSession checks that passkeys are available and sess is a session of account a.
func (s *Service) checkSession(a Account, sess Session) error {
	if s.WebAuthn == nil {
		return errPasskeysUnavailable
	}
	return sessionOf(a, sess)
}

// saveChallenge keeps the library's session data of a ceremony for purpose, bound to sess.
func (s *Service) saveChallenge(ctx context.Context, sess Session, purpose string, data *webauthn.SessionData) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode a WebAuthn challenge: %w", err)
	}
	return s.Store.SaveWebAuthnChallenge(ctx, data.Challenge, sess.ID, purpose, raw, s.now().Add(ChallengeTTL))
}

// takeChallenge uses the challenge of sess for purpose and returns its session data.
func (s *Service) takeChallenge(ctx context.Context, sess Session, purpose, challenge string) (webauthn.SessionData, error) {
	var data webauthn.SessionData
	raw, err := s.Store.TakeWebAuthnChallenge(ctx, challenge, sess.ID, purpose, s.now())
	if err != nil {
		return data, err
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return data, fmt.Errorf("decode a WebAuthn challenge: %w", err)
	}
	return data, nil
}

// BeginPasskeyRegistration returns the options (JSON, for navigator.credentials.create) of a new
// passkey for the account, the challenge bound to session sess. The JSON is the library's
// CredentialCreation: {"publicKey": PublicKeyCredentialCreationOptionsJSON}. The account's
// passkeys are excluded, so an authenticator is not registered twice. An account with a second
// factor already asks that sess proved one less than FactorProofTTL ago (CodeFactorProofNeeded).
func (s *Service) BeginPasskeyRegistration(ctx context.Context, a Account, sess Session) ([]byte, error) {
	if err := s.checkSession(a, sess); err != nil {
		return nil, err
	}
	if err := s.requireFactorProof(ctx, a, sess); err != nil {
		return nil, err
	}
	u, _, err := s.passkeyUserOf(ctx, a)
	if err != nil {
		return nil, err
	}
	creation, data, err := s.WebAuthn.BeginRegistration(u, webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		return nil, fmt.Errorf("begin a passkey registration: %w", err)
	}
	if err := s.saveChallenge(ctx, sess, persistence.WebAuthnRegister, data); err != nil {
		return nil, err
	}
	out, err := json.Marshal(creation)
	if err != nil {
		return nil, fmt.Errorf("encode passkey options: %w", err)
	}
	return out, nil
}

// protocolDetails is what the WebAuthn library says was wrong, "" when it says nothing.
func protocolDetails(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Details
	}
	return ""
}

// registrationRefused is the answer to a registration the library refuses.
func registrationRefused(err error) error {
	msg := "The passkey could not be registered"
	if d := protocolDetails(err); d != "" {
		msg += ": " + d
	}
	return envelope.Errorf(envelope.CodeVerificationFailed, "%s", msg)
}

// FinishPasskeyRegistration checks the browser's answer (the PublicKeyCredential as JSON) against
// the challenge of sess and keeps the passkey under name (trimmed; "Passkey" when empty), and
// mails the account's address a notice. An answer that does not check out is
// CodeVerificationFailed; a passkey registered already ALREADY_EXISTS. The factor proof
// BeginPasskeyRegistration asks for is asked again: a factor added meanwhile counts.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, a Account, sess Session, name string, response []byte, c Client) (Passkey, error) {
	if err := s.checkSession(a, sess); err != nil {
		return Passkey{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Passkey"
	}
	if utf8.RuneCountInString(name) > MaxPasskeyName {
		var p envelope.Problems
		p.Add("name", "must be at most %d characters long", MaxPasskeyName)
		return Passkey{}, p.Err()
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(response))
	if err != nil {
		return Passkey{}, registrationRefused(err)
	}
	data, err := s.takeChallenge(ctx, sess, persistence.WebAuthnRegister, parsed.Response.CollectedClientData.Challenge)
	if envelope.IsNotFound(err) {
		return Passkey{}, envelope.Errorf(envelope.CodeVerificationFailed, "The passkey could not be registered: ask for new options and try again")
	}
	if err != nil {
		return Passkey{}, err
	}
	u, _, err := s.passkeyUserOf(ctx, a)
	if err != nil {
		return Passkey{}, err
	}
	cred, err := s.WebAuthn.CreateCredential(u, data, parsed)
	if err != nil {
		return Passkey{}, registrationRefused(err)
	}
	if err := s.requireFactorProof(ctx, a, sess); err != nil {
		return Passkey{}, err
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return Passkey{}, fmt.Errorf("encode a passkey: %w", err)
	}
	p, err := s.Store.AddAccountPasskey(ctx, a.ID, cred.ID, raw, name, c.event(persistence.AccountEventPasskeyAdded), s.now())
	if err != nil {
		return Passkey{}, err
	}
	s.notifyFactorChange(ctx, a, mail.AccountPasskeyAdded, p.Name, c)
	return toPasskey(p), nil
}

func toPasskey(p persistence.AccountPasskey) Passkey {
	return Passkey{ID: p.ID, CredentialID: base64.RawURLEncoding.EncodeToString(p.CredentialID), Name: p.Name,
		CreatedAt: p.CreatedAt, LastUsedAt: p.LastUsedAt}
}

// RemovePasskey removes one of the account's passkeys, asked by its session sess, which must
// have proved a second factor less than FactorProofTTL ago (CodeFactorProofNeeded): the passkey
// is one, so the password alone never removes it. PASSKEY_REMOVED is recorded with c and the
// account's address mailed a notice. A passkey of another account, or none, is CodeNotFound.
func (s *Service) RemovePasskey(ctx context.Context, a Account, sess Session, id int64, c Client) error {
	if err := s.requireFactorProof(ctx, a, sess); err != nil {
		return err
	}
	name, err := s.Store.RemoveAccountPasskey(ctx, a.ID, id, c.event(persistence.AccountEventPasskeyRemoved), s.now())
	if err != nil {
		return err
	}
	s.notifyFactorChange(ctx, a, mail.AccountPasskeyRemoved, name, c)
	return nil
}

// BeginPasskeyAssertion returns the options (JSON, for navigator.credentials.get) of an
// assertion by one of the account's passkeys that proves PASSKEY action auth on a signing page
// (FinishPasskeyAssertion), user verification required, the challenge bound to sess and to that
// purpose. The JSON is the library's CredentialAssertion: {"publicKey":
// PublicKeyCredentialRequestOptionsJSON}. No passkey: CodeAuthNotEnrolled; second factors
// locked: CodeAccountLocked.
func (s *Service) BeginPasskeyAssertion(ctx context.Context, a Account, sess Session) ([]byte, error) {
	return s.beginAssertion(ctx, a, sess, persistence.WebAuthnAssert)
}

// BeginFactorPasskey is BeginPasskeyAssertion for an assertion that confirms a second factor on
// the account page (ConfirmFactorWithPasskey): its challenge serves only there, and one of
// BeginPasskeyAssertion never serves there.
func (s *Service) BeginFactorPasskey(ctx context.Context, a Account, sess Session) ([]byte, error) {
	return s.beginAssertion(ctx, a, sess, persistence.WebAuthnFactor)
}

// beginAssertion returns the options of an assertion whose challenge is kept for purpose
// (persistence.WebAuthnAssert or WebAuthnFactor).
func (s *Service) beginAssertion(ctx context.Context, a Account, sess Session, purpose string) ([]byte, error) {
	if err := s.checkSession(a, sess); err != nil {
		return nil, err
	}
	stored, err := s.Store.SignerAccountByID(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if until, locked := stored.LockedAt(factorFailures, now); locked {
		return nil, lockedError(factorFailures, until, now)
	}
	u, _, err := s.passkeyUserOf(ctx, a)
	if err != nil {
		return nil, err
	}
	if len(u.creds) == 0 {
		return nil, envelope.Errorf(envelope.CodeAuthNotEnrolled, "This account has no passkey")
	}
	assertion, data, err := s.WebAuthn.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("begin a passkey assertion: %w", err)
	}
	if err := s.saveChallenge(ctx, sess, purpose, data); err != nil {
		return nil, err
	}
	out, err := json.Marshal(assertion)
	if err != nil {
		return nil, fmt.Errorf("encode passkey options: %w", err)
	}
	return out, nil
}

// FinishPasskeyAssertion checks the browser's assertion against the challenge of sess that
// BeginPasskeyAssertion made (a signing page's) and the account's passkeys, and returns the
// credential id (base64url) it was made with. Wrong: CodeAuthFailed (counted with the wrong
// codes, which only a right code or assertion clears); an assertion answering a challenge of
// BeginFactorPasskey is wrong, and so is one whose sign count is not above the passkey's last one
// (a cloned authenticator, or a replay).
func (s *Service) FinishPasskeyAssertion(ctx context.Context, a Account, sess Session, response []byte, c Client) (string, error) {
	return s.finishAssertion(ctx, a, sess, persistence.WebAuthnAssert, response, c)
}

// finishAssertion checks an assertion against a challenge of sess kept for purpose.
func (s *Service) finishAssertion(ctx context.Context, a Account, sess Session, purpose string, response []byte, c Client) (string, error) {
	if err := s.checkSession(a, sess); err != nil {
		return "", err
	}
	if err := s.attempt(ctx, a.ID, factorFailures); err != nil {
		return "", err
	}
	fail := func(reason string) (string, error) {
		ev := c.event(persistence.AccountEventPasskeyFailed)
		ev.Data = map[string]any{"reason": reason}
		return "", s.failed(ctx, a.ID, factorFailures, ev, errPasskeyFailed)
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(response))
	if err != nil {
		return fail("unreadable answer")
	}
	data, err := s.takeChallenge(ctx, sess, purpose, parsed.Response.CollectedClientData.Challenge)
	if envelope.IsNotFound(err) {
		return fail("unknown, used or expired challenge, or one of another purpose")
	}
	if err != nil {
		return "", err
	}
	u, _, err := s.passkeyUserOf(ctx, a)
	if err != nil {
		return "", err
	}
	cred, err := s.WebAuthn.ValidateLogin(u, data, parsed)
	if err != nil {
		reason := protocolDetails(err)
		if reason == "" {
			reason = "refused"
		}
		return fail(reason)
	}
	if cred.Authenticator.CloneWarning {
		return fail("sign count not above the last one")
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return "", fmt.Errorf("encode a passkey: %w", err)
	}
	used, err := s.Store.UsePasskey(ctx, a.ID, cred.ID, raw, cred.Authenticator.SignCount, s.now())
	if err != nil {
		return "", err
	}
	if !used {
		return fail("sign count not above the last one")
	}
	if err := s.succeeded(ctx, a.ID, factorFailures); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(cred.ID), nil
}
