package account_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/webauthntest"
)

// An account whose authenticator app is on: a session opened with the password alone neither
// registers a passkey nor sets up another app. Once it proves the app (a code on the account
// page) it may, for five minutes, in that session only.
func TestSecondFactorNeedsAFactorProof(t *testing.T) {
	t.Parallel()
	e, a, _, _ := passkeyEnv(t)
	ctx := context.Background()
	secret, recovery := e.enrol(t, a)

	var thief browser
	_, sess := e.signIn(t, &thief, a.Email, goodPassword)
	if _, err := e.svc.BeginPasskeyRegistration(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("passkey options for a session that proved only the password: %v", err)
	}
	if _, err := e.svc.BeginTOTP(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("an authenticator enrolment for a session that proved only the password: %v", err)
	}
	if n := e.events(t, a.ID, "PASSKEY_ADDED"); n != 0 {
		t.Fatalf("%d passkeys added", n)
	}
	// A wrong code proves nothing, and counts with the wrong codes.
	if err := e.svc.ConfirmFactor(ctx, a, sess, wrongCode(codeAt(t, secret, e.clk.now())), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a wrong code: %v", err)
	}
	if n := e.factorFailures(t, a.ID); n != 1 {
		t.Fatalf("%d wrong codes counted, want 1", n)
	}
	if _, err := e.svc.BeginPasskeyRegistration(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("passkey options after a wrong code: %v", err)
	}

	// The owner proves the app with a recovery code in a session of their own.
	var owner browser
	_, own := e.signIn(t, &owner, a.Email, goodPassword)
	if _, cur, _ := e.svc.Current(ctx, owner.request()); e.svc.FactorProved(cur) {
		t.Fatal("a session proved a factor before it did")
	}
	if err := e.svc.ConfirmFactor(ctx, a, own, recovery[0], client); err != nil {
		t.Fatal(err)
	}
	_, cur, ok := e.svc.Current(ctx, owner.request())
	if !ok || !e.svc.FactorProved(cur) || cur.FactorConfirmedAt == nil || !cur.FactorConfirmedAt.Equal(e.clk.now()) {
		t.Fatalf("the proving session: %+v %v", cur, ok)
	}
	if e.events(t, a.ID, "FACTOR_CONFIRMED") != 1 || e.factorFailures(t, a.ID) != 0 {
		t.Error("no FACTOR_CONFIRMED event, or the wrong code still counted")
	}
	// The other session is not unlocked by it.
	if _, err := e.svc.BeginPasskeyRegistration(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("another session's proof unlocked the thief's: %v", err)
	}
	auth := webauthntest.New("http://localhost:8080")
	register(t, e, a, own, auth, "Laptop")

	// Five minutes later the proof has lapsed; a passkey proves again.
	e.clk.add(account.FactorProofTTL)
	if _, cur, _ := e.svc.Current(ctx, owner.request()); e.svc.FactorProved(cur) {
		t.Fatal("a proof older than FactorProofTTL still counts")
	}
	if _, err := e.svc.BeginPasskeyRegistration(ctx, a, own); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("passkey options %v after the proof: %v", account.FactorProofTTL, err)
	}
	confirmWithPasskey(t, e, a, own, auth)
	register(t, e, a, own, webauthntest.New("http://localhost:8080"), "Phone")
	if n := e.events(t, a.ID, "PASSKEY_ADDED"); n != 2 {
		t.Fatalf("%d passkeys added, want 2", n)
	}
}

