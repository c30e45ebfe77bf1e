package ceremony

import (
	"context"
	"errors"
	"net/http"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// accountOf adds to st the signer account this browser is signed in to, and the account proofs
// its session gave for the recipient while signed in to that account. A recipient asked for an
// account method has the account bound to this browser's session (persistence.BindAccount),
// which is what the completion checks again: signing out, or signing in to another account,
// takes those proofs away.
func (s *Service) accountOf(ctx context.Context, r *http.Request, st *Status) error {
	if s.Accounts == nil {
		return nil
	}
	a, sess, ok := s.Accounts.Current(ctx, r)
	if !ok {
		return nil
	}
	st.Account, st.AccountSession = &a, &sess
	st.AccountMatches = envelope.CheckAccount(st.signedIn(), st.Email) == nil
	if st.Session == nil || !st.NeedsAccount() {
		return nil
	}
	if st.Session.AccountID == a.ID {
		st.PasswordAt, st.TOTPAt, st.PasskeyAt = st.Session.PasswordAt, st.Session.TOTPAt, st.Session.PasskeyAt
	}
	if st.Session.AccountID != a.ID || st.Session.AccountSessionID != sess.ID {
		if err := s.Store.BindAccount(ctx, *st.Session, a.ID, sess.ID); err != nil {
			return err
		}
		if st.Session.AccountID != a.ID {
			st.PasswordAt, st.TOTPAt, st.PasskeyAt = nil, nil, nil
		}
		st.Session.AccountID, st.Session.AccountSessionID = a.ID, sess.ID
	}
	return nil
}

// mayProve refuses an account proof for method that this browser cannot give: no session with
// the recipient, the method not among the recipient's, or not signed in to the account of the
// recipient's email.
func (st Status) mayProve(method envelope.ActionAuth) error {
	if st.Session == nil {
		return envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link again to continue")
	}
	if !st.Offers(method) {
		return envelope.Errorf(envelope.CodeInvalidRequest, "This recipient does not sign with %s", method)
	}
	if st.ExpectedRUT != "" {
		return envelope.Errorf(envelope.CodeInvalidRequest, "This document names who must sign it: only ClaveÚnica or an advanced electronic signature proves it")
	}
	return envelope.CheckAccount(st.signedIn(), st.Email)
}

// ProvePassword checks the account's password typed again on rec's signing page (PASSWORD) and
// keeps the proof with this browser's session.
func (s *Service) ProvePassword(ctx context.Context, st Status, rec envelope.Recipient, password string, c account.Client, actor envelope.Actor) error {
	if err := st.mayProve(envelope.ActionAuthPassword); err != nil {
		return err
	}
	err := s.Accounts.ConfirmPassword(ctx, *st.Account, password, c)
	return s.kept(ctx, st, rec, envelope.ActionAuthPassword, "", err, actor)
}

// ProveTOTP checks a code of the account's authenticator app (or a recovery code) typed on rec's
// signing page (TWO_FACTOR_AUTH action auth) and keeps the proof with this browser's session.
func (s *Service) ProveTOTP(ctx context.Context, st Status, rec envelope.Recipient, code string, c account.Client, actor envelope.Actor) error {
	if err := st.mayProve(envelope.ActionAuthTwoFactorAuth); err != nil {
		return err
	}
	err := s.Accounts.VerifyTOTP(ctx, *st.Account, code, c)
	return s.kept(ctx, st, rec, envelope.ActionAuthTwoFactorAuth, "", err, actor)
}

// PasskeyOptions starts a passkey assertion for rec's signing page (PASSKEY): the options for
// navigator.credentials.get, user verification required.
func (s *Service) PasskeyOptions(ctx context.Context, st Status) ([]byte, error) {
	if err := st.mayProve(envelope.ActionAuthPasskey); err != nil {
		return nil, err
	}
	return s.Accounts.BeginPasskeyAssertion(ctx, *st.Account, *st.AccountSession)
}

// ProvePasskey checks the browser's passkey assertion and keeps the proof, with the passkey's
// credential id, with this browser's session. It returns that credential id.
func (s *Service) ProvePasskey(ctx context.Context, st Status, rec envelope.Recipient, response []byte, c account.Client, actor envelope.Actor) (string, error) {
	if err := st.mayProve(envelope.ActionAuthPasskey); err != nil {
		return "", err
	}
	id, err := s.Accounts.FinishPasskeyAssertion(ctx, *st.Account, *st.AccountSession, response, c)
	return id, s.kept(ctx, st, rec, envelope.ActionAuthPasskey, id, err, actor)
}

// kept records the outcome of an account proof: on success the proof, on a wrong answer an
// entry in the envelope's audit log (the account counts it towards its lock itself).
func (s *Service) kept(ctx context.Context, st Status, rec envelope.Recipient, method envelope.ActionAuth, credentialID string, proved error, actor envelope.Actor) error {
	if proved != nil {
		var de *envelope.Error
		if errors.As(proved, &de) && (de.Code == envelope.CodeAuthFailed || de.Code == envelope.CodeAccountLocked) {
			if err := s.Store.RecordAccountProofFailure(ctx, rec, method, de.Code == envelope.CodeAccountLocked, actor); err != nil {
				s.Log.ErrorContext(ctx, "audit a failed account proof", "envelope", rec.EnvelopeID, "recipient", rec.ID, "err", err)
			}
		}
		return proved
	}
	return s.Store.RecordAccountProof(ctx, *st.Session, method, st.Account.ID, st.AccountSession.ID, credentialID)
}
