package account_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// A signer signs up, takes the verification link from the real mail, types the password there
// (which verifies the address and signs the browser in), is seen signed in, signs out, and signs
// in again.
func TestSignUpVerifySignInSignOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	email := newAddress(t)

	// Bad input is refused with the field named, before anything is stored or mailed.
	err := e.svc.SignUp(ctx, "not-an-address", "short", envelope.LanguageEnglish, "", client)
	var de *envelope.Error
	if !errors.As(err, &de) || de.Code != envelope.CodeInvalidBody || len(de.Issues) != 2 ||
		de.Issues[0].Path != "email" || de.Issues[1].Path != "password" {
		t.Fatalf("bad sign-up: %v", err)
	}

	if err := e.svc.SignUp(ctx, email, goodPassword, envelope.LanguageSpanish, "/sign/tok-123", client); err != nil {
		t.Fatal(err)
	}
	// Not verified yet: the right password is answered EMAIL_NOT_VERIFIED, and nobody is signed in.
	var b browser
	w := httptest.NewRecorder()
	if _, _, err := e.svc.SignIn(ctx, w, b.request(), email, goodPassword, client); code(err) != envelope.CodeEmailUnverified {
		t.Fatalf("sign-in before verifying: %v", err)
	}
	if len(w.Result().Cookies()) != 0 {
		t.Fatal("a cookie was set before the email was verified")
	}

	m := e.waitMails(t, email, 1)[0]
	if !strings.Contains(m.Subject, "Confirme") || !strings.Contains(m.Text, "24 horas") {
		t.Errorf("verification mail in Spanish with its lifetime: %q / %q", m.Subject, m.Text)
	}
	token := linkIn(t, m, "verify")
	if raw, err := base64.RawURLEncoding.DecodeString(token); err != nil || len(raw) != 32 {
		t.Errorf("link token %q: %d bytes (%v), want 32", token, len(raw), err)
	}
	// The link alone shows which address it is for, and changes nothing.
	for range 2 {
		if shown, err := e.svc.LinkEmail(ctx, token); err != nil || shown != email {
			t.Fatalf("LinkEmail: %q %v", shown, err)
		}
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), b.request(), email, goodPassword, client); code(err) != envelope.CodeEmailUnverified {
		t.Fatalf("sign-in after reading the link: %v", err)
	}
	// The link and a wrong password: refused, counted like a wrong sign-in, no cookie, and the
	// link still works.
	var linked browser
	w = httptest.NewRecorder()
	if _, _, _, err := e.svc.VerifyEmail(ctx, w, linked.request(), token, "not the password at all", client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the link with a wrong password: %v", err)
	}
	if len(w.Result().Cookies()) != 0 {
		t.Fatal("a cookie was set for a wrong password")
	}
	pending, err := e.store.SignerAccountByEmail(ctx, email)
	if err != nil || pending.EmailVerifiedAt != nil || e.failedAttempts(t, pending.ID) != 1 || e.events(t, pending.ID, "SIGN_IN_FAILED") != 1 {
		t.Fatalf("after a wrong password at the link: %+v (%v), %d failures", pending, err, e.failedAttempts(t, pending.ID))
	}
	for _, bad := range []string{"", strings.Repeat("x", account.MaxPasswordLength+1)} {
		if _, _, _, err := e.verifyIn(&linked, token, bad); code(err) != envelope.CodeInvalidBody {
			t.Fatalf("the link with password %q: %v", bad, err)
		}
	}
	a, sess, next, err := e.verifyIn(&linked, token, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	if !a.EmailVerified || a.Email != email || next != "/sign/tok-123" || a.Language != envelope.LanguageSpanish || sess.AccountID != a.ID {
		t.Fatalf("verified %+v, session %+v, next %q", a, sess, next)
	}
	if e.failedAttempts(t, a.ID) != 0 {
		t.Error("the right password at the link left the wrong one counted")
	}
	if cur, cs, ok := e.svc.Current(ctx, linked.request()); !ok || cur.ID != a.ID || cs.ID != sess.ID {
		t.Fatalf("the browser that verified is not signed in: %+v %+v %v", cur, cs, ok)
	}
	if _, _, _, err := e.verifyIn(&browser{}, token, goodPassword); code(err) != envelope.CodeNotFound {
		t.Fatalf("a verification link used twice: %v", err)
	}
	if _, err := e.svc.LinkEmail(ctx, token); code(err) != envelope.CodeNotFound {
		t.Fatalf("LinkEmail of a used link: %v", err)
	}
	if e.events(t, a.ID, "EMAIL_VERIFIED") != 1 || e.events(t, a.ID, "SIGN_IN") != 1 {
		t.Error("no EMAIL_VERIFIED and SIGN_IN events")
	}

	// Another browser, not signed in: no current account.
	if _, _, ok := e.svc.Current(ctx, b.request()); ok {
		t.Fatal("a browser without a session is signed in")
	}
	w = httptest.NewRecorder()
	signedIn, sess, err := e.svc.SignIn(ctx, w, b.request(), strings.ToUpper(email), goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %+v, want one", cookies)
	}
	ck := cookies[0]
	if ck.Name != account.CookieName || !ck.HttpOnly || ck.Secure || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Domain != "" {
		t.Errorf("session cookie %+v: want sobre_account, HttpOnly, SameSite=Lax, Path=/, not Secure over http", ck)
	}
	if raw, err := base64.RawURLEncoding.DecodeString(ck.Value); err != nil || len(raw) != 32 {
		t.Errorf("session secret %q: %d bytes (%v), want 32", ck.Value, len(raw), err)
	}
	b.keep(w)
	if signedIn.ID != a.ID || sess.AccountID != a.ID || len(sess.ID) != 64 || sess.IP != client.IP {
		t.Fatalf("signed in %+v, session %+v", signedIn, sess)
	}
	// The database keeps neither the secret nor its hash as the public id.
	var stored int
	if err := e.db.QueryRow(ctx, `SELECT count(*) FROM account_sessions WHERE id_hash = sha256(convert_to($1, 'UTF8')) AND id = $2`, ck.Value, sess.ID).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the session is not kept by the SHA-256 of its secret: %d, %v", stored, err)
	}
	cur, cs, ok := e.svc.Current(ctx, b.request())
	if !ok || cur.ID != a.ID || cs.ID != sess.ID || !cur.Matches(strings.ToUpper(email)) || cur.Matches("other@sobre.test") {
		t.Fatalf("current %+v %+v %v", cur, cs, ok)
	}
	if live, ok, err := e.svc.SessionLive(ctx, sess.ID); err != nil || !ok || live.ID != a.ID {
		t.Fatalf("SessionLive: %+v %v %v", live, ok, err)
	}
	if e.events(t, a.ID, "SIGN_IN") != 2 {
		t.Error("no SIGN_IN event")
	}

	w = httptest.NewRecorder()
	if err := e.svc.SignOut(ctx, w, b.request()); err != nil {
		t.Fatal(err)
	}
	cleared := w.Result().Cookies()
	if len(cleared) != 1 || cleared[0].Name != account.CookieName || cleared[0].MaxAge >= 0 {
		t.Errorf("sign-out cookie %+v: want %s expired", cleared, account.CookieName)
	}
	// The old cookie, kept by a careless browser, is signed out too.
	if _, _, ok := e.svc.Current(ctx, b.request()); ok {
		t.Fatal("still signed in after signing out")
	}
	if _, ok, _ := e.svc.SessionLive(ctx, sess.ID); ok {
		t.Fatal("SessionLive after signing out")
	}
	if e.events(t, a.ID, "SIGN_OUT") != 1 {
		t.Error("no SIGN_OUT event")
	}
}

