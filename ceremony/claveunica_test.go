package ceremony_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// localClaveUnica serves the local provider with opts and returns a relying party for it.
func localClaveUnica(t *testing.T, opts claveunicadev.Options) *claveunica.Client {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p, err := claveunicadev.New(srv.URL+"/openid", []claveunicadev.Client{{ID: "sobre", Secret: "s", RedirectPrefixes: []string{"http://sobre.test/"}}}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = p.Handler()
	return claveunica.New(claveunica.Config{IssuerURL: srv.URL + "/openid", ClientID: "sobre", ClientSecret: "s",
		RedirectURL: "http://sobre.test/auth/claveunica/callback"})
}

// loginAt follows an authorization URL to the provider's login form and posts run; it returns
// the callback URL the provider sends the browser to.
func loginAt(t *testing.T, authURL, run string) *url.URL {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	form := u.Query()
	form.Set("run", run)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.PostForm(u.Scheme+"://"+u.Host+u.Path, form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cb, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound {
		t.Fatalf("login: %s %q", res.Status, res.Header.Get("Location"))
	}
	return cb
}

func (b *browser) callback(cb *url.URL) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/auth/claveunica/callback?"+cb.RawQuery, nil)
	for _, c := range b.cookies {
		r.AddCookie(c)
	}
	return r
}

// A RUT_FIRMADO signer verified through Clave Única, and every way the login must be refused,
// each leaving the recipient unverified and its RUT_FIRMADO field empty.
func TestClaveUnicaLogin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, e, rec := pending(t, nil, envelope.FieldRUTFirmado)
	actor := func(r envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(r, "127.0.0.1", "test")
	}
	newService := func(opts claveunicadev.Options) *ceremony.Service {
		return &ceremony.Service{Store: store, ClaveUnica: localClaveUnica(t, opts), PublicURL: "http://sobre.test", Log: slog.New(slog.DiscardHandler)}
	}
	unverified := func(t *testing.T) {
		t.Helper()
		e, err := store.EnvelopeForRecipient(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range e.Fields {
			if f.Type == envelope.FieldRUTFirmado && f.Inserted {
				t.Fatalf("RUT_FIRMADO filled with %q after a refused login", f.CustomText)
			}
		}
		if id, _ := store.RecipientIdentity(ctx, rec.ID); id.ClaveUnicaRUN != "" {
			t.Fatalf("identity recorded after a refused login: %+v", id)
		}
	}

	refusals := []struct {
		name string
		opts claveunicadev.Options
		code envelope.Code
		edit func(cb *url.URL, b *browser)
	}{
		{"wrong state", claveunicadev.Options{}, envelope.CodeVerificationFailed, func(cb *url.URL, _ *browser) {
			q := cb.Query()
			q.Set("state", "not-the-state-we-sent")
			cb.RawQuery = q.Encode()
		}},
		{"state begun in another browser", claveunicadev.Options{}, envelope.CodeVerificationFailed, func(_ *url.URL, b *browser) { b.cookies = nil }},
		{"wrong nonce in the ID token", claveunicadev.Options{TokenNonce: "someone-elses"}, envelope.CodeVerificationFailed, nil},
		{"ID token from another issuer", claveunicadev.Options{TokenIssuer: "https://impostor.example/openid"}, envelope.CodeVerificationFailed, nil},
		{"ID token for another audience", claveunicadev.Options{TokenAudience: "another-client"}, envelope.CodeVerificationFailed, nil},
		{"RUN with a bad check digit", claveunicadev.Options{BadCheckDigit: true}, envelope.CodeInvalidRUN, nil},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			s := newService(c.opts)
			var b browser
			b.begin(t, s, rec)
			authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
			if err != nil {
				t.Fatal(err)
			}
			cb := loginAt(t, authURL, "44444444-4")
			if c.edit != nil {
				c.edit(cb, &b)
			}
			_, err = s.FinishClaveUnica(ctx, b.callback(cb), actor)
			if got := envelope.ErrorCode(err); got != c.code {
				t.Fatalf("FinishClaveUnica: %v (%s), want %s", err, got, c.code)
			}
			if err == nil || len(err.Error()) < 30 {
				t.Errorf("unclear message %v", err)
			}
			unverified(t)
		})
	}

	t.Run("verified, then the state cannot be used again", func(t *testing.T) {
		s := newService(claveunicadev.Options{})
		var b browser
		b.begin(t, s, rec)
		authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
		if err != nil {
			t.Fatal(err)
		}
		cb := loginAt(t, authURL, "44444444-4")
		v, err := s.FinishClaveUnica(ctx, b.callback(cb), actor)
		if err != nil {
			t.Fatal(err)
		}
		if v.Person.RUN != "44444444-4" || v.Recipient.ID != rec.ID || v.Next != "http://sobre.test/auth/claveunica/return/"+strconv.FormatInt(rec.ID, 10) {
			t.Fatalf("verified %+v", v)
		}
		st, err := s.StatusOf(ctx, b.request(), e, rec)
		if err != nil || st.ClaveUnicaRUN != "44444444-4" || st.CheckAction(envelope.RoleSigner) != nil {
			t.Fatalf("status after login %+v, %v", st, err)
		}
		// The login is this session's: no field and no recipient identity change until this
		// session completes.
		unverified(t)
		if _, err := s.FinishClaveUnica(ctx, b.callback(cb), actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
			t.Fatalf("a reused state: %v", err)
		}
		// The proof belongs to this browser: another one holding the same link has proved nothing.
		var other browser
		other.begin(t, s, rec)
		if st, _ := s.StatusOf(ctx, other.request(), e, rec); st.CheckAction(envelope.RoleSigner) == nil {
			t.Fatal("another browser's ceremony counts the Clave Única login")
		}
	})
}

