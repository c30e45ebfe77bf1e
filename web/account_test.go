package web

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/pquerna/otp/totp"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestSafeNext(t *testing.T) {
	cases := []struct {
		raw  string
		keep bool
	}{
		{"/sign/abcdefghijklmnop", true},
		{"/sign/abcdefghijklmnop?sent=1", true},
		{"/account", true},
		{"/account/", true},
		{"/account?next=%2Fsign%2Fabc", true},
		{"/account/signin?email=a%40b.cl", true},
		{"", false},
		{"/", false},
		{"/sign/", false},
		{"/signx/abc", false},
		{"/accounts", false},
		{"/accountevil", false},
		{"/api/v2/envelope", false},
		{"sign/abc", false},
		{"https://evil.example/sign/abc", false},
		{"http://127.0.0.1/account", false},
		{"//evil.example/sign/abc", false},
		{"//evil.example", false},
		{"/\\evil.example", false},
		{"/sign/abc\\..\\..\\evil", false},
		{"/sign/../..//evil.example", false},
		{"/sign/./abc", false},
		{"/sign/abc/..", false},
		{"/sign/abc\r\nSet-Cookie: x=1", false},
		{"/sign/abc\tdef", false},
		{"javascript:alert(1)", false},
		{"mailto:a@b.cl", false},
		{"/sign/" + strings.Repeat("a", 1100), false},
	}
	for _, c := range cases {
		got := safeNext(c.raw)
		if c.keep && got != c.raw {
			t.Errorf("safeNext(%q) = %q, want it kept", c.raw, got)
		}
		if !c.keep && got != "" {
			t.Errorf("safeNext(%q) = %q, want it dropped", c.raw, got)
		}
	}
}

func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/sign/abc", "/account", "//x", "/\\x", "https://x/sign/", "/sign/../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := safeNext(raw)
		if got == "" {
			return
		}
		// What is kept stays on Sobre whichever way a browser resolves it.
		base, _ := url.Parse("https://sobre.example/sign/x")
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("kept %q, which does not parse: %v", got, err)
		}
		if r := base.ResolveReference(u); r.Host != "sobre.example" || r.Scheme != "https" {
			t.Fatalf("kept %q, which leads to %s", got, r)
		}
		if !strings.HasPrefix(got, "/sign/") && !strings.HasPrefix(got, "/account") {
			t.Fatalf("kept %q, outside /sign/ and /account", got)
		}
	})
}

func TestAccountLanguage(t *testing.T) {
	cases := []struct {
		asked, accept string
		want          envelope.Language
		explicit      bool
	}{
		{"", "", envelope.LanguageEnglish, false},
		{"", "es-CL,es;q=0.9,en;q=0.8", envelope.LanguageSpanish, false},
		{"", "ES", envelope.LanguageSpanish, false},
		{"", "en-US,es;q=0.9", envelope.LanguageEnglish, false},
		{"", "fr-FR", envelope.LanguageEnglish, false},
		{"en", "es-CL", envelope.LanguageEnglish, true},
		{"es", "en-US", envelope.LanguageSpanish, true},
		{"fr", "es-CL", envelope.LanguageSpanish, false},
		{"ES", "", envelope.LanguageEnglish, false},
	}
	for _, c := range cases {
		got, explicit := accountLanguage(c.asked, c.accept)
		if got != c.want || explicit != c.explicit {
			t.Errorf("accountLanguage(%q, %q) = %s, %v; want %s, %v", c.asked, c.accept, got, explicit, c.want, c.explicit)
		}
	}
}