// Signing in again in the same browser ends the session it held.
func TestSignInAgainEndsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	a := e.verified(t)
	other := e.verified(t)
	var b browser
	_, first := e.signIn(t, &b, a.Email, goodPassword)
	_, second := e.signIn(t, &b, other.Email, goodPassword)
	if _, ok, _ := e.svc.SessionLive(context.Background(), first.ID); ok {
		t.Fatal("the browser's earlier session is still live")
	}
	cur, s, ok := e.svc.Current(context.Background(), b.request())
	if !ok || cur.ID != other.ID || s.ID != second.ID {
		t.Fatalf("current %+v %+v %v, want the second account", cur, s, ok)
	}
	if e.events(t, a.ID, "SIGN_OUT") != 1 {
		t.Error("the ended session has no SIGN_OUT event")
	}
}

// Over HTTPS the cookie is __Host- and Secure.
func TestSecureCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.svc.PublicURL = "https://firma.example.cl"
	a := e.verified(t)
	w := httptest.NewRecorder()
	if _, _, err := e.svc.SignIn(context.Background(), w, httptest.NewRequest(http.MethodPost, "/account/signin", nil), a.Email, goodPassword, client); err != nil {
		t.Fatal(err)
	}
	cs := w.Result().Cookies()
	if len(cs) != 1 || cs[0].Name != "__Host-sobre_account" || !cs[0].Secure || cs[0].Path != "/" || cs[0].Domain != "" || !cs[0].HttpOnly {
		t.Fatalf("cookie over https: %+v", cs)
	}
	var b browser
	b.keep(w)
	if _, _, ok := e.svc.Current(context.Background(), b.request()); !ok {
		t.Fatal("the secure cookie does not sign the browser in")
	}
	// The plain name is not read under HTTPS.
	plain := httptest.NewRequest(http.MethodGet, "/account", nil)
	plain.AddCookie(&http.Cookie{Name: account.CookieName, Value: cs[0].Value})
	if _, _, ok := e.svc.Current(context.Background(), plain); ok {
		t.Fatal("the plain cookie name is read under HTTPS")
	}
}

