package ceremony_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// A Clave Única login of the embedded page in a popup: begun by the frame's session, taken once
// by a popup of Sobre's origin, and proved on the frame's session at the callback of that popup,
// which holds no ceremony cookie. Taken from another site, twice, or called back in a browser
// without the popup's cookie, it is refused.
func TestClaveUnicaPopup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, e, rec := pending(t, nil, envelope.FieldRUTFirmado)
	s := &ceremony.Service{Store: store, ClaveUnica: localClaveUnica(t, claveunicadev.Options{}), PublicURL: "http://sobre.test", Log: slog.New(slog.DiscardHandler)}
	actor := func(r envelope.Recipient) envelope.Actor { return envelope.RecipientActor(r, "127.0.0.1", "test") }

	var frame browser
	w := httptest.NewRecorder()
	if _, err := s.BeginEmbedded(ctx, w, frame.request(), rec); err != nil {
		t.Fatal(err)
	}
	frame.cookies = w.Result().Cookies()
	if _, err := s.StartClaveUnicaPopup(ctx, (&browser{}).request(), rec); envelope.ErrorCode(err) != envelope.CodeUnauthorized {
		t.Fatalf("a login begun without the frame's session: %v", err)
	}
	state, err := s.StartClaveUnicaPopup(ctx, frame.request(), rec)
	if err != nil || state == "" {
		t.Fatalf("start: %q, %v", state, err)
	}

	take := func(origin, site string) (*httptest.ResponseRecorder, string, error) {
		r := httptest.NewRequest(http.MethodPost, "/auth/claveunica/popup", strings.NewReader(url.Values{"state": {state}}.Encode()))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		w := httptest.NewRecorder()
		authURL, err := s.TakeClaveUnicaPopup(ctx, w, r, state)
		return w, authURL, err
	}
	for _, bad := range [][2]string{{"", ""}, {"null", ""}, {"https://evil.example", ""}, {"null", "cross-site"}, {"http://sobre.test", "same-site"}} {
		if _, _, err := take(bad[0], bad[1]); envelope.ErrorCode(err) != envelope.CodeForbidden {
			t.Errorf("taken with Origin %q, Sec-Fetch-Site %q: %v", bad[0], bad[1], err)
		}
	}
	tw, authURL, err := take("null", "same-origin")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := take("http://sobre.test", "same-origin"); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Errorf("taken twice: %v", err)
	}
	popup := browser{cookies: tw.Result().Cookies()}
	if len(popup.cookies) != 1 || popup.cookies[0].Value != state || !popup.cookies[0].HttpOnly {
		t.Fatalf("the popup's cookie: %v", popup.cookies)
	}
	cb := loginAt(t, authURL, "44444444-4")
	if _, err := s.FinishClaveUnica(ctx, (&browser{}).callback(cb), actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("a callback without the popup's cookie: %v", err)
	}
	v, err := s.FinishClaveUnica(ctx, popup.callback(cb), actor)
	if err != nil || v.Person.RUN != "44444444-4" || !strings.HasSuffix(v.Next, ceremony.PopupDonePath) {
		t.Fatalf("the popup's callback: %+v, %v", v, err)
	}
	st, err := s.StatusOf(ctx, frame.request(), e, rec)
	if err != nil || st.ClaveUnicaRUN != "44444444-4" {
		t.Fatalf("the frame's session holds %q, %v", st.ClaveUnicaRUN, err)
	}
	if _, err := s.FinishClaveUnica(ctx, popup.callback(cb), actor); err == nil {
		t.Error("the callback worked twice")
	}
}