// pagesServer serves the pages with accounts kept by svc.
func pagesServer(t *testing.T, svc *account.Service) *httptest.Server {
	t.Helper()
	h := &Handler{Accounts: svc, Log: slog.New(slog.DiscardHandler), ClientIP: func(r *http.Request) string { return "192.0.2.7" }}
	r := chi.NewRouter()
	h.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// visitor is a browser: it keeps cookies, follows no redirect, and says every request is
// same-origin, as a browser does for Sobre's own forms.
type visitor struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newVisitor(t *testing.T, srv *httptest.Server) *visitor {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &visitor{t: t, base: srv.URL, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (v *visitor) do(method, path string, form url.Values, header map[string]string) answer {
	v.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, v.base+path, body)
	if err != nil {
		v.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, val := range header {
		req.Header.Set(k, val)
	}
	res, err := v.client.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

func (v *visitor) get(path string) answer { v.t.Helper(); return v.do(http.MethodGet, path, nil, nil) }
func (v *visitor) post(path string, form url.Values) answer {
	v.t.Helper()
	return v.do(http.MethodPost, path, form, nil)
}

func TestCrossSitePostsRefused(t *testing.T) {
	srv := pagesServer(t, &account.Service{Log: slog.New(slog.DiscardHandler)})
	v := newVisitor(t, srv)
	posts := []string{"/account/signup", "/account/signin", "/account/signout", "/account/reset",
		"/account/reset/abcdefghijklmnopqrstuvwxyz", "/account/verify/abcdefghijklmnopqrstuvwxyz", "/account/totp/begin",
		"/account/totp/confirm", "/account/totp/disable", "/account/passkeys/options", "/account/passkeys",
		"/account/passkeys/1/delete", "/account/factor/confirm", "/account/factor/passkey/options", "/account/factor/passkey"}
	form := url.Values{"email": {"ana@example.cl"}, "password": {"correct horse battery"}, "password2": {"other"}}
	for _, path := range posts {
		for _, h := range []map[string]string{
			{"Sec-Fetch-Site": "cross-site"},
			{"Sec-Fetch-Site": "same-site"},
			{"Sec-Fetch-Site": "", "Origin": "https://evil.example"},
		} {
			a := v.do(http.MethodPost, path, form, h)
			if a.status != http.StatusForbidden {
				t.Errorf("POST %s with %v: %d, want 403", path, h, a.status)
			}
			if !strings.Contains(a.body, accountTexts[envelope.LanguageEnglish].CrossSiteHeading) {
				t.Errorf("POST %s with %v: the refusal page does not say why:\n%s", path, h, a.body)
			}
		}
	}
	// The same form from Sobre's own page reaches the handler: here its check of the two passwords.
	if a := v.post("/account/signup", form); a.status != http.StatusBadRequest {
		t.Errorf("same-origin sign-up with two passwords: %d, want 400", a.status)
	}
	// A GET from another site (a link in a mail) is served.
	if a := v.do(http.MethodGet, "/account/signin", nil, map[string]string{"Sec-Fetch-Site": "cross-site"}); a.status != http.StatusOK {
		t.Errorf("cross-site GET of the sign-in page: %d, want 200", a.status)
	}
}

func TestAccountPageHeadersAndLanguage(t *testing.T) {
	srv := pagesServer(t, &account.Service{Log: slog.New(slog.DiscardHandler)})
	v := newVisitor(t, srv)
	cases := []struct {
		path, accept string
		want         envelope.Language
		carried      bool
	}{
		{"/account/signin", "", envelope.LanguageEnglish, false},
		{"/account/signin", "es-CL,es;q=0.9", envelope.LanguageSpanish, false},
		{"/account/signup?lang=en", "es-CL", envelope.LanguageEnglish, true},
		{"/account/reset?lang=es", "en-US", envelope.LanguageSpanish, true},
		{"/account/signup?lang=de", "es", envelope.LanguageSpanish, false},
	}
	for _, c := range cases {
		a := v.do(http.MethodGet, c.path, nil, map[string]string{"Accept-Language": c.accept})
		if a.status != http.StatusOK {
			t.Fatalf("GET %s: %d", c.path, a.status)
		}
		if !strings.Contains(a.body, `<html lang="`+string(c.want)+`">`) {
			t.Errorf("GET %s (Accept-Language %q): not in %s", c.path, c.accept, c.want)
		}
		if !strings.Contains(a.body, accountTexts[c.want].Email) {
			t.Errorf("GET %s: the form's labels are not in %s", c.path, c.want)
		}
		if got := strings.Contains(a.body, `name="lang" value="`+string(c.want)+`"`); got != c.carried {
			t.Errorf("GET %s: the form carries lang: %v, want %v", c.path, got, c.carried)
		}
		for k, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if got := a.header.Get(k); got != want {
				t.Errorf("GET %s: %s = %q, want %q", c.path, k, got, want)
			}
		}
		if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", c.path, csp)
		}
	}
}

func TestSignUpForm(t *testing.T) {
	srv := pagesServer(t, &account.Service{Log: slog.New(slog.DiscardHandler)})
	v := newVisitor(t, srv)
	a := v.get("/account/signup?email=ana%40example.cl&next=" + url.QueryEscape("/sign/abcdefghijklmnop"))
	for _, want := range []string{`id="signup-email"`, `value="ana@example.cl"`, `id="signup-password"`, `id="signup-password2"`,
		`id="signup-submit"`, `name="next" value="/sign/abcdefghijklmnop"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("sign-up page lacks %s", want)
		}
	}
	// An address elsewhere is no next: it is not carried.
	a = v.get("/account/signup?next=" + url.QueryEscape("https://evil.example/"))
	if strings.Contains(a.body, "evil.example") {
		t.Error("the sign-up page carries a next that leads off Sobre")
	}
	cases := []struct {
		name    string
		form    url.Values
		invalid string
	}{
		{"passwords differ", url.Values{"email": {"ana@example.cl"}, "password": {"correct horse battery"}, "password2": {"correct horse batterx"}}, "signup-password2"},
		{"no email", url.Values{"password": {"correct horse battery"}, "password2": {"correct horse battery"}}, "signup-email"},
		{"no password", url.Values{"email": {"ana@example.cl"}}, "signup-password"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := v.post("/account/signup", c.form)
			if a.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", a.status)
			}
			if !strings.Contains(a.body, `id="err-`+c.invalid+`"`) || !regexp.MustCompile(`aria-describedby="[^"]*\berr-`+c.invalid+`"`).MatchString(a.body) {
				t.Errorf("the page does not name %s as the problem:\n%s", c.invalid, a.body)
			}
			if strings.Contains(a.body, "correct horse") {
				t.Error("the page shows a password back")
			}
			if c.form.Get("email") != "" && !strings.Contains(a.body, `value="`+c.form.Get("email")+`"`) {
				t.Error("the email typed is not kept")
			}
		})
	}
}

