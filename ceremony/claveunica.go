package ceremony

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// IdentityProvider is Clave Única as the ceremony uses it: *claveunica.Client.
type IdentityProvider interface {
	// AuthCodeURL is where to send the browser to log in.
	AuthCodeURL(ctx context.Context, state, nonce string) (string, error)
	// Exchange redeems the callback's code: the ID token verified (issuer, audience, expiry,
	// nonce), userinfo read, the RUN's check digit verified.
	Exchange(ctx context.Context, code, state, nonce string) (claveunica.Person, error)
	// LogoutURL is where to end the provider's session before coming back to redirect, or "".
	LogoutURL(redirect string) string
}

// StartClaveUnica begins a Clave Única login for rec from this browser: a fresh state and nonce,
// bound to the browser's ceremony and single use, and the URL to send the browser to.
func (s *Service) StartClaveUnica(ctx context.Context, r *http.Request, rec envelope.Recipient) (string, error) {
	state, nonce, err := s.beginLogin(ctx, r, rec, s.Store.BeginClaveUnica)
	if err != nil {
		return "", err
	}
	return s.authURL(ctx, state, nonce)
}

// beginLogin draws a state and a nonce for a Clave Única login of rec and records them with
// record, bound to this browser's ceremony.
func (s *Service) beginLogin(ctx context.Context, r *http.Request, rec envelope.Recipient,
	record func(context.Context, persistence.Ceremony, []byte, string, time.Time) error) (state, nonce string, err error) {
	if s.ClaveUnica == nil {
		return "", "", envelope.Errorf(envelope.CodeAuthUnavailable, "ClaveÚnica is not configured on this server")
	}
	c, ok := s.Session(ctx, r, rec)
	if !ok {
		return "", "", envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link again to continue")
	}
	if state, err = randomToken(32); err != nil {
		return "", "", err
	}
	if nonce, err = randomToken(32); err != nil {
		return "", "", err
	}
	if err := record(ctx, c, hash(state), nonce, time.Now().Add(ClaveUnicaTTL)); err != nil {
		return "", "", err
	}
	return state, nonce, nil
}

// authURL is where a browser logs in to Clave Única for state and nonce.
func (s *Service) authURL(ctx context.Context, state, nonce string) (string, error) {
	u, err := s.ClaveUnica.AuthCodeURL(ctx, state, nonce)
	if err != nil {
		s.Log.WarnContext(ctx, "Clave Única unavailable", "err", err)
		return "", envelope.Errorf(envelope.CodeUnavailable, "ClaveÚnica cannot be reached right now; try again in a moment")
	}
	return u, nil
}

// MaxCallbackSessions is how many of a browser's ceremony cookies the Clave Única callback
// looks at: one per signing link open in the browser, the most recent first.
const MaxCallbackSessions = 5

var errUnknownLogin = envelope.Errorf(envelope.CodeVerificationFailed,
	"This ClaveÚnica login is unknown, was already used or has expired; start again from the signing page")

// Verified is the outcome of a Clave Única callback.
type Verified struct {
	Recipient envelope.Recipient
	Person    claveunica.Person
	// Next is where the browser goes now: the provider's logout (which comes back to the
	// signing page) or the signing page itself.
	Next string
}