// A session ends after 12 hours without use; a use keeps it alive, and is written at most once a
// minute.
func TestSessionIdleExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	var b browser
	_, sess := e.signIn(t, &b, a.Email, goodPassword)

	e.clk.add(30 * time.Second)
	_, s1, ok := e.svc.Current(ctx, b.request())
	if !ok || !s1.LastSeenAt.Equal(sess.LastSeenAt) {
		t.Fatalf("a use within a minute wrote last_seen_at: %v -> %v (%v)", sess.LastSeenAt, s1.LastSeenAt, ok)
	}
	e.clk.add(account.SessionIdleTTL - time.Minute) // 11h59m30s after the sign-in
	_, s2, ok := e.svc.Current(ctx, b.request())
	if !ok || !s2.LastSeenAt.Equal(e.clk.now()) {
		t.Fatalf("use before the idle expiry: ok=%v, last seen %v", ok, s2.LastSeenAt)
	}
	e.clk.add(account.SessionIdleTTL - time.Second) // kept alive by the last use
	if _, _, ok := e.svc.Current(ctx, b.request()); !ok {
		t.Fatal("a session used less than 12 hours ago ended")
	}
	e.clk.add(account.SessionIdleTTL + time.Second)
	if _, _, ok := e.svc.Current(ctx, b.request()); ok {
		t.Fatal("a session unused for 12 hours is still signed in")
	}
	if _, ok, _ := e.svc.SessionLive(ctx, sess.ID); ok {
		t.Fatal("SessionLive of an idle session")
	}
}

