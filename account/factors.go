package account

import (
	"context"
	"net/url"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// Second factors (an authenticator app, passkeys) guard one another: once an account has one,
// the password alone neither adds another nor removes one. A session first proves a factor it
// has on the account page (ConfirmFactor, ConfirmFactorWithPasskey), which lets it add or remove
// factors for FactorProofTTL; the first factor of an account needs only the signed-in session.
// Every factor added or removed is mailed to the account's address.

var (
	errSignInFirst       = envelope.Errorf(envelope.CodeAccountRequired, "Sign in to the account first")
	errFactorProofNeeded = envelope.Errorf(envelope.CodeFactorProofNeeded,
		"Confirm it is you with a code of your authenticator app, a recovery code or a passkey first: then, for 5 minutes, you may add or remove a second factor")
)

// sessionOf checks that sess is a session of account a.
func sessionOf(a Account, sess Session) error {
	if sess.ID == "" || sess.AccountID != a.ID {
		return errSignInFirst
	}
	return nil
}

// requireFactorProof lets session sess of account a add or remove a second factor: always when the
// account has none; else only when the session proved one less than FactorProofTTL ago
// (CodeFactorProofNeeded otherwise).
func (s *Service) requireFactorProof(ctx context.Context, a Account, sess Session) error {
	if err := sessionOf(a, sess); err != nil {
		return err
	}
	has, confirmed, err := s.Store.AccountFactorState(ctx, a.ID, sess.ID)
	if err != nil {
		return err
	}
	if !has {
		return nil
	}
	if confirmed == nil || !s.now().Before(confirmed.Add(FactorProofTTL)) {
		return errFactorProofNeeded
	}
	return nil
}

// FactorProved reports whether session sess proved a second factor of its account less than
// FactorProofTTL ago (as Current read it), so that it may add or remove one now.
func (s *Service) FactorProved(sess Session) bool {
	return sess.FactorConfirmedAt != nil && s.now().Before(sess.FactorConfirmedAt.Add(FactorProofTTL))
}

// ConfirmFactor proves, for session sess of account a, the account's authenticator app with a
// current code or a recovery code (VerifyTOTP: used once, counted against the lock when wrong):
// for FactorProofTTL the session may add or remove second factors. FACTOR_CONFIRMED is recorded.
func (s *Service) ConfirmFactor(ctx context.Context, a Account, sess Session, code string, c Client) error {
	if err := sessionOf(a, sess); err != nil {
		return err
	}
	if err := s.VerifyTOTP(ctx, a, code, c); err != nil {
		return err
	}
	ev := c.event(persistence.AccountEventFactorConfirmed)
	ev.Data = map[string]any{"method": string(envelope.ActionAuthTwoFactorAuth)}
	return s.confirmed(ctx, a, sess, ev)
}

// ConfirmFactorWithPasskey proves, for session sess of account a, one of its passkeys: response
// answers the options of BeginFactorPasskey (checked as FinishPasskeyAssertion checks, counted
// against the lock when it fails; an answer to a signing page's challenge is wrong). For
// FactorProofTTL the session may add or remove second factors.
func (s *Service) ConfirmFactorWithPasskey(ctx context.Context, a Account, sess Session, response []byte, c Client) error {
	credentialID, err := s.finishAssertion(ctx, a, sess, persistence.WebAuthnFactor, response, c)
	if err != nil {
		return err
	}
	ev := c.event(persistence.AccountEventFactorConfirmed)
	ev.Data = map[string]any{"method": string(envelope.ActionAuthPasskey), "credentialId": credentialID}
	return s.confirmed(ctx, a, sess, ev)
}

func (s *Service) confirmed(ctx context.Context, a Account, sess Session, ev persistence.AccountEvent) error {
	err := s.Store.ConfirmSessionFactor(ctx, a.ID, sess.ID, ev, s.now())
	if envelope.IsNotFound(err) {
		return errSignInFirst
	}
	return err
}

// notifyFactorChange mails the address of account a that a second factor was added or removed
// (kind; passkey names a passkey), when, and by which client, with the advice to reset the
// password if it was not them. The change is made already: a mail that cannot be sent is
// logged, never an error.
func (s *Service) notifyFactorChange(ctx context.Context, a Account, kind mail.AccountMail, passkey string, c Client) {
	if s.Mail == nil {
		s.log().WarnContext(ctx, "account factor change not mailed: mail is not configured", "account", a.ID, "kind", kind)
		return
	}
	ev := c.event("")
	composed, err := mail.ComposeAccountNotice(a.Language, kind, mail.AccountNoticeData{Email: a.Email, PasskeyName: passkey,
		At: s.now(), IP: ev.IP, Browser: ev.UserAgent, ResetURL: s.PublicURL + "/account/reset?email=" + url.QueryEscape(a.Email)})
	if err == nil {
		err = s.send(ctx, a.ID, a.Email, kind, composed)
	}
	if err != nil {
		s.log().ErrorContext(ctx, "mail an account factor change", "account", a.ID, "kind", kind, "err", err)
	}
}
