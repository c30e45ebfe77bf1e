package ceremony

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Clave Única from the embedded signing page. Clave Única cannot be framed, and the frame must
// not be navigated away, so the login runs in a popup window. The popup is a top-level window:
// it does not carry the frame's partitioned ceremony cookie, so the login cannot be bound to the
// session through the popup's cookies as StartClaveUnica's is. Instead:
//
//  1. the frame asks for a login (StartClaveUnicaPopup): its session, proved by its own cookie,
//     gets a state and nonce as usual, marked as a popup login, and the state is handed to the
//     frame's script in the answer's body;
//  2. the frame's script posts the state, in a form's body, from the popup it opened (a document
//     of Sobre's origin) to TakeClaveUnicaPopup, which takes the login once, only from a
//     request of Sobre's own origin, gives the popup a cookie holding the state, and sends it on
//     to Clave Única;
//  3. at the callback (FinishClaveUnica) a state unknown to the browser's ceremony cookies is
//     taken as a popup login when the popup's cookie holds that very state; the proof is kept
//     on the session that began it, and the popup goes to PopupDonePath, which tells the frame
//     and closes.
//
// No secret is in a URL beyond OAuth's state, which Clave Única's URLs carry anyway; the session
// secret never leaves the frame's cookie. Another site cannot make a browser take a login begun
// elsewhere: step 2 must come from Sobre's origin.

// PopupDonePath is where the popup lands after Clave Única: a page that tells the frame that
// opened it, and closes.
const PopupDonePath = "/auth/claveunica/popup/done"

// popupCookieName is the popup's cookie, holding the state of the login it took.
func (s *Service) popupCookieName() string {
	if s.secure() {
		return "__Host-sobre_claveunica_popup"
	}
	return "sobre_claveunica_popup"
}

// StartClaveUnicaPopup begins a Clave Única login of rec for this browser's (the frame's)
// ceremony, to run in a popup window, and returns its state for the frame's script.
func (s *Service) StartClaveUnicaPopup(ctx context.Context, r *http.Request, rec envelope.Recipient) (string, error) {
	state, _, err := s.beginLogin(ctx, r, rec, s.Store.BeginClaveUnicaPopup)
	return state, err
}

// TakeClaveUnicaPopup is the popup taking the login of state: once, from a page of Sobre's own
// origin (fromOwnOrigin). It sets the popup's cookie and returns the URL
// of Clave Única's login.
func (s *Service) TakeClaveUnicaPopup(ctx context.Context, w http.ResponseWriter, r *http.Request, state string) (string, error) {
	if s.ClaveUnica == nil {
		return "", envelope.Errorf(envelope.CodeAuthUnavailable, "ClaveÚnica is not configured on this server")
	}
	if !s.fromOwnOrigin(r) {
		return "", envelope.Errorf(envelope.CodeForbidden, "A ClaveÚnica login for an embedded page starts from that page only")
	}
	if state == "" || len(state) > 200 {
		return "", errUnknownLogin
	}
	nonce, err := s.Store.BindClaveUnicaPopup(ctx, hash(state))
	if errors.Is(err, persistence.ErrStateUnknown) {
		return "", errUnknownLogin
	}
	if err != nil {
		return "", err
	}
	http.SetCookie(w, &http.Cookie{Name: s.popupCookieName(), Value: state, Path: "/", MaxAge: int(ClaveUnicaTTL.Seconds()),
		HttpOnly: true, Secure: s.secure(), SameSite: http.SameSiteLaxMode})
	return s.authURL(ctx, state, nonce)
}

// fromOwnOrigin reports whether r was sent by a page of Sobre's origin (SOBRE_PUBLIC_URL): its
// Sec-Fetch-Site is same-origin, or, from a browser that sends no Sec-Fetch-Site, its Origin is
// Sobre's. (The pages' no-referrer policy makes a browser send Origin: null with their forms.)
func (s *Service) fromOwnOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	u, err := url.Parse(s.PublicURL)
	if err != nil {
		return false
	}
	return u.Host != "" && strings.EqualFold(r.Header.Get("Origin"), u.Scheme+"://"+u.Host)
}

// popupHolds reports whether the browser's popup cookie holds state.
func (s *Service) popupHolds(r *http.Request, state string) bool {
	ck, err := r.Cookie(s.popupCookieName())
	return err == nil && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(state)) == 1
}