// Signing up again for an address that has a verified account mails "you have an account" and
// changes nothing; for an unverified one, the new password replaces the old and only the newest
// link works.
func TestSignUpExistingAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	email := newAddress(t)

	if err := e.svc.SignUp(ctx, email, "first-password-1", envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	first := linkIn(t, e.waitMails(t, email, 1)[0], "verify")
	if err := e.svc.SignUp(ctx, email, "second-password-2", envelope.LanguageEnglish, "/sign/abc", client); err != nil {
		t.Fatal(err)
	}
	second := linkIn(t, e.waitMails(t, email, 2)[0], "verify")
	for _, pw := range []string{"first-password-1", "second-password-2"} {
		if _, _, _, err := e.verifyIn(&browser{}, first, pw); code(err) != envelope.CodeNotFound {
			t.Fatalf("the first link of a replaced password still works (with %q): %v", pw, err)
		}
	}
	// The second link takes only the password it was mailed for.
	if _, _, _, err := e.verifyIn(&browser{}, second, "first-password-1"); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the second link with the replaced password: %v", err)
	}
	a, _, next, err := e.verifyIn(&browser{}, second, "second-password-2")
	if err != nil || next != "/sign/abc" {
		t.Fatal(next, err)
	}
	var b browser
	w := httptest.NewRecorder()
	if _, _, err := e.svc.SignIn(ctx, w, b.request(), email, "first-password-1", client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the replaced password: %v", err)
	}
	e.signIn(t, &b, email, "second-password-2")

	// Verified: same answer, a mail saying so, the password unchanged.
	if err := e.svc.SignUp(ctx, strings.ToUpper(email), "third-password-3", envelope.LanguageEnglish, "/sign/abc", client); err != nil {
		t.Fatal(err)
	}
	m := e.waitMails(t, email, 3)[0]
	// Its links carry no next: whoever signed up chose it, not the account's holder.
	if !strings.Contains(m.Subject, "already have") || strings.Contains(m.Text, "/account/verify/") ||
		!strings.Contains(m.Text, publicURL+"/account/signin") || !strings.Contains(m.Text, publicURL+"/account/reset") ||
		strings.Contains(m.Text, "next=") || strings.Contains(m.HTML, "next=") {
		t.Fatalf("account-exists mail: %q / %q", m.Subject, m.Text)
	}
	e.signIn(t, &browser{}, email, "second-password-2")
	w = httptest.NewRecorder()
	if _, _, err := e.svc.SignIn(ctx, w, (&browser{}).request(), email, "third-password-3", client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a sign-up changed a verified account's password: %v", err)
	}
	var stored string
	if err := e.db.QueryRow(ctx, `SELECT email FROM signer_accounts WHERE id = $1`, a.ID).Scan(&stored); err != nil || stored != email {
		t.Fatalf("the verified address became %q (%v)", stored, err)
	}
}

// A sign-in with an address that has no account is answered like a wrong password.
func TestSignInUnknownAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	w := httptest.NewRecorder()
	_, _, err := e.svc.SignIn(context.Background(), w, httptest.NewRequest(http.MethodPost, "/", nil), newAddress(t), goodPassword, client)
	if code(err) != envelope.CodeAuthFailed {
		t.Fatalf("unknown address: %v", err)
	}
	a := e.verified(t)
	_, _, wrong := e.svc.SignIn(context.Background(), w, httptest.NewRequest(http.MethodPost, "/", nil), a.Email, "not-the-password", client)
	if code(wrong) != envelope.CodeAuthFailed || wrong.Error() != err.Error() {
		t.Fatalf("wrong password %v and unknown address %v are told apart", wrong, err)
	}
}