// Two browsers on one signing link: A logs in with Clave Única as one person and B as another,
// after A. A completes: the RUT_FIRMADO field, the identity and the audit entries say A's RUN,
// whatever B did. B, which proved another RUN, can no longer complete.
func TestTheCompleterIsWhoSigns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// An EMAIL field is preset at send: the sender's value, which no session filled, must not block.
	store, e, rec := pending(t, nil, envelope.FieldRUTFirmado, envelope.FieldEmail)
	actor := func(r envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(r, "127.0.0.1", "test")
	}
	s := &ceremony.Service{Store: store, ClaveUnica: localClaveUnica(t, claveunicadev.Options{}), PublicURL: "http://sobre.test", Log: slog.New(slog.DiscardHandler)}
	login := func(b *browser, run string) ceremony.Status {
		t.Helper()
		b.begin(t, s, rec)
		authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishClaveUnica(ctx, b.callback(loginAt(t, authURL, run)), actor); err != nil {
			t.Fatal(err)
		}
		st, err := s.StatusOf(ctx, b.request(), e, rec)
		if err != nil || st.ClaveUnicaRUN != run || st.SessionID() == "" {
			t.Fatalf("status after %s's login: %+v, %v", run, st, err)
		}
		return st
	}
	var a, b browser
	stA := login(&a, "44444444-4")
	stB := login(&b, "55555555-5")
	sign := func(sessionID, typed string) {
		t.Helper()
		for _, f := range e.Fields {
			if f.Type == envelope.FieldSignature {
				if _, err := store.InsertFieldValue(ctx, rec, f.ID, &persistence.FieldValue{Typed: &typed}, sessionID, actor(rec)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	complete := func(sessionID string) error {
		_, err := store.CompleteRecipient(ctx, persistence.CompleteInput{RecipientCompletion: envelope.RecipientCompletion{EnvelopeID: e.ID, RecipientID: rec.ID, Actor: actor(rec), Now: time.Now(), SessionID: sessionID}})
		return err
	}
	// Browser B types the signature: A's login does not sign what B's browser filled.
	sign(stB.SessionID(), "Impostor")
	if err := complete(stA.SessionID()); envelope.ErrorCode(err) != envelope.CodeUnauthorized {
		t.Fatalf("completion by A over a value B's browser filled: %v, want UNAUTHORIZED", err)
	}
	sign(stA.SessionID(), "Tomás")
	// Without a session, or with an unknown one, nothing is proved.
	for _, id := range []string{"", "0000"} {
		if err := complete(id); envelope.ErrorCode(err) != envelope.CodeUnauthorized {
			t.Fatalf("completion with session %q: %v", id, err)
		}
	}
	if err := complete(stA.SessionID()); err != nil {
		t.Fatal(err)
	}
	after, err := store.EnvelopeForRecipient(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range after.Fields {
		if f.Type == envelope.FieldRUTFirmado && (f.CustomText != "44444444-4" || !f.Inserted) {
			t.Fatalf("RUT_FIRMADO = %q (inserted %v), want the completer's RUN", f.CustomText, f.Inserted)
		}
	}
	if id, _ := store.RecipientIdentity(ctx, rec.ID); id.ClaveUnicaRUN != "44444444-4" {
		t.Fatalf("identity %+v, want the completer's", id)
	}
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := store.AuditPage(ctx, persistence.ScopeOf(m), e.ID, 1, 100, true, true)
	if err != nil {
		t.Fatal(err)
	}
	var completed bool
	for _, entry := range log {
		data, _ := json.Marshal(entry.Data)
		if regexp.MustCompile(`55555555-5`).Match(data) {
			t.Fatalf("browser B's RUN is in the audit log: %s %s", entry.Type, data)
		}
		if entry.Type == "DOCUMENT_RECIPIENT_COMPLETED" {
			completed = regexp.MustCompile(`"run":"44444444-4"`).Match(data)
		}
	}
	if !completed {
		t.Fatal("the completion entry does not carry the completer's RUN")
	}
	_ = stB
}

// The callback looks at the browser's last ceremony.MaxCallbackSessions ceremony cookies only: a
// login whose session cookie comes before five others is not found (and stays unspent); among
// the last five, it is.
func TestClaveUnicaCallbackLooksAtFiveCookies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, _, rec := pending(t, nil, envelope.FieldRUTFirmado)
	actor := func(r envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(r, "127.0.0.1", "test")
	}
	s := &ceremony.Service{Store: store, ClaveUnica: localClaveUnica(t, claveunicadev.Options{}), PublicURL: "http://sobre.test", Log: slog.New(slog.DiscardHandler)}
	var b browser
	b.begin(t, s, rec)
	authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
	if err != nil {
		t.Fatal(err)
	}
	cb := loginAt(t, authURL, "44444444-4")
	others := func(n int) []*http.Cookie {
		var out []*http.Cookie
		for i := range n {
			out = append(out, &http.Cookie{Name: "sobre_ceremony_" + strconv.Itoa(90000+i), Value: "other-session-" + strconv.Itoa(i)})
		}
		return out
	}
	own := b.cookies
	b.cookies = append(append([]*http.Cookie{}, own...), others(ceremony.MaxCallbackSessions)...)
	if _, err := s.FinishClaveUnica(ctx, b.callback(cb), actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("own cookie before five others: %v, want VERIFICATION_FAILED", err)
	}
	b.cookies = append(others(ceremony.MaxCallbackSessions-1), own...)
	v, err := s.FinishClaveUnica(ctx, b.callback(cb), actor)
	if err != nil || v.Person.RUN != "44444444-4" {
		t.Fatalf("own cookie among the last five: %+v, %v", v, err)
	}
	b.cookies = nil
	if _, err := s.FinishClaveUnica(ctx, b.callback(cb), actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("no ceremony cookie: %v", err)
	}
}
