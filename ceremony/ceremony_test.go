package ceremony_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestRequire(t *testing.T) {
	t.Parallel()
	rec := envelope.Recipient{ID: 7}
	cases := []struct {
		name      string
		global    envelope.AuthOptions
		own       envelope.RecipientAuthOptions
		fields    []envelope.Field
		want      ceremony.Requirements
		actionErr bool
	}{
		{name: "nothing asked"},
		{name: "envelope asks a code", global: envelope.AuthOptions{GlobalAccessAuth: []envelope.AccessAuth{envelope.AccessAuthTwoFactorAuth}},
			want: ceremony.Requirements{AccessCode: true}, actionErr: true},
		{name: "recipient's own list wins", global: envelope.AuthOptions{GlobalActionAuth: []envelope.ActionAuth{envelope.ActionAuthFAOHash}},
			own: envelope.RecipientAuthOptions{ActionAuth: []envelope.ActionAuth{envelope.ActionAuthClaveUnica}}, want: ceremony.Requirements{Action: []envelope.ActionAuth{envelope.ActionAuthClaveUnica}}, actionErr: true},
		{name: "explicit none overrides the envelope", global: envelope.AuthOptions{GlobalActionAuth: []envelope.ActionAuth{envelope.ActionAuthPasskey}},
			own: envelope.RecipientAuthOptions{ActionAuth: []envelope.ActionAuth{envelope.ActionAuthExplicitNone}}},
		{name: "a RUT_FIRMADO field needs Clave Única", fields: []envelope.Field{{RecipientID: 7, Type: envelope.FieldRUTFirmado}},
			want: ceremony.Requirements{RUTFirmado: true}, actionErr: true},
		{name: "another recipient's RUT_FIRMADO does not", fields: []envelope.Field{{RecipientID: 8, Type: envelope.FieldRUTFirmado}}},
		{name: "account methods", own: envelope.RecipientAuthOptions{AccessAuth: []envelope.AccessAuth{envelope.AccessAuthAccount},
			ActionAuth: []envelope.ActionAuth{envelope.ActionAuthPassword, envelope.ActionAuthPasskey, envelope.ActionAuthTwoFactorAuth}},
			want: ceremony.Requirements{AccessAccount: true, Action: []envelope.ActionAuth{envelope.ActionAuthPassword, envelope.ActionAuthPasskey,
				envelope.ActionAuthTwoFactorAuth}}, actionErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &envelope.Envelope{AuthOptions: c.global, Fields: c.fields}
			r := rec
			r.AuthOptions = c.own
			got := ceremony.Require(e, r)
			if got.AccessCode != c.want.AccessCode || got.AccessAccount != c.want.AccessAccount || got.RUTFirmado != c.want.RUTFirmado ||
				!slices.Equal(got.Action, c.want.Action) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			err := ceremony.Status{Requirements: ceremony.Require(e, r)}.CheckAction(envelope.RoleSigner)
			if (err != nil) != c.actionErr {
				t.Errorf("CheckAction with nothing proved: %v, want an error: %v", err, c.actionErr)
			}
		})
	}
}

func TestCheckActionFEA(t *testing.T) {
	t.Parallel()
	now := time.Now()
	cases := []struct {
		name string
		fea  *persistence.FEASignature
		at   time.Time
		code envelope.Code
	}{
		{"no signature", nil, now, envelope.CodeUnauthorized},
		{"signature over an older digest", &persistence.FEASignature{RUT: "44444444-4", Digest: "old"}, now, envelope.CodeUnauthorized},
		{"another person's certificate", &persistence.FEASignature{RUT: "55555555-5", Digest: "abc"}, now, envelope.CodeRUTMismatch},
		{"a signature given an hour ago", &persistence.FEASignature{RUT: "44444444-4", Digest: "abc"}, now.Add(-time.Hour), envelope.CodeUnauthorized},
		{"all proved", &persistence.FEASignature{RUT: "44444444-4", Digest: "abc"}, now, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := c.at
			st := ceremony.Status{Requirements: ceremony.Requirements{Action: []envelope.ActionAuth{envelope.ActionAuthFAOHash}}, RecipientID: 7, Digest: "abc",
				Session: &persistence.Ceremony{RecipientID: 7, ClaveUnicaRUN: "44444444-4", ClaveUnicaAt: &now, FEA: c.fea, FEAAt: &at}}
			err := st.CheckAction(envelope.RoleSigner)
			if got := envelope.ErrorCode(err); (err == nil && c.code != "") || (err != nil && got != c.code) {
				t.Fatalf("err = %v (%s), want %s", err, got, c.code)
			}
		})
	}
}

// pending stores a PENDING envelope with one signer and returns the store and the recipient.
func pending(t *testing.T, access []envelope.AccessAuth, fields ...envelope.FieldType) (*persistence.Store, *envelope.Envelope, envelope.Recipient) {
	t.Helper()
	store := pgtest.New(t)
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	email := fmt.Sprintf("ceremony-%d@sobre.test", time.Now().UnixNano())
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Arriendo", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 " + email), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: email, Name: "Tomás", Role: envelope.RoleSigner,
			AuthOptions: envelope.RecipientAuthOptions{AccessAuth: access}},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 1, Height: 1}}}}},
	}
	for _, ft := range fields {
		in.Recipients[0].Fields = append(in.Recipients[0].Fields, persistence.NewField{Field: envelope.Field{Type: ft, Page: 1, PositionY: 20, Width: 1, Height: 1}})
	}
	var id string
	err = store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return store, e, e.Recipients[0]
}