// A reset link sets a new password, verifies the address, lifts the lock and ends every session;
// it works once, for an hour.
func TestResetPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	a := e.verified(t)

	// An address without an account: the same answer, and no mail.
	stranger := newAddress(t)
	if err := e.svc.RequestReset(ctx, stranger, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}

	var b1, b2 browser
	_, s1 := e.signIn(t, &b1, a.Email, goodPassword)
	e.signIn(t, &b2, a.Email, goodPassword)

	if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "/sign/zzz", client); err != nil {
		t.Fatal(err)
	}
	m := e.waitMails(t, a.Email, 1)[0]
	if !strings.Contains(m.Text, "1 hour") {
		t.Errorf("reset mail without its lifetime: %q", m.Text)
	}
	token := linkIn(t, m, "reset")

	// A password the policy refuses leaves the link working.
	if _, _, err := e.svc.ResetPassword(ctx, token, a.Email, client); code(err) != envelope.CodeInvalidBody {
		t.Fatalf("reset to the email address: %v", err)
	}
	const fresh = "a-new-password-9"
	got, next, err := e.svc.ResetPassword(ctx, token, fresh, client)
	if err != nil || got.ID != a.ID || next != "/sign/zzz" {
		t.Fatalf("reset: %+v %q %v", got, next, err)
	}
	for i, b := range []*browser{&b1, &b2} {
		if _, _, ok := e.svc.Current(ctx, b.request()); ok {
			t.Errorf("browser %d still signed in after the reset", i+1)
		}
	}
	if _, ok, _ := e.svc.SessionLive(ctx, s1.ID); ok {
		t.Error("SessionLive after the reset")
	}
	if _, _, err := e.svc.ResetPassword(ctx, token, "another-password-8", client); code(err) != envelope.CodeNotFound {
		t.Fatalf("a reset link used twice: %v", err)
	}
	w := httptest.NewRecorder()
	if _, _, err := e.svc.SignIn(ctx, w, (&browser{}).request(), a.Email, goodPassword, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the old password after the reset: %v", err)
	}
	e.signIn(t, &browser{}, a.Email, fresh)
	if e.events(t, a.ID, "PASSWORD_RESET") != 1 {
		t.Error("no PASSWORD_RESET event")
	}

	// An hour later the next link no longer works; a newer one replaces an older.
	if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	older := linkIn(t, e.waitMails(t, a.Email, 2)[0], "reset")
	if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	newer := linkIn(t, e.waitMails(t, a.Email, 3)[0], "reset")
	if _, _, err := e.svc.ResetPassword(ctx, older, "yet-another-pw-7", client); code(err) != envelope.CodeNotFound {
		t.Fatalf("an older reset link after a newer was mailed: %v", err)
	}
	e.clk.add(account.ResetLinkTTL + time.Second)
	if _, _, err := e.svc.ResetPassword(ctx, newer, "yet-another-pw-7", client); code(err) != envelope.CodeNotFound {
		t.Fatalf("an expired reset link: %v", err)
	}
	if n := len(e.mails(t, stranger)); n != 0 {
		t.Errorf("%d mails to an address without an account", n)
	}
}

// A verification link works for 24 hours.
func TestVerifyLinkExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	email := newAddress(t)
	if err := e.svc.SignUp(ctx, email, goodPassword, envelope.LanguageEnglish, "https://evil.example/", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, email, 1)[0], "verify")
	e.clk.add(account.VerifyLinkTTL + time.Second)
	if _, _, _, err := e.verifyIn(&browser{}, token, goodPassword); code(err) != envelope.CodeNotFound {
		t.Fatalf("an expired verification link: %v", err)
	}
	if _, err := e.svc.LinkEmail(ctx, token); code(err) != envelope.CodeNotFound {
		t.Fatalf("LinkEmail of an expired link: %v", err)
	}
	// A new sign-up mails a new link; a next off Sobre was dropped.
	if err := e.svc.SignUp(ctx, email, goodPassword, envelope.LanguageEnglish, "//evil.example/", client); err != nil {
		t.Fatal(err)
	}
	token = linkIn(t, e.waitMails(t, email, 2)[0], "verify")
	if _, _, next, err := e.verifyIn(&browser{}, token, goodPassword); err != nil || next != "" {
		t.Fatalf("verify: next %q, %v", next, err)
	}
}