// FinishClaveUnica completes a login at the callback: the state must be one this browser began
// (for one of the recipients whose ceremony it holds), unused and recent; the code is redeemed
// with the stored nonce; the verified RUN and name are kept for the recipient, and fill its
// RUT_FIRMADO fields. actor builds the audit actor for the recipient.
func (s *Service) FinishClaveUnica(ctx context.Context, r *http.Request, actor func(envelope.Recipient) envelope.Actor) (Verified, error) {
	var v Verified
	if s.ClaveUnica == nil {
		return v, envelope.Errorf(envelope.CodeAuthUnavailable, "ClaveÚnica is not configured on this server")
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return v, envelope.Errorf(envelope.CodeVerificationFailed, "ClaveÚnica did not verify you (%s); try again", clip(e, 60))
	}
	state, code := q.Get("state"), q.Get("code")
	if state == "" || code == "" || len(state) > 200 || len(code) > 500 {
		return v, envelope.Errorf(envelope.CodeVerificationFailed, "The answer from ClaveÚnica is incomplete; start again from the signing page")
	}
	// The state names its session; the browser's ceremony cookies say which sessions it holds.
	// The callback answers anyone, so it looks at no more than MaxCallbackSessions of them, the
	// last the browser sends (browsers send the oldest cookies first), in one query.
	var sessions [][]byte
	cookies := r.Cookies()
	for i := len(cookies) - 1; i >= 0 && len(sessions) < MaxCallbackSessions; i-- {
		if ck := cookies[i]; strings.HasPrefix(ck.Name, s.cookiePrefix()) && ck.Value != "" && len(ck.Value) <= 100 {
			sessions = append(sessions, hash(ck.Value))
		}
	}
	login, session, err := persistence.ClaveUnicaLogin{}, persistence.Ceremony{}, persistence.ErrStateUnknown
	if len(sessions) > 0 {
		login, session, err = s.Store.TakeClaveUnica(ctx, hash(state), sessions)
	}
	popup := false
	if errors.Is(err, persistence.ErrStateUnknown) && s.popupHolds(r, state) {
		login, session, err = s.Store.TakeClaveUnicaPopup(ctx, hash(state))
		popup = true
	}
	if errors.Is(err, persistence.ErrStateUnknown) {
		return v, errUnknownLogin
	}
	if err != nil {
		return v, err
	}
	if !session.ExpiresAt.After(time.Now()) {
		return v, envelope.Errorf(envelope.CodeVerificationFailed, "Your signing session has ended; open the signing link again")
	}
	person, err := s.ClaveUnica.Exchange(ctx, code, state, login.Nonce)
	if err != nil {
		s.Log.WarnContext(ctx, "Clave Única login refused", "recipient", login.RecipientID, "err", err)
		return v, loginError(err)
	}
	rec, err := s.Store.RecipientForSigning(ctx, login.RecipientID)
	if err != nil {
		return v, err
	}
	if err := s.Store.RecordClaveUnica(ctx, session, person.RUN, person.FullName(), actor(rec)); err != nil {
		if errors.Is(err, persistence.ErrNotTheExpectedPerson) && !errors.Is(err, persistence.ErrRefusedAgain) {
			s.Log.WarnContext(ctx, "Clave Única login of another RUN than the expected one refused", "envelope", rec.EnvelopeID, "recipient", rec.ID)
			s.tellOwner(ctx, rec, "a refused identity")
		}
		return v, err
	}
	v.Recipient, v.Person = rec, person
	back := s.PublicURL + "/auth/claveunica/return/" + strconv.FormatInt(rec.ID, 10)
	if popup {
		back = s.PublicURL + PopupDonePath
	}
	if v.Next = s.ClaveUnica.LogoutURL(back); v.Next == "" {
		v.Next = back
	}
	return v, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// loginError is what the person is told when Clave Única's answer is refused: the reason in
// plain words, never the technical detail (which is logged).
func loginError(err error) error {
	for _, known := range []struct {
		err  error
		code envelope.Code
	}{
		{claveunica.ErrRUN, envelope.CodeInvalidRUN},
		{claveunica.ErrNonce, envelope.CodeVerificationFailed},
		{claveunica.ErrToken, envelope.CodeVerificationFailed},
		{claveunica.ErrUserInfo, envelope.CodeVerificationFailed},
		{claveunica.ErrUnreachable, envelope.CodeUnavailable},
	} {
		if errors.Is(err, known.err) {
			return envelope.Errorf(known.code, "%s; nothing was signed. Start again from the signing page", known.err.Error())
		}
	}
	return envelope.Errorf(envelope.CodeVerificationFailed, "ClaveÚnica's answer could not be verified; nothing was signed. Start again from the signing page")
}