// A factor is removed only by a session that proved one: a passkey with a recent proof, the
// authenticator app with a code of its own.
func TestRemovingAFactorNeedsAFactorProof(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()
	// The first factor needs only the signed-in session.
	p := register(t, e, a, sess, auth, "Laptop")

	var thief browser
	_, other := e.signIn(t, &thief, a.Email, goodPassword)
	if err := e.svc.RemovePasskey(ctx, a, other, p.ID, client); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("the only passkey removed with the password alone: %v", err)
	}
	// Nor can the thief, the passkey gone, add their own as a first factor: it is still there.
	if _, err := e.svc.BeginTOTP(ctx, a, other); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("an authenticator enrolment with the password alone next to a passkey: %v", err)
	}
	// A failed passkey answer proves nothing, and counts with the wrong codes.
	opts, err := e.svc.BeginPasskeyAssertion(ctx, a, other)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := auth.Get(opts, webauthntest.Tweaks{BreakSignature: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ConfirmFactorWithPasskey(ctx, a, other, resp, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a broken passkey answer: %v", err)
	}
	if n := e.factorFailures(t, a.ID); n != 1 {
		t.Fatalf("%d failures counted with the codes and assertions, want 1", n)
	}
	if err := e.svc.RemovePasskey(ctx, a, other, p.ID, client); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("removed after a failed proof: %v", err)
	}
	// A proof in another session of another account does not count here.
	b := e.verified(t)
	_, bs := e.signIn(t, &browser{}, b.Email, goodPassword)
	if err := e.svc.ConfirmFactor(ctx, a, bs, "123456", client); code(err) != envelope.CodeAccountRequired {
		t.Fatalf("a session of another account proving this one's factor: %v", err)
	}

	// The owner proves the passkey, then sets up an app and removes the passkey.
	confirmWithPasskey(t, e, a, sess, auth)
	secret, _ := e.enrolIn(t, a, sess)
	if err := e.svc.RemovePasskey(ctx, a, sess, p.ID, client); err != nil {
		t.Fatal(err)
	}
	// The app is turned off by a code of its own: that code is the proof.
	e.clk.add(time.Minute)
	if err := e.svc.DisableTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatal(err)
	}
	if n := e.events(t, a.ID, "PASSKEY_REMOVED") + e.events(t, a.ID, "TOTP_DISABLED"); n != 2 {
		t.Fatalf("%d factors removed, want 2", n)
	}
}

// A registration begun while the account had no factor is refused when it ends after one was
// added meanwhile: the proof is asked again.
func TestFactorAddedMeanwhile(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()
	opts, err := e.svc.BeginPasskeyRegistration(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, a) // in another session
	resp, err := auth.Create(opts, webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, "Late", resp, client); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("a registration that ended after the account got an authenticator app: %v", err)
	}
	if n := e.events(t, a.ID, "PASSKEY_ADDED"); n != 0 {
		t.Fatalf("%d passkeys added", n)
	}
}

// Every factor added or removed is mailed to the account's address: what, when, from where,
// and to reset the password if it was not its holder.
func TestFactorChangesAreMailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	w, err := account.NewWebAuthn(publicURL)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.WebAuthn = w
	ctx := context.Background()
	a := e.verified(t)
	var b browser
	_, sess := e.signIn(t, &b, a.Email, goodPassword)
	auth := webauthntest.New("http://localhost:8080")

	p := register(t, e, a, sess, auth, "Teléfono <de> prueba")
	confirmWithPasskey(t, e, a, sess, auth)
	secret, _ := e.enrolIn(t, a, sess)
	if err := e.svc.RemovePasskey(ctx, a, sess, p.ID, client); err != nil {
		t.Fatal(err)
	}
	e.clk.add(time.Minute)
	if err := e.svc.DisableTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatal(err)
	}
	mails := e.waitMails(t, a.Email, 4)
	want := []struct{ subject, what string }{ // newest first
		{"The authenticator app of your Sobre account was turned off", "The authenticator app of the Sobre account of " + a.Email + " was turned off."},
		{"A passkey was removed from your Sobre account", "The passkey named \u201cTeléfono <de> prueba\u201d was removed"},
		{"An authenticator app was added to your Sobre account", "An authenticator app was added to the Sobre account of " + a.Email + "."},
		{"A passkey was added to your Sobre account", "A passkey named \u201cTeléfono <de> prueba\u201d was added"},
	}
	reset := publicURL + "/account/reset?email=" + strings.ReplaceAll(a.Email, "@", "%40")
	for i, m := range mails {
		if m.Subject != want[i].subject || !strings.Contains(m.Text, want[i].what) {
			t.Errorf("mail %d: %q\n%s\nwant %q saying %q", i, m.Subject, m.Text, want[i].subject, want[i].what)
		}
		for _, part := range []string{"IP address: " + client.IP, "Browser: " + client.UserAgent, "If this wasn't you, reset your password", reset, " UTC"} {
			if !strings.Contains(m.Text, part) {
				t.Errorf("mail %d (%s) lacks %q:\n%s", i, m.Subject, part, m.Text)
			}
		}
		if !strings.Contains(m.HTML, `href="`+strings.ReplaceAll(reset, "&", "&amp;")+`"`) || strings.Contains(m.HTML, "<de>") {
			t.Errorf("mail %d: the HTML lacks the reset link or does not escape the passkey's name:\n%s", i, m.HTML)
		}
	}
}