// At most MailsPerHour sign-up mails and, counted apart, MailsPerHour reset mails go to one
// address in an hour; more requests are answered the same and mail nothing.
func TestMailsPerHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	a := e.verified(t)
	for range account.MailsPerHour + 2 {
		if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "", client); err != nil {
			t.Fatal(err)
		}
	}
	for i := range account.MailsPerHour + 2 {
		if err := e.svc.SignUp(ctx, a.Email, fmt.Sprintf("someone-elses-pw-%d", i), envelope.LanguageEnglish, "", client); err != nil {
			t.Fatal(err)
		}
	}
	// Sending is done when SignUp and RequestReset return: a mail too many would be in the sink.
	resets, exists := mailKinds(e.waitMails(t, a.Email, 2*account.MailsPerHour))
	if resets != account.MailsPerHour || exists != account.MailsPerHour {
		t.Fatalf("%d reset and %d account-exists mails in an hour, want %d of each", resets, exists, account.MailsPerHour)
	}
	e.clk.add(time.Hour + time.Second)
	if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SignUp(ctx, a.Email, "someone-elses-pw-x", envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	if resets, exists := mailKinds(e.waitMails(t, a.Email, 2*account.MailsPerHour+2)); resets != account.MailsPerHour+1 || exists != account.MailsPerHour+1 {
		t.Fatalf("an hour later: %d reset and %d account-exists mails, want %d of each", resets, exists, account.MailsPerHour+1)
	}
}

// mailKinds counts the reset mails and the account-exists mails among ms.
func mailKinds(ms []sinkMessage) (resets, exists int) {
	for _, m := range ms {
		switch {
		case strings.Contains(m.Text, publicURL+"/account/reset/"):
			resets++
		case strings.Contains(m.Subject, "already have"):
			exists++
		}
	}
	return resets, exists
}

// Anybody may sign up for any address: a stranger's sign-ups for a verified address, as many as
// the hour allows, never keep its owner, who forgot the password, from a reset.
func TestStrangersSignUpsLeaveTheReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	owner := e.verified(t)
	stranger := account.Client{IP: "198.51.100.66", UserAgent: "stranger/1.0"}
	for i := range account.MailsPerHour + 1 {
		if err := e.svc.SignUp(ctx, owner.Email, fmt.Sprintf("stranger-pw-%d-x", i), envelope.LanguageEnglish, "/sign/stranger", stranger); err != nil {
			t.Fatal(err)
		}
	}
	e.waitMails(t, owner.Email, account.MailsPerHour) // "you have an account already"
	if err := e.svc.RequestReset(ctx, owner.Email, envelope.LanguageEnglish, "/sign/abc", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, owner.Email, account.MailsPerHour+1)[0], "reset")
	a, next, err := e.svc.ResetPassword(ctx, token, "the owner's new passphrase", client)
	if err != nil || a.ID != owner.ID || next != "/sign/abc" {
		t.Fatalf("the owner's reset after a stranger's sign-ups: %+v %q %v", a, next, err)
	}
	e.signIn(t, &browser{}, owner.Email, "the owner's new passphrase")
}

