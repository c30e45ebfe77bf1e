package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/webauthntest"
)

// Someone signs up first for another person's address with a password of their own. The owner's
// mail scanner opens the mailed link (a GET, no cookie): nothing is verified, and the one who
// signed up still cannot sign in. The owner, whose password does not fit, signs up again and
// verifies with their own.
func TestVerifyLinkOpenedByAScanner(t *testing.T) {
	svc, sink := accountsService(t)
	srv := pagesServer(t, svc)
	attacker := newVisitor(t, srv)
	email := uniqueEmail("victim")
	const attackers, owners = "the attacker's own passphrase", "the owner's own passphrase"
	if a := attacker.post("/account/signup", url.Values{"email": {email}, "password": {attackers}, "password2": {attackers}}); a.status != http.StatusOK {
		t.Fatalf("sign-up: %d", a.status)
	}
	path := strings.TrimPrefix(mailedLink(t, sink, email, "http://127.0.0.1:8080/account/verify/"), "http://127.0.0.1:8080")
	scanner := newVisitor(t, srv)
	a := scanner.do(http.MethodGet, path, nil, map[string]string{"Accept-Language": "es-CL", "Sec-Fetch-Site": "cross-site"})
	if a.status != http.StatusOK || !strings.Contains(a.body, `<html lang="es">`) || !strings.Contains(a.body, accountTexts[envelope.LanguageSpanish].VerifyHelp) {
		t.Fatalf("the link opened from a mail: %d, want the Spanish page asking for the password:\n%s", a.status, a.body)
	}
	if len(scanner.client.Jar.Cookies(mustParse(t, srv.URL))) != 0 {
		t.Error("opening the link set a cookie")
	}
	if a := attacker.post("/account/signin", url.Values{"email": {email}, "password": {attackers}}); a.status != http.StatusUnauthorized {
		t.Fatalf("sign-in after a GET of the mailed link: %d, want 401 (email not verified)", a.status)
	}

	owner := newVisitor(t, srv)
	if a := owner.post(path, url.Values{"password": {owners}}); a.status != http.StatusUnauthorized {
		t.Fatalf("the link with the owner's password: %d, want 401", a.status)
	}
	if a := owner.get("/account"); a.status != http.StatusSeeOther {
		t.Fatalf("the owner's browser is signed in after a wrong password: %d", a.status)
	}
	if a := owner.post("/account/signup", url.Values{"email": {email}, "password": {owners}, "password2": {owners}}); a.status != http.StatusOK {
		t.Fatalf("sign-up again: %d", a.status)
	}
	fresh := strings.TrimPrefix(mailedLink(t, sink, email, "http://127.0.0.1:8080/account/verify/"), "http://127.0.0.1:8080")
	if fresh == path {
		t.Fatal("no new link")
	}
	if a := attacker.get(path); a.status != http.StatusNotFound {
		t.Fatalf("the first link after signing up again: %d, want 404", a.status)
	}
	if a := owner.post(fresh, url.Values{"password": {owners}}); a.status != http.StatusSeeOther || a.header.Get("Location") != "/account?done=verified" {
		t.Fatalf("the owner verifies: %d to %q, want 303 to /account?done=verified", a.status, a.header.Get("Location"))
	}
	if a := owner.get("/account?done=verified"); a.status != http.StatusOK || !strings.Contains(a.body, accountTexts[envelope.LanguageEnglish].Verified) {
		t.Fatalf("the account page after verifying: %d:\n%s", a.status, a.body)
	}
	if a := attacker.post("/account/signin", url.Values{"email": {email}, "password": {attackers}}); a.status != http.StatusUnauthorized {
		t.Fatalf("the attacker's password after the owner verified: %d, want 401", a.status)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// json posts body (JSON) to path.
func (v *visitor) json(path, body string) answer {
	v.t.Helper()
	req, err := http.NewRequest(http.MethodPost, v.base+path, strings.NewReader(body))
	if err != nil {
		v.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := v.client.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

// An account with an authenticator app: the page offers to confirm it before a factor is added
// or removed, and the password alone adds or removes none. A recovery code confirms; a passkey
// then added confirms too, in another browser.
func TestFactorConfirmPages(t *testing.T) {
	svc, sink := accountsService(t)
	rp, err := account.NewWebAuthn("http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	svc.WebAuthn = rp
	srv := pagesServer(t, svc)
	v := newVisitor(t, srv)
	email, password := v.signedIn(sink, "gabi")
	tx := accountTexts[envelope.LanguageEnglish]

	// The first factor needs no confirmation.
	if a := v.get("/account"); strings.Contains(a.body, `id="factor"`) || strings.Contains(a.body, "disabled") {
		t.Fatalf("an account without a factor asks for a confirmation:\n%s", a.body)
	}
	a := v.post("/account/totp/begin", url.Values{})
	m := regexp.MustCompile(`<code id="totp-secret"[^>]*>([A-Z2-7 ]+)</code>`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("set-up page:\n%s", a.body)
	}
	code, err := totp.GenerateCode(strings.ReplaceAll(m[1], " ", ""), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	a = v.post("/account/totp/confirm", url.Values{"code": {code}})
	codes := regexp.MustCompile(`<li><code>([^<]+)</code></li>`).FindAllStringSubmatch(a.body, -1)
	if len(codes) != account.RecoveryCodes {
		t.Fatalf("confirm: %d:\n%s", a.status, a.body)
	}

	a = v.get("/account")
	for _, want := range []string{`id="factor"`, `id="factor-help"`, `<label for="factor-code">`, `id="factor-code"`, `id="factor-confirm"`,
		`id="passkey-add" disabled aria-describedby="factor-help"`, tx.FactorHelp} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the account page with an app on lacks %s", want)
		}
	}
	if strings.Contains(a.body, `id="factor-passkey"`) {
		t.Error("a confirmation by passkey is offered to an account without one")
	}
	var refusal struct{ Code string }
	a = v.json("/account/passkeys/options", "")
	if err := json.Unmarshal([]byte(a.body), &refusal); err != nil || a.status != http.StatusUnauthorized || refusal.Code != string(envelope.CodeFactorProofNeeded) {
		t.Fatalf("passkey options with the password alone: %d %s, want 401 %s", a.status, a.body, envelope.CodeFactorProofNeeded)
	}
	if a = v.post("/account/totp/begin", url.Values{}); a.status != http.StatusUnauthorized || !strings.Contains(a.body, tx.FactorRequired) {
		t.Fatalf("another app with the password alone: %d:\n%s", a.status, a.body)
	}
	// A wrong code: the problem on this form's input only.
	a = v.post("/account/factor/confirm", url.Values{"code": {"000000"}})
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, `id="err-factor-code"`) || strings.Contains(a.body, `id="err-totp-disable-code"`) ||
		!regexp.MustCompile(`aria-describedby="factor-help err-factor-code"`).MatchString(a.body) {
		t.Fatalf("a wrong confirmation code: %d:\n%s", a.status, a.body)
	}
	a = v.post("/account/factor/confirm", url.Values{"code": {codes[0][1]}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account?done=factor-confirmed" {
		t.Fatalf("a recovery code: %d to %q", a.status, a.header.Get("Location"))
	}
	a = v.get("/account?done=factor-confirmed")
	if !strings.Contains(a.body, `id="factor-status"`) || !strings.Contains(a.body, tx.FactorConfirmedDone) || strings.Contains(a.body, "disabled") {
		t.Fatalf("the account page once confirmed:\n%s", a.body)
	}

	// A passkey, added within the five minutes.
	auth := webauthntest.New("http://localhost:8080")
	a = v.json("/account/passkeys/options", "")
	if a.status != http.StatusOK {
		t.Fatalf("passkey options once confirmed: %d %s", a.status, a.body)
	}
	created, err := auth.Create([]byte(a.body), webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	if a = v.json("/account/passkeys", fmt.Sprintf(`{"name":"Laptop","credential":%s}`, created)); a.status != http.StatusOK {
		t.Fatalf("add a passkey: %d %s", a.status, a.body)
	}
	var added struct{ ID int64 }
	if err := json.Unmarshal([]byte(a.body), &added); err != nil || added.ID == 0 {
		t.Fatalf("added %s (%v)", a.body, err)
	}
	if !strings.Contains(newestMail(t, sink, email), "A passkey named \u201cLaptop\u201d was added") {
		t.Error("no notice of the passkey added")
	}

	// Another browser, the password alone: nothing removed; the passkey confirms.
	other := newVisitor(t, srv)
	if a := other.post("/account/signin", url.Values{"email": {email}, "password": {password}}); a.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", a.status)
	}
	deleteButton := fmt.Sprintf(`id="passkey-delete-%d" aria-label="Remove: Laptop" disabled`, added.ID)
	if a = other.get("/account"); !strings.Contains(a.body, `id="factor-passkey"`) || !strings.Contains(a.body, deleteButton) {
		t.Fatalf("the other browser's page does not offer the passkey, or lets the passkey go:\n%s", a.body)
	}
	if a = other.get("/account?lang=es"); !strings.Contains(a.body, accountTexts[envelope.LanguageSpanish].FactorHelp) ||
		!strings.Contains(a.body, accountTexts[envelope.LanguageSpanish].FactorPasskey) {
		t.Errorf("the Spanish page lacks the confirmation's texts:\n%s", a.body)
	}
	remove := fmt.Sprintf("/account/passkeys/%d/delete", added.ID)
	if a = other.post(remove, url.Values{}); a.status != http.StatusUnauthorized || !strings.Contains(a.body, tx.FactorRequired) {
		t.Fatalf("removing the passkey with the password alone: %d:\n%s", a.status, a.body)
	}
	// A credential that is not a JSON object is refused before anything is counted.
	for _, bad := range []string{"", `{"credential":null}`, `{"credential":{},"x":1}`, `{"credential":[]}`, `{"credential":"x"}`,
		`{"credential":17}`, `{"credential":true}`} {
		if a = other.json("/account/factor/passkey", bad); a.status != http.StatusBadRequest {
			t.Errorf("a confirmation by passkey with %q: %d %s, want 400", bad, a.status, a.body)
		}
	}
	if stored, err := svc.Store.SignerAccountByEmail(context.Background(), email); err != nil || stored.FailedFactorAttempts != 0 {
		t.Fatalf("after unreadable confirmations: %d failed assertions counted (%v), want 0", stored.FailedFactorAttempts, err)
	}
	a = other.json("/account/factor/passkey/options", "")
	if a.status != http.StatusOK {
		t.Fatalf("assertion options: %d %s", a.status, a.body)
	}
	asserted, err := auth.Get([]byte(a.body), webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	if a = other.json("/account/factor/passkey", fmt.Sprintf(`{"credential":%s}`, asserted)); a.status != http.StatusOK || !strings.Contains(a.body, `"confirmed":true`) {
		t.Fatalf("a confirmation by passkey: %d %s", a.status, a.body)
	}
	if a = other.post(remove, url.Values{}); a.status != http.StatusSeeOther || a.header.Get("Location") != "/account?done=passkey-removed" {
		t.Fatalf("removing the passkey once confirmed: %d to %q", a.status, a.header.Get("Location"))
	}
	if !strings.Contains(newestMail(t, sink, email), "The passkey named \u201cLaptop\u201d was removed") {
		t.Error("no notice of the passkey removed")
	}
}
