package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// pendingEnvelope writes a PENDING envelope with one signer straight to the store (access: the
// recipient's access auth) and returns its id, its item's id and the recipient.
func (a *testAPI) pendingEnvelope(access []envelope.AccessAuth) (string, string, envelope.Recipient) {
	a.t.Helper()
	ctx := context.Background()
	m, err := a.store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		a.t.Fatal(err)
	}
	stamp := time.Now().UnixNano()
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Arriendo", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal(fmt.Sprintf("links %d", stamp)), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: fmt.Sprintf("signer-%d@sobre.test", stamp), Name: "Tomás", Role: envelope.RoleSigner,
			AuthOptions: envelope.RecipientAuthOptions{AccessAuth: access}},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}}},
	}
	var id string
	if err := a.store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.store.MarkPending(ctx, id, nil); err != nil {
		a.t.Fatal(err)
	}
	e, err := a.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		a.t.Fatal(err)
	}
	return id, e.Items[0].ID, e.Recipients[0]
}

// exec runs SQL on the test's database, as time passing would change it.
func (a *testAPI) exec(sql string, args ...any) {
	a.t.Helper()
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		a.t.Fatalf("%s: %v", sql, err)
	}
}

// get sends a GET with the client's cookies and returns the status, the headers and the body.
func get(t *testing.T, c *http.Client, u string) (int, http.Header, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

// A locked code entry shows its page (403), and a code typed or asked for during the wait after
// a wrong one shows the form again with the wait and Retry-After (429).
func TestCodeEntryPages(t *testing.T) {
	smtpURL := os.Getenv("SOBRE_TEST_SMTP_URL")
	if smtpURL == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL is not set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	a := newTestAPI(t)
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	server, err := NewServer(Deps{Config: testConfig(t), Log: slog.New(slog.DiscardHandler), Store: a.store, Registry: prometheus.NewRegistry(),
		Ceremony: &ceremony.Service{Store: a.store, Mail: sender, PublicURL: "http://sobre.test", Log: slog.New(slog.DiscardHandler)}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(checkedHandler(t, server.Handler()))
	t.Cleanup(hs.Close)
	srv := hs.URL
	_, _, rec := a.pendingEnvelope([]envelope.AccessAuth{envelope.AccessAuthTwoFactorAuth})
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	sign := srv + "/sign/" + rec.Token
	if status, _, body := get(t, browser, sign); status != 200 || !strings.Contains(body, "Confirm it is you") {
		t.Fatalf("access page: %d %s", status, body)
	}
	post := func(path string, form url.Values) (int, http.Header, string) {
		res, err := browser.PostForm(sign+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(body)
	}

	// Ten wrong codes, the last just now: a 64-second wait.
	a.exec(`INSERT INTO access_code_guards (recipient_id, link_version, failures, last_failed_at) VALUES ($1, $2, 10, now())`, rec.ID, rec.LinkVersion)
	for _, p := range []struct {
		path string
		form url.Values
	}{{"/access-code/verify", url.Values{"code": {"123456"}}}, {"/access-code", nil}} {
		status, h, body := post(p.path, p.form)
		retry, _ := strconv.Atoi(h.Get("Retry-After"))
		if status != http.StatusTooManyRequests || retry < 60 || retry > 64 || !strings.Contains(body, "wait "+h.Get("Retry-After")+" seconds") {
			t.Fatalf("POST %s during the wait: %d, Retry-After %q: %s", p.path, status, h.Get("Retry-After"), body)
		}
	}

	// Twenty: locked, whatever is asked.
	a.exec(`UPDATE access_code_guards SET failures = 20, locked_at = now(), locks = 1 WHERE recipient_id = $1`, rec.ID)
	for _, try := range []func() (int, http.Header, string){
		func() (int, http.Header, string) { return get(t, browser, sign) },
		func() (int, http.Header, string) { return post("/access-code", nil) },
		func() (int, http.Header, string) { return post("/access-code/verify", url.Values{"code": {"123456"}}) },
	} {
		status, _, body := try()
		if status != http.StatusForbidden || !strings.Contains(body, "Code entry locked") || !strings.Contains(body, "send you the document again") || strings.Contains(body, "<form") {
			t.Fatalf("locked entry: %d %s", status, body)
		}
	}

	// A count kept for an earlier token counts for nothing.
	a.exec(`UPDATE access_code_guards SET link_version = link_version - 1 WHERE recipient_id = $1`, rec.ID)
	if status, _, body := get(t, browser, sign); status != 200 || !strings.Contains(body, "Confirm it is you") {
		t.Fatalf("access page after a new token: %d %s", status, body)
	}
}