// A stranger signs up for an address whose owner signed up but has not opened the link yet, as
// often as the hour allows: the stranger's password replaces the owner's, the owner's link stops
// working, and the owner's sign-up again is mailed nothing. The owner's reset is still mailed,
// and it takes the address back: verified, with the owner's password, and the stranger's links
// dead.
func TestResetTakesBackAnUnverifiedAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	victim := newAddress(t)
	const owners, strangers, ownersNew = "the owner's own passphrase", "the stranger's passphrase", "the owner's new passphrase"
	if err := e.svc.SignUp(ctx, victim, owners, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	first := linkIn(t, e.waitMails(t, victim, 1)[0], "verify")
	stranger := account.Client{IP: "198.51.100.66", UserAgent: "stranger/1.0"}
	for range account.MailsPerHour {
		if err := e.svc.SignUp(ctx, victim, strangers, envelope.LanguageEnglish, "", stranger); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.svc.SignUp(ctx, victim, owners, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	mails := e.waitMails(t, victim, account.MailsPerHour)
	strangersLink := linkIn(t, mails[0], "verify")
	if _, _, _, err := e.verifyIn(&browser{}, first, owners); code(err) != envelope.CodeNotFound {
		t.Fatalf("the owner's first link after the stranger's sign-ups: %v", err)
	}

	if err := e.svc.RequestReset(ctx, victim, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, victim, account.MailsPerHour+1)[0], "reset")
	a, _, err := e.svc.ResetPassword(ctx, token, ownersNew, client)
	if err != nil || !a.EmailVerified {
		t.Fatalf("the owner's reset of an unverified account: %+v %v", a, err)
	}
	if _, _, _, err := e.verifyIn(&browser{}, strangersLink, strangers); code(err) != envelope.CodeNotFound {
		t.Fatalf("the stranger's verification link after the reset: %v", err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), victim, strangers, stranger); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the stranger's password after the owner's reset: %v", err)
	}
	signedIn, _ := e.signIn(t, &browser{}, victim, ownersNew)
	if !signedIn.EmailVerified || signedIn.ID != a.ID {
		t.Fatalf("the owner signed in to %+v", signedIn)
	}
}

// Someone who signs up first for another person's address, with a password of their own, gains
// nothing when the owner of the mailbox (or a mail scanner) opens the mailed link: the link
// alone verifies nothing, the owner's own password does not fit it, and the owner's sign-up
// again takes the address back.
func TestVerificationNeedsThePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	victim := newAddress(t)
	const attackers, owners = "the attacker's own passphrase", "the owner's own passphrase"

	if err := e.svc.SignUp(ctx, victim, attackers, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, victim, 1)[0], "verify")
	// The scanner reads the link; the owner tries it with their own password.
	if shown, err := e.svc.LinkEmail(ctx, token); err != nil || shown != victim {
		t.Fatalf("LinkEmail: %q %v", shown, err)
	}
	var owner browser
	if _, _, _, err := e.verifyIn(&owner, token, owners); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the link with the mailbox owner's password: %v", err)
	}
	if _, _, ok := e.svc.Current(ctx, owner.request()); ok {
		t.Fatal("the owner's browser was signed in to the attacker's account")
	}
	var attacker browser
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), attacker.request(), victim, attackers, client); code(err) != envelope.CodeEmailUnverified {
		t.Fatalf("the attacker signs in after the link was opened: %v", err)
	}
	// The owner signs up again: their password replaces the attacker's; the first link is dead.
	if err := e.svc.SignUp(ctx, victim, owners, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	fresh := linkIn(t, e.waitMails(t, victim, 2)[0], "verify")
	if _, _, _, err := e.verifyIn(&attacker, token, attackers); code(err) != envelope.CodeNotFound {
		t.Fatalf("the first link after the owner signed up again: %v", err)
	}
	a, _, _, err := e.verifyIn(&owner, fresh, owners)
	if err != nil || !a.EmailVerified {
		t.Fatalf("the owner verifies: %+v %v", a, err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), attacker.request(), victim, attackers, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the attacker's password after the owner verified: %v", err)
	}
}

// Wrong passwords at a verification link count like wrong sign-ins: ten lock the account, and
// the link keeps working once the lock has passed.
func TestVerificationLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	email := newAddress(t)
	if err := e.svc.SignUp(ctx, email, goodPassword, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, email, 1)[0], "verify")
	var err error
	for range account.MaxFailures {
		_, _, _, err = e.verifyIn(&browser{}, token, "not the password at all")
	}
	if code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the tenth wrong password at the link: %v", err)
	}
	if _, _, _, err := e.verifyIn(&browser{}, token, goodPassword); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while locked: %v", err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), email, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("a sign-in while locked at the link: %v", err)
	}
	e.clk.add(account.LockDuration)
	if a, _, _, err := e.verifyIn(&browser{}, token, goodPassword); err != nil || !a.EmailVerified {
		t.Fatalf("the link after the lock: %+v %v", a, err)
	}
}