func sink(t *testing.T) (smtpURL, httpURL string) {
	smtpURL, httpURL = os.Getenv("SOBRE_TEST_SMTP_URL"), os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if smtpURL == "" || httpURL == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL and SOBRE_TEST_MAILPIT_URL must be set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	return smtpURL, httpURL
}

// lastCode reads the newest access code mailed to address from the sink.
func lastCode(t *testing.T, httpURL, address string) string {
	t.Helper()
	res, err := http.Get(httpURL + "/api/v1/search?query=" + url.QueryEscape("to:"+address))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct{ Messages []struct{ ID string } }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil || len(found.Messages) == 0 {
		t.Fatalf("no code mail for %s: %v", address, err)
	}
	msg, err := http.Get(httpURL + "/api/v1/message/" + found.Messages[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer msg.Body.Close()
	body, _ := io.ReadAll(msg.Body)
	var m struct{ Text string }
	_ = json.Unmarshal(body, &m)
	code := regexp.MustCompile(`\b\d{6}\b`).FindString(m.Text)
	if code == "" {
		t.Fatalf("no code in %q", m.Text)
	}
	return code
}

// browser keeps the cookies a ceremony sets, like a browser would.
type browser struct{ cookies []*http.Cookie }

func (b *browser) request() *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/sign/x", nil)
	for _, c := range b.cookies {
		r.AddCookie(c)
	}
	return r
}

func (b *browser) begin(t *testing.T, s *ceremony.Service, rec envelope.Recipient) {
	t.Helper()
	w := httptest.NewRecorder()
	if _, err := s.Begin(context.Background(), w, b.request(), rec); err != nil {
		t.Fatal(err)
	}
	b.cookies = append(b.cookies, w.Result().Cookies()...)
}

func TestAccessCode(t *testing.T) {
	t.Parallel()
	smtpURL, httpURL := sink(t)
	store, e, rec := pending(t, []envelope.AccessAuth{envelope.AccessAuthTwoFactorAuth})
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	s := &ceremony.Service{Store: store, Mail: sender, PublicURL: "http://127.0.0.1", Log: slog.New(slog.DiscardHandler), Now: clk.now}
	ctx := context.Background()
	actor := envelope.RecipientActor(rec, "127.0.0.1", "test")

	var b browser
	b.begin(t, s, rec)
	if len(b.cookies) != 1 || !b.cookies[0].HttpOnly || b.cookies[0].SameSite != http.SameSiteLaxMode || b.cookies[0].Secure {
		t.Fatalf("ceremony cookie %+v: want one HttpOnly, SameSite=Lax cookie (not Secure over http)", b.cookies)
	}
	st, err := s.StatusOf(ctx, b.request(), e, rec)
	if err != nil {
		t.Fatal(err)
	}
	if envelope.ErrorCode(st.CheckAccess()) != envelope.CodeUnauthorized {
		t.Fatal("the document is shown before the code")
	}

	if err := s.RequestCode(ctx, b.request(), e, rec, actor); err != nil {
		t.Fatal(err)
	}
	code := lastCode(t, httpURL, rec.Email)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	if err := s.VerifyCode(ctx, b.request(), rec, wrong, actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("a wrong code: %v", err)
	}
	// The right code from another browser (no session, or another session) does not count.
	var other browser
	other.begin(t, s, rec)
	if err := s.VerifyCode(ctx, other.request(), rec, code, actor); err == nil {
		t.Fatal("a code verified in a browser that did not ask for it")
	}
	if err := s.VerifyCode(ctx, b.request(), rec, code, actor); err != nil {
		t.Fatalf("the right code: %v", err)
	}
	if st, _ = s.StatusOf(ctx, b.request(), e, rec); st.CheckAccess() != nil {
		t.Fatal("verified session still refused")
	}
	if st, _ = s.StatusOf(ctx, other.request(), e, rec); st.CheckAccess() == nil {
		t.Fatal("another browser's session was verified too")
	}
	// A code works once.
	if err := s.VerifyCode(ctx, b.request(), rec, code, actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("a used code: %v", err)
	}
	// Five wrong guesses spend a code.
	if err := s.RequestCode(ctx, other.request(), e, rec, actor); err != nil {
		t.Fatal(err)
	}
	fresh := lastCode(t, httpURL, rec.Email)
	bad := "222222"
	if fresh == bad {
		bad = "333333"
	}
	for range ceremony.AccessCodes.MaxAttempts {
		clk.add(envelope.CodeBackoffCap) // past the wait after a wrong code
		if err := s.VerifyCode(ctx, other.request(), rec, bad, actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
			t.Fatalf("a wrong code: %v", err)
		}
	}
	clk.add(envelope.CodeBackoffCap)
	if err := s.VerifyCode(ctx, other.request(), rec, fresh, actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
		t.Fatalf("the code after five wrong guesses: %v, want it spent", err)
	}
	// At most five codes in the window.
	var lastErr error
	for range ceremony.AccessCodes.MaxRequests {
		lastErr = s.RequestCode(ctx, other.request(), e, rec, actor)
	}
	var de *envelope.Error
	if !errors.As(lastErr, &de) || de.Code != envelope.CodeTooManyRequests || de.RetryAfter != 0 {
		t.Fatalf("the sixth code in 15 minutes: %v, want TOO_MANY_REQUESTS for the rate", lastErr)
	}
	entries, err := store.AuditTypes(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DOCUMENT_ACCESS_AUTH_2FA_REQUESTED", "DOCUMENT_ACCESS_AUTH_2FA_FAILED", "DOCUMENT_ACCESS_AUTH_2FA_VALIDATED"} {
		if !slices.Contains(entries, want) {
			t.Errorf("no %s in the audit log %v", want, entries)
		}
	}
}