// accountsService is a real account service: PostgreSQL and the mail sink.
func accountsService(t *testing.T) (*account.Service, string) {
	t.Helper()
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
	return &account.Service{Store: pgtest.New(t), Mail: sender, MailHost: "sobre.test", PublicURL: "http://127.0.0.1:8080",
		Log: slog.New(slog.DiscardHandler)}, httpURL
}

// mailedLink waits for the newest mail to address and returns its link that starts with prefix.
func mailedLink(t *testing.T, sink, address, prefix string) string {
	t.Helper()
	link := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[A-Za-z0-9_\-]+`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l := link.FindString(newestMail(t, sink, address)); l != "" {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mail to %s with a link %s…", address, prefix)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func newestMail(t *testing.T, sink, address string) string {
	t.Helper()
	res, err := http.Get(sink + "/api/v1/search?query=" + url.QueryEscape("to:"+address))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct{ Messages []struct{ ID string } }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil || len(found.Messages) == 0 {
		return ""
	}
	msg, err := http.Get(sink + "/api/v1/message/" + found.Messages[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer msg.Body.Close()
	var m struct{ Text string }
	if err := json.NewDecoder(msg.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m.Text
}

// uniqueEmail is an address no other test run uses.
func uniqueEmail(who string) string {
	return who + "-" + time.Now().Format("150405.000000000") + "@example.cl"
}

func TestSignUpVerifySignIn(t *testing.T) {
	svc, sink := accountsService(t)
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)
	email := uniqueEmail("ana")
	const password = "a long passphrase of Ana"
	next := "/sign/abcdefghijklmnop"

	// Unverified: the sign-in form says so and offers the link again.
	a := v.post("/account/signup", url.Values{"email": {email}, "password": {password}, "password2": {password}, "next": {next}})
	if a.status != http.StatusOK || !strings.Contains(a.body, `id="signup-sent"`) || !strings.Contains(a.body, email) {
		t.Fatalf("sign-up: %d, want the check-your-email page naming %s:\n%s", a.status, email, a.body)
	}
	a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}})
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, `id="signin-resend-link"`) {
		t.Fatalf("sign-in before verifying: %d, want 401 with the link to send it again:\n%s", a.status, a.body)
	}
	if !strings.Contains(a.body, `href="/account/signup?email=`+url.QueryEscape(email)) {
		t.Errorf("the send-again link does not lead to sign-up with the address:\n%s", a.body)
	}

	// The mailed link shows the address and asks for the password; opening it changes nothing.
	path := strings.TrimPrefix(mailedLink(t, sink, email, "http://127.0.0.1:8080/account/verify/"), "http://127.0.0.1:8080")
	for range 2 {
		a = v.get(path)
		if a.status != http.StatusOK {
			t.Fatalf("verify page: %d, want 200:\n%s", a.status, a.body)
		}
	}
	for _, want := range []string{`id="verify-email">` + email + `<`, `<label for="verify-password">`, `id="verify-password"`,
		`autocomplete="current-password"`, `id="verify-submit"`, `action="` + path + `"`, `id="verify-signup-link"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the verify page lacks %s:\n%s", want, a.body)
		}
	}
	if a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}}); a.status != http.StatusUnauthorized {
		t.Fatalf("sign-in after opening the link: %d, want 401 (not verified)", a.status)
	}
	// A wrong password: the form again, the problem on the password, the link still working.
	a = v.post(path, url.Values{"password": {"not the password"}})
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, `id="err-verify-password"`) ||
		!strings.Contains(a.body, accountTexts[envelope.LanguageEnglish].VerifyWrongPassword) || strings.Contains(a.body, "not the password<") {
		t.Fatalf("the link with a wrong password: %d:\n%s", a.status, a.body)
	}
	if a = v.post(path, url.Values{}); a.status != http.StatusBadRequest || !strings.Contains(a.body, `id="err-verify-password"`) {
		t.Fatalf("the link without a password: %d:\n%s", a.status, a.body)
	}
	// The right one verifies, signs in and goes to the link's next.
	a = v.post(path, url.Values{"password": {password}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != next {
		t.Fatalf("verify: %d to %q, want 303 to %s", a.status, a.header.Get("Location"), next)
	}
	if a = v.get("/account"); a.status != http.StatusOK || !strings.Contains(a.body, `id="account-email">`+email) {
		t.Fatalf("the account page after verifying: %d, want the account signed in", a.status)
	}
	// A used link works no more, opened or sent.
	if a = v.get(path); a.status != http.StatusNotFound {
		t.Errorf("a used verification link: %d, want 404", a.status)
	}
	if a = v.post(path, url.Values{"password": {password}}); a.status != http.StatusNotFound {
		t.Errorf("a used verification link sent again: %d, want 404", a.status)
	}
	if a = v.post("/account/signout", url.Values{}); a.status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", a.status)
	}

	// Not signed in: the account page sends to sign-in, and back.
	a = v.get("/account")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account/signin?next=%2Faccount" {
		t.Fatalf("account page signed out: %d to %q, want 303 to sign-in with next=/account", a.status, a.header.Get("Location"))
	}

	// A wrong password: 401, the form again with the address and no password.
	a = v.post("/account/signin", url.Values{"email": {email}, "password": {"not the password"}, "next": {next}})
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, accountTexts[envelope.LanguageEnglish].WrongPassword) ||
		!strings.Contains(a.body, `value="`+email+`"`) || strings.Contains(a.body, "not the password") {
		t.Fatalf("wrong password: %d:\n%s", a.status, a.body)
	}
	// Right: to next; a next elsewhere is dropped for the account page.
	a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}, "next": {"https://evil.example/"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account" {
		t.Fatalf("sign-in with a foreign next: %d to %q, want 303 to /account", a.status, a.header.Get("Location"))
	}
	a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}, "next": {next}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != next {
		t.Fatalf("sign-in: %d to %q, want 303 to %s", a.status, a.header.Get("Location"), next)
	}
	a = v.get("/account")
	if a.status != http.StatusOK || !strings.Contains(a.body, `id="account-email">`+email) || !strings.Contains(a.body, `id="totp-begin"`) ||
		!strings.Contains(a.body, `id="passkey-add"`) || !strings.Contains(a.body, "192.0.2.7") {
		t.Fatalf("account page: %d:\n%s", a.status, a.body)
	}

	// Signing out ends it.
	if a = v.post("/account/signout", url.Values{"next": {next}}); a.status != http.StatusSeeOther || a.header.Get("Location") != next {
		t.Fatalf("sign-out: %d to %q", a.status, a.header.Get("Location"))
	}
	if a = v.get("/account"); a.status != http.StatusSeeOther {
		t.Fatalf("account page after signing out: %d, want 303 to sign-in", a.status)
	}
}

func TestSignInLocked(t *testing.T) {
	svc, sink := accountsService(t)
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)
	email := uniqueEmail("bea")
	const password = "a long passphrase of Bea"
	if a := v.post("/account/signup", url.Values{"email": {email}, "password": {password}, "password2": {password}}); a.status != http.StatusOK {
		t.Fatalf("sign-up: %d", a.status)
	}
	v.verify(sink, email, password)
	v.post("/account/signout", url.Values{})
	var a answer
	for i := 0; i < account.MaxFailures; i++ {
		a = v.post("/account/signin?lang=es", url.Values{"email": {email}, "password": {"wrong password " + string(rune('a'+i))}})
	}
	if a.status != http.StatusTooManyRequests {
		t.Fatalf("after %d wrong passwords: %d, want 429:\n%s", account.MaxFailures, a.status, a.body)
	}
	secs, err := time.ParseDuration(a.header.Get("Retry-After") + "s")
	if err != nil || secs <= 0 || secs > account.LockDuration {
		t.Errorf("Retry-After %q, want whole seconds up to %s", a.header.Get("Retry-After"), account.LockDuration)
	}
	if !strings.Contains(a.body, "bloqueada") || !strings.Contains(a.body, `<html lang="es">`) {
		t.Errorf("the locked page is not the Spanish one asked for:\n%s", a.body)
	}
	// Locked: the right password waits too.
	if a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}}); a.status != http.StatusTooManyRequests {
		t.Errorf("right password while locked: %d, want 429", a.status)
	}
}

func TestResetPassword(t *testing.T) {
	svc, sink := accountsService(t)
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)
	email := uniqueEmail("cata")
	const password, newPassword = "a long passphrase of Cata", "another passphrase for Cata"
	if a := v.post("/account/signup", url.Values{"email": {email}, "password": {password}, "password2": {password}}); a.status != http.StatusOK {
		t.Fatalf("sign-up: %d", a.status)
	}
	// The answer is the same whether the address has an account or not.
	known := v.post("/account/reset", url.Values{"email": {email}})
	unknown := v.post("/account/reset", url.Values{"email": {uniqueEmail("nobody")}})
	if known.status != http.StatusOK || unknown.status != known.status || !sameButAddress(known.body, unknown.body) {
		t.Fatalf("reset answers differ: %d and %d", known.status, unknown.status)
	}
	link := strings.TrimPrefix(mailedLink(t, sink, email, "http://127.0.0.1:8080/account/reset/"), "http://127.0.0.1:8080")
	if a := v.get(link); a.status != http.StatusOK || !strings.Contains(a.body, `id="reset-password"`) {
		t.Fatalf("reset link: %d", a.status)
	}
	if a := v.post(link, url.Values{"password": {newPassword}, "password2": {newPassword + "x"}}); a.status != http.StatusBadRequest ||
		!strings.Contains(a.body, `id="err-reset-password2"`) {
		t.Fatalf("two different new passwords: %d", a.status)
	}
	a := v.post(link, url.Values{"password": {newPassword}, "password2": {newPassword}})
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "/account/signin?") {
		t.Fatalf("new password: %d to %q, want 303 to sign-in", a.status, a.header.Get("Location"))
	}
	if a = v.post(link, url.Values{"password": {newPassword}, "password2": {newPassword}}); a.status != http.StatusNotFound {
		t.Errorf("a used reset link: %d, want 404", a.status)
	}
	if a = v.post("/account/signin", url.Values{"email": {email}, "password": {password}}); a.status != http.StatusUnauthorized {
		t.Errorf("the old password: %d, want 401", a.status)
	}
	if a = v.post("/account/signin", url.Values{"email": {email}, "password": {newPassword}}); a.status != http.StatusSeeOther {
		t.Errorf("the new password: %d, want 303", a.status)
	}
}

// sameButAddress reports whether two reset answers are the same page but for the address typed.
func sameButAddress(a, b string) bool {
	addr := regexp.MustCompile(`[A-Za-z0-9._%+\-]+(@|%40)example\.cl`)
	return addr.ReplaceAllString(a, "ADDR") == addr.ReplaceAllString(b, "ADDR")
}

// verify opens the verification link mailed to email and types password there, which signs
// visitor v in.
func (v *visitor) verify(sink, email, password string) {
	v.t.Helper()
	path := strings.TrimPrefix(mailedLink(v.t, sink, email, "http://127.0.0.1:8080/account/verify/"), "http://127.0.0.1:8080")
	if a := v.get(path); a.status != http.StatusOK {
		v.t.Fatalf("verify page: %d", a.status)
	}
	if a := v.post(path, url.Values{"password": {password}}); a.status != http.StatusSeeOther {
		v.t.Fatalf("verify: %d:\n%s", a.status, a.body)
	}
}

// signedIn signs a new account up and verifies it, which signs visitor v in; it returns the
// email and password.
func (v *visitor) signedIn(sink, who string) (email, password string) {
	v.t.Helper()
	email, password = uniqueEmail(who), "a long passphrase of "+who
	if a := v.post("/account/signup", url.Values{"email": {email}, "password": {password}, "password2": {password}}); a.status != http.StatusOK {
		v.t.Fatalf("sign-up: %d", a.status)
	}
	v.verify(sink, email, password)
	return email, password
}

func TestAuthenticatorPages(t *testing.T) {
	svc, sink := accountsService(t)
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)
	v.signedIn(sink, "dani")
	tx := accountTexts[envelope.LanguageEnglish]

	a := v.post("/account/totp/begin", url.Values{})
	if a.status != http.StatusOK || !regexp.MustCompile(`<img id="totp-qr" class="qr" src="data:image/png;base64,[A-Za-z0-9+/=&#;]+"`).MatchString(a.body) {
		t.Fatalf("set-up page: %d, without the QR code as a data: image:\n%s", a.status, a.body)
	}
	m := regexp.MustCompile(`<code id="totp-secret"[^>]*>([A-Z2-7 ]+)</code>`).FindStringSubmatch(a.body)
	if m == nil || !strings.Contains(m[1], " ") {
		t.Fatalf("set-up page without the secret in groups:\n%s", a.body)
	}
	secret := strings.ReplaceAll(m[1], " ", "")
	for _, want := range []string{`id="totp-code"`, `autocomplete="one-time-code"`, `id="totp-confirm"`, `<label for="totp-code">`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("set-up page lacks %s", want)
		}
	}

	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wrong := fmt.Sprintf("%06d", (mustAtoi(t, code)+500000)%1000000)
	if a = v.post("/account/totp/confirm", url.Values{"code": {wrong}}); a.status != http.StatusUnauthorized ||
		!strings.Contains(a.body, `id="err-totp-code"`) || !strings.Contains(a.body, `id="totp-restart"`) {
		t.Fatalf("a wrong code: %d, want 401 naming the code, with a way to start again:\n%s", a.status, a.body)
	}
	a = v.post("/account/totp/confirm", url.Values{"code": {code}})
	codes := regexp.MustCompile(`<li><code>([^<]+)</code></li>`).FindAllStringSubmatch(a.body, -1)
	if a.status != http.StatusOK || !strings.Contains(a.body, `id="recovery-codes"`) || len(codes) != account.RecoveryCodes {
		t.Fatalf("confirm: %d with %d recovery codes, want 200 with %d:\n%s", a.status, len(codes), account.RecoveryCodes, a.body)
	}
	a = v.get("/account")
	if !strings.Contains(a.body, `id="totp-disable"`) || strings.Contains(a.body, `id="totp-begin"`) ||
		!strings.Contains(a.body, fmt.Sprintf(tx.RecoveryLeft, account.RecoveryCodes)) {
		t.Fatalf("the account page does not show the app on:\n%s", a.body)
	}
	if a = v.post("/account/totp/disable", url.Values{"code": {"nope"}}); a.status < 400 || !strings.Contains(a.body, `id="totp-disable"`) {
		t.Fatalf("turning off with a wrong code: %d:\n%s", a.status, a.body)
	}
	if a = v.post("/account/totp/disable", url.Values{"code": {codes[0][1]}}); a.status != http.StatusSeeOther || a.header.Get("Location") != "/account?done=totp-off" {
		t.Fatalf("turning off with a recovery code: %d to %q", a.status, a.header.Get("Location"))
	}
	if a = v.get("/account?done=totp-off"); !strings.Contains(a.body, `id="totp-begin"`) || !strings.Contains(a.body, tx.AuthenticatorOffDone) {
		t.Fatalf("the account page after turning off:\n%s", a.body)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPasskeyEndpoints(t *testing.T) {
	svc, sink := accountsService(t)
	rp, err := account.NewWebAuthn("http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	svc.WebAuthn = rp
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)

	jsonPost := func(path, body string) answer {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, v.base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := v.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return answer{status: res.StatusCode, header: res.Header, body: string(b)}
	}
	var refusal struct{ Message, Code string }
	a := jsonPost("/account/passkeys/options", "")
	if err := json.Unmarshal([]byte(a.body), &refusal); a.status != http.StatusUnauthorized || err != nil || refusal.Code != string(envelope.CodeUnauthorized) {
		t.Fatalf("options signed out: %d %s, want 401 UNAUTHORIZED", a.status, a.body)
	}

	v.signedIn(sink, "eli")
	a = jsonPost("/account/passkeys/options", "")
	var opts struct {
		PublicKey struct {
			Challenge string
			RP        struct{ ID string }
			User      struct{ ID, Name string }
		}
	}
	if err := json.Unmarshal([]byte(a.body), &opts); a.status != http.StatusOK || err != nil || opts.PublicKey.Challenge == "" ||
		opts.PublicKey.User.ID == "" || opts.PublicKey.RP.ID != "localhost" {
		t.Fatalf("options: %d %s", a.status, a.body)
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("options answered as %q", ct)
	}
	for _, c := range []struct{ name, body string }{
		{"not JSON", "name=x"},
		{"unknown member", `{"name":"Laptop","credential":{},"extra":1}`},
		{"no credential", `{"name":"Laptop"}`},
		{"no name", `{"name":" ","credential":{"id":"x"}}`},
		{"a credential that is not one", `{"name":"Laptop","credential":{"id":"x","rawId":"x","type":"public-key","response":{}}}`},
	} {
		a := jsonPost("/account/passkeys", c.body)
		if err := json.Unmarshal([]byte(a.body), &refusal); a.status != http.StatusBadRequest || err != nil || refusal.Message == "" {
			t.Errorf("%s: %d %s, want 400 with a message", c.name, a.status, a.body)
		}
	}
	if a = v.get("/account"); strings.Contains(a.body, `id="passkey-list"`) || !strings.Contains(a.body, `id="passkey-none"`) {
		t.Error("a refused credential is listed")
	}
	// Removing a passkey the account does not have is refused on the account page.
	if a = v.post("/account/passkeys/999999/delete", url.Values{}); a.status != http.StatusNotFound || !strings.Contains(a.body, `id="account-email"`) {
		t.Errorf("removing an unknown passkey: %d, want 404 on the account page", a.status)
	}
}

// A form value that is not UTF-8 text, or holds NUL, is refused as an unreadable form before it
// reaches the account service.
func TestAccountFormMustBeText(t *testing.T) {
	srv := pagesServer(t, &account.Service{Log: slog.New(slog.DiscardHandler)})
	v := newVisitor(t, srv)
	for _, form := range []url.Values{
		{"email": {"ana\x00@example.cl"}, "password": {"correct horse battery"}, "password2": {"correct horse battery"}},
		{"email": {"ana@example.cl"}, "password": {"correct horse \xff"}, "password2": {"correct horse \xff"}},
		{"email\x00": {"ana@example.cl"}},
	} {
		a := v.post("/account/signup", form)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, accountTexts[envelope.LanguageEnglish].ErrorHeading) {
			t.Errorf("sign-up with %q: %d, want 400 and the unreadable form's page:\n%.300s", form, a.status, a.body)
		}
	}
}

// An account's JSON body (a passkey's name) holding NUL is a 400 naming the member, before it
// reaches the database.
func TestAccountJSONMustBeText(t *testing.T) {
	h := &Handler{Log: slog.New(slog.DiscardHandler)}
	for body, want := range map[string]int{
		`{"name":"Mi llave"}`:      http.StatusOK,
		`{"name":"Mi\u0000llave"}`: http.StatusBadRequest,
		`{"name":"Mi llave"} {}`:   http.StatusBadRequest,
	} {
		var dst struct {
			Name string `json:"name"`
		}
		w := httptest.NewRecorder()
		ok := h.decodeAccountJSON(w, httptest.NewRequest(http.MethodPost, "/account/passkeys", strings.NewReader(body)), &dst)
		status := http.StatusOK
		if !ok {
			status = w.Code
		}
		if status != want {
			t.Errorf("%s: %d %s, want %d", body, status, w.Body, want)
		}
		if want == http.StatusBadRequest && strings.Contains(body, `\u0000`) && !strings.Contains(w.Body.String(), `"path":"name"`) {
			t.Errorf("%s: the 400 does not name the member: %s", body, w.Body)
		}
	}
}
