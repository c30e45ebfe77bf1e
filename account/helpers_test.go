package account_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// clock is the service's clock, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now().Truncate(time.Second)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a Service on a fresh database, its clock, and a connection to look at the rows.
type env struct {
	svc   *account.Service
	store *persistence.Store
	db    *pgx.Conn
	clk   *clock
	sink  string // mailpit's HTTP API, "" when the test does not mail
}

const publicURL = "http://127.0.0.1:8080"

// newEnv makes a Service at publicURL on a fresh database; withMail gives it the test SMTP sink.
func newEnv(t *testing.T, withMail bool) *env {
	t.Helper()
	ctx := context.Background()
	dbURL := pgtest.NewURL(t)
	store, err := persistence.Open(ctx, dbURL, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	e := &env{store: store, db: conn, clk: newClock()}
	e.svc = &account.Service{Store: store, PublicURL: publicURL, MailHost: "sobre.test", Log: slog.New(slog.DiscardHandler), Now: e.clk.now}
	if withMail {
		smtpURL, httpURL := os.Getenv("SOBRE_TEST_SMTP_URL"), os.Getenv("SOBRE_TEST_MAILPIT_URL")
		if smtpURL == "" || httpURL == "" {
			if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
				t.Fatal("SOBRE_TEST_SMTP_URL and SOBRE_TEST_MAILPIT_URL must be set")
			}
			t.Skip("no mail sink: run `make test`")
		}
		sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
		if err != nil {
			t.Fatal(err)
		}
		e.svc.Mail, e.sink = sender, httpURL
	}
	return e
}

// newAddress is an address no other test uses.
func newAddress(t *testing.T) string {
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	return fmt.Sprintf("%s-%d@sobre.test", strings.Trim(name, "-"), time.Now().UnixNano())
}

var client = account.Client{IP: "203.0.113.7", UserAgent: "test-browser/1.0"}

const goodPassword = "kq7-vrt-zw-ok"

// verified makes a verified account of a new address with goodPassword, without mail: the
// store's link is the one VerifyEmail takes (with the password, in a browser of its own).
func (e *env) verified(t *testing.T) account.Account {
	t.Helper()
	ctx := context.Background()
	hash, err := account.HashPassword(ctx, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := e.store.UpsertSignerAccount(ctx, newAddress(t), hash, "en", e.clk.now())
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("token-%d", time.Now().UnixNano())
	h := sha256.Sum256([]byte(token))
	if err := e.store.CreateAccountLink(ctx, a.ID, persistence.AccountLinkVerify, h[:], "", e.clk.now().Add(time.Hour), e.clk.now()); err != nil {
		t.Fatal(err)
	}
	acc, _, _, err := e.svc.VerifyEmail(ctx, httptest.NewRecorder(), (&browser{}).request(), token, goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// browser keeps the cookies the service sets, as a browser does.
type browser struct{ cookies []*http.Cookie }

func (b *browser) request() *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/account", nil)
	for _, c := range b.cookies {
		r.AddCookie(c)
	}
	return r
}

func (b *browser) keep(w *httptest.ResponseRecorder) {
	for _, c := range w.Result().Cookies() {
		b.cookies = append(slicesDeleteName(b.cookies, c.Name), c)
		if c.MaxAge < 0 {
			b.cookies = slicesDeleteName(b.cookies, c.Name)
		}
	}
}

func slicesDeleteName(cs []*http.Cookie, name string) []*http.Cookie {
	var out []*http.Cookie
	for _, c := range cs {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

// signIn signs browser b in to email with password.
func (e *env) signIn(t *testing.T, b *browser, email, password string) (account.Account, account.Session) {
	t.Helper()
	w := httptest.NewRecorder()
	a, s, err := e.svc.SignIn(context.Background(), w, b.request(), email, password, client)
	if err != nil {
		t.Fatalf("sign in %s: %v", email, err)
	}
	b.keep(w)
	return a, s
}

// code is err's domain code.
func code(err error) envelope.Code {
	if err == nil {
		return ""
	}
	return envelope.ErrorCode(err)
}

// failedAttempts reads an account's count of wrong passwords in a row.
func (e *env) failedAttempts(t *testing.T, id int64) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), `SELECT failed_attempts FROM signer_accounts WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// factorFailures reads an account's count of wrong codes and failed passkey assertions in a row.
func (e *env) factorFailures(t *testing.T, id int64) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), `SELECT failed_factor_attempts FROM signer_accounts WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// verifyIn uses the verification link token with password in browser b, keeping its cookie.
func (e *env) verifyIn(b *browser, token, password string) (account.Account, account.Session, string, error) {
	w := httptest.NewRecorder()
	a, s, next, err := e.svc.VerifyEmail(context.Background(), w, b.request(), token, password, client)
	b.keep(w)
	return a, s, next, err
}

// events counts an account's events of type typ.
func (e *env) events(t *testing.T, id int64, typ string) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), `SELECT count(*) FROM account_events WHERE account_id = $1 AND type = $2`, id, typ).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type sinkMessage struct {
	ID      string
	Subject string
	Text    string
	HTML    string
}

// mails returns the messages the sink holds for address, newest first.
func (e *env) mails(t *testing.T, address string) []sinkMessage {
	t.Helper()
	res, err := http.Get(e.sink + "/api/v1/search?query=" + url.QueryEscape("to:"+address))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct{ Messages []struct{ ID string } }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil {
		t.Fatal(err)
	}
	var out []sinkMessage
	for _, m := range found.Messages {
		r, err := http.Get(e.sink + "/api/v1/message/" + m.ID)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		var msg sinkMessage
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Fatal(err)
		}
		out = append(out, msg)
	}
	return out
}

// waitMails waits until the sink holds n messages for address and returns them, newest first.
func (e *env) waitMails(t *testing.T, address string, n int) []sinkMessage {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms := e.mails(t, address)
		if len(ms) >= n || time.Now().After(deadline) {
			if len(ms) != n {
				t.Fatalf("%d mails to %s, want %d", len(ms), address, n)
			}
			return ms
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// linkIn finds the account link of kind (verify, reset) in a mail's text and returns its token.
func linkIn(t *testing.T, m sinkMessage, kind string) string {
	t.Helper()
	found := regexp.MustCompile(regexp.QuoteMeta(publicURL) + `/account/` + kind + `/([A-Za-z0-9_-]+)`).FindStringSubmatch(m.Text)
	if found == nil {
		t.Fatalf("no %s link in %q", kind, m.Text)
	}
	if !strings.Contains(m.HTML, found[0]) {
		t.Errorf("the HTML part lacks the link %s", found[0])
	}
	return found[1]
}
