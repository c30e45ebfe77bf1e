package account_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/webauthntest"
)

func TestNewWebAuthn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		publicURL, rpID, origin string
	}{
		{"https://firma.example.cl", "firma.example.cl", "https://firma.example.cl"},
		{"https://Firma.Example.cl/sobre", "firma.example.cl", "https://firma.example.cl"},
		{"https://firma.example.cl:8443", "firma.example.cl", "https://firma.example.cl:8443"},
		{"http://localhost:8080", "localhost", "http://localhost:8080"},
		// Browsers refuse WebAuthn on an IP address: loopback becomes localhost.
		{"http://127.0.0.1:8080", "localhost", "http://localhost:8080"},
		{"http://127.8.9.10:9000", "localhost", "http://localhost:9000"},
		{"http://[::1]:8080", "localhost", "http://localhost:8080"},
		{"http://127.0.0.1", "localhost", "http://localhost"},
	} {
		w, err := account.NewWebAuthn(c.publicURL)
		if err != nil {
			t.Errorf("%s: %v", c.publicURL, err)
			continue
		}
		if w.Config.RPID != c.rpID || len(w.Config.RPOrigins) != 1 || w.Config.RPOrigins[0] != c.origin || w.Config.RPDisplayName != "Sobre" {
			t.Errorf("%s: RPID %q origins %q name %q, want %q %q Sobre", c.publicURL, w.Config.RPID, w.Config.RPOrigins, w.Config.RPDisplayName, c.rpID, c.origin)
		}
	}
	for _, bad := range []string{"", "ftp://firma.example.cl", "http://10.0.0.7:8080", "https://[2001:db8::1]/", "https:///x"} {
		if _, err := account.NewWebAuthn(bad); err == nil {
			t.Errorf("NewWebAuthn(%q) accepted", bad)
		}
	}
}

// passkeyEnv is an env with passkeys, a signed-in browser and a software authenticator at the
// relying party's origin.
func passkeyEnv(t *testing.T) (*env, account.Account, account.Session, *webauthntest.Authenticator) {
	t.Helper()
	e := newEnv(t, false)
	w, err := account.NewWebAuthn(publicURL)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.WebAuthn = w
	a := e.verified(t)
	var b browser
	_, sess := e.signIn(t, &b, a.Email, goodPassword)
	return e, a, sess, webauthntest.New("http://localhost:8080")
}

// register makes a passkey of a with auth.
func register(t *testing.T, e *env, a account.Account, sess account.Session, auth *webauthntest.Authenticator, name string) account.Passkey {
	t.Helper()
	ctx := context.Background()
	opts, err := e.svc.BeginPasskeyRegistration(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := auth.Create(opts, webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, name, resp, client)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// confirmWithPasskey proves a passkey of auth for session sess on the account page.
func confirmWithPasskey(t *testing.T, e *env, a account.Account, sess account.Session, auth *webauthntest.Authenticator) {
	t.Helper()
	ctx := context.Background()
	opts, err := e.svc.BeginFactorPasskey(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := auth.Get(opts, webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ConfirmFactorWithPasskey(ctx, a, sess, resp, client); err != nil {
		t.Fatal(err)
	}
}

func TestPasskeyRegistration(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()

	opts, err := e.svc.BeginPasskeyRegistration(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		PublicKey struct {
			RP   struct{ ID, Name string }
			User struct {
				ID          string
				Name        string
				DisplayName string `json:"displayName"`
			}
			AuthenticatorSelection struct {
				ResidentKey      string `json:"residentKey"`
				UserVerification string `json:"userVerification"`
			} `json:"authenticatorSelection"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(opts, &o); err != nil {
		t.Fatal(err)
	}
	handle, _ := base64.RawURLEncoding.DecodeString(o.PublicKey.User.ID)
	if o.PublicKey.RP.ID != "localhost" || o.PublicKey.RP.Name != "Sobre" || o.PublicKey.User.Name != a.Email ||
		o.PublicKey.User.DisplayName != a.Email || len(handle) != 8 || handle[7] != byte(a.ID) ||
		o.PublicKey.AuthenticatorSelection.ResidentKey != "preferred" || o.PublicKey.AuthenticatorSelection.UserVerification != "required" {
		t.Fatalf("registration options %s", opts)
	}

	// An answer made for another origin is refused, and spends the challenge.
	resp, err := auth.Create(opts, webauthntest.Tweaks{Origin: "https://evil.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, "Laptop", resp, client); code(err) != envelope.CodeVerificationFailed {
		t.Fatalf("registration from another origin: %v", err)
	}
	auth.Credentials = nil
	// Without user verification: refused.
	opts, _ = e.svc.BeginPasskeyRegistration(ctx, a, sess)
	resp, _ = auth.Create(opts, webauthntest.Tweaks{NoUserVerified: true})
	if _, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, "Laptop", resp, client); code(err) != envelope.CodeVerificationFailed {
		t.Fatalf("registration without user verification: %v", err)
	}
	auth.Credentials = nil

	opts, _ = e.svc.BeginPasskeyRegistration(ctx, a, sess)
	resp, _ = auth.Create(opts, webauthntest.Tweaks{})
	p, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, "  Laptop  ", resp, client)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Laptop" || p.CredentialID != base64.RawURLEncoding.EncodeToString(auth.Credentials[0].ID) {
		t.Fatalf("passkey %+v", p)
	}
	// The same answer again: its challenge is spent.
	if _, err := e.svc.FinishPasskeyRegistration(ctx, a, sess, "Laptop", resp, client); code(err) != envelope.CodeVerificationFailed {
		t.Fatalf("a registration answer replayed: %v", err)
	}
	// The passkey is a second factor: another is added only once the session proved one.
	if _, err := e.svc.BeginPasskeyRegistration(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("a second passkey without a factor proof: %v", err)
	}
	confirmWithPasskey(t, e, a, sess, auth)
	// The next options exclude the registered passkey: the authenticator holding it refuses.
	opts, err = e.svc.BeginPasskeyRegistration(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Create(opts, webauthntest.Tweaks{}); err == nil {
		t.Fatal("the registered passkey is not excluded")
	}
	// Another session's challenge is not this one's.
	other := sess
	other.ID = "another-session"
	resp, _ = webauthntest.New("http://localhost:8080").Create(opts, webauthntest.Tweaks{})
	if _, err := e.svc.FinishPasskeyRegistration(ctx, a, other, "Phone", resp, client); code(err) != envelope.CodeVerificationFailed {
		t.Fatalf("another session's challenge: %v", err)
	}
	if e.events(t, a.ID, "PASSKEY_ADDED") != 1 {
		t.Error("no PASSKEY_ADDED event")
	}
	o2, err := e.svc.Overview(ctx, a)
	if err != nil || len(o2.Passkeys) != 1 || o2.Passkeys[0].ID != p.ID {
		t.Fatalf("overview passkeys %+v %v", o2.Passkeys, err)
	}

	// Removing: another account cannot; a session of the owner's that proved no factor cannot;
	// the owner's session that proved one can.
	b := e.verified(t)
	_, bs := e.signIn(t, &browser{}, b.Email, goodPassword)
	if err := e.svc.RemovePasskey(ctx, b, bs, p.ID, client); code(err) != envelope.CodeNotFound {
		t.Fatalf("another account removed a passkey: %v", err)
	}
	_, fresh := e.signIn(t, &browser{}, a.Email, goodPassword)
	if err := e.svc.RemovePasskey(ctx, a, fresh, p.ID, client); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("a passkey removed with the password alone: %v", err)
	}
	if err := e.svc.RemovePasskey(ctx, a, sess, p.ID, client); err != nil {
		t.Fatal(err)
	}
	if e.events(t, a.ID, "PASSKEY_REMOVED") != 1 {
		t.Error("no PASSKEY_REMOVED event")
	}
	if _, err := e.svc.BeginPasskeyAssertion(ctx, a, sess); code(err) != envelope.CodeAuthNotEnrolled {
		t.Fatalf("assertion without passkeys: %v", err)
	}
}

func TestPasskeyAssertion(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()
	p := register(t, e, a, sess, auth, "Laptop")

	assert := func(tw webauthntest.Tweaks) (string, []byte, error) {
		t.Helper()
		opts, err := e.svc.BeginPasskeyAssertion(ctx, a, sess)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := auth.Get(opts, tw)
		if err != nil {
			t.Fatal(err)
		}
		id, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, resp, client)
		return id, resp, err
	}

	opts, err := e.svc.BeginPasskeyAssertion(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		PublicKey struct {
			RPID             string                `json:"rpId"`
			UserVerification string                `json:"userVerification"`
			Allow            []struct{ ID string } `json:"allowCredentials"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(opts, &o); err != nil || o.PublicKey.RPID != "localhost" || o.PublicKey.UserVerification != "required" ||
		len(o.PublicKey.Allow) != 1 || o.PublicKey.Allow[0].ID != p.CredentialID {
		t.Fatalf("assertion options %s (%v)", opts, err)
	}

	id, resp, err := assert(webauthntest.Tweaks{})
	if err != nil || id != p.CredentialID {
		t.Fatalf("a good assertion: %q %v", id, err)
	}
	var count int64
	var lastUsed *string
	if err := e.db.QueryRow(ctx, `SELECT (credential->'authenticator'->>'signCount')::bigint, last_used_at::text FROM account_passkeys WHERE id = $1`, p.ID).
		Scan(&count, &lastUsed); err != nil || count != 1 || lastUsed == nil {
		t.Fatalf("after an assertion: sign count %d, last used %v (%v)", count, lastUsed, err)
	}
	if _, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, resp, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the same assertion replayed: %v", err)
	}
	stale := uint32(1)
	for name, tw := range map[string]webauthntest.Tweaks{
		"another origin":     {Origin: "https://evil.example"},
		"another rp id":      {RPID: "evil.example"},
		"broken signature":   {BreakSignature: true},
		"no user verified":   {NoUserVerified: true},
		"a stale sign count": {SignCount: &stale},
	} {
		if _, _, err := assert(tw); code(err) != envelope.CodeAuthFailed {
			t.Errorf("%s: %v, want AUTHENTICATION_FAILED", name, err)
		}
	}
	// Another authenticator's key, answering with the registered credential's id, is refused.
	intruder := webauthntest.New("http://localhost:8080")
	if _, err := intruder.Create([]byte(`{"publicKey":{"challenge":"AAAAAAAAAAAAAAAAAAAAAA","rp":{"id":"localhost"},"user":{"id":"AQ"}}}`), webauthntest.Tweaks{}); err != nil {
		t.Fatal(err)
	}
	intruder.Credentials[0].ID = auth.Credentials[0].ID
	intruder.Credentials[0].UserHandle = auth.Credentials[0].UserHandle
	intruder.Credentials[0].SignCount = 100
	opts, _ = e.svc.BeginPasskeyAssertion(ctx, a, sess)
	resp, _ = intruder.Get(opts, webauthntest.Tweaks{})
	if _, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, resp, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("another key: %v", err)
	}
	// The challenge is bound to the session that asked for it.
	opts, _ = e.svc.BeginPasskeyAssertion(ctx, a, sess)
	resp, _ = auth.Get(opts, webauthntest.Tweaks{})
	other := sess
	other.ID = "another-session"
	if _, err := e.svc.FinishPasskeyAssertion(ctx, a, other, resp, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("another session's challenge: %v", err)
	}
	if n := e.events(t, a.ID, "PASSKEY_FAILED"); n != 8 {
		t.Errorf("%d PASSKEY_FAILED events, want 8", n)
	}
	if n, pw := e.factorFailures(t, a.ID), e.failedAttempts(t, a.ID); n != 8 || pw != 0 {
		t.Errorf("%d failures counted with the codes and assertions, %d with the passwords; want 8 and 0", n, pw)
	}
	// A good one still passes, and clears the count.
	if id, _, err := assert(webauthntest.Tweaks{}); err != nil || id != p.CredentialID {
		t.Fatalf("a good assertion after failures: %q %v", id, err)
	}
	if n := e.factorFailures(t, a.ID); n != 0 {
		t.Errorf("%d failures after a good assertion", n)
	}
	// Passkeys off: unavailable.
	e.svc.WebAuthn = nil
	if _, err := e.svc.BeginPasskeyAssertion(ctx, a, sess); code(err) != envelope.CodeAuthUnavailable {
		t.Fatalf("without WebAuthn: %v", err)
	}
}

// A passkey challenge serves the purpose it was made for only: an assertion asked for a signing
// page (PASSKEY action auth) never confirms a factor on the account page, and one asked for the
// account page never proves PASSKEY on a signing page. Each refusal counts as a failed assertion.
func TestPasskeyChallengePurposes(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()
	p := register(t, e, a, sess, auth, "Laptop")
	answer := func(begin func(context.Context, account.Account, account.Session) ([]byte, error)) []byte {
		t.Helper()
		opts, err := begin(ctx, a, sess)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := auth.Get(opts, webauthntest.Tweaks{})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	if err := e.svc.ConfirmFactorWithPasskey(ctx, a, sess, answer(e.svc.BeginPasskeyAssertion), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a signing page's assertion confirming a factor: %v, want AUTHENTICATION_FAILED", err)
	}
	if _, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, answer(e.svc.BeginFactorPasskey), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("an account page's assertion proving PASSKEY: %v, want AUTHENTICATION_FAILED", err)
	}
	if n := e.events(t, a.ID, "PASSKEY_FAILED"); n != 2 {
		t.Errorf("%d PASSKEY_FAILED events, want 2", n)
	}
	// Each for its own purpose.
	if id, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, answer(e.svc.BeginPasskeyAssertion), client); err != nil || id != p.CredentialID {
		t.Fatalf("a signing page's assertion: %q %v", id, err)
	}
	if err := e.svc.ConfirmFactorWithPasskey(ctx, a, sess, answer(e.svc.BeginFactorPasskey), client); err != nil {
		t.Fatalf("an account page's assertion: %v", err)
	}
}

// Ten wrong passwords lock passwords only: the holder's passkey still answers, in a session signed
// in before. Ten failed assertions lock passkeys (and codes), not the password.
func TestPasskeyLockApart(t *testing.T) {
	t.Parallel()
	e, a, sess, auth := passkeyEnv(t)
	ctx := context.Background()
	p := register(t, e, a, sess, auth, "Laptop")
	for range account.MaxFailures {
		_ = e.svc.ConfirmPassword(ctx, a, "wrong-password-x", client)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password after ten wrong ones: %v", err)
	}
	opts, err := e.svc.BeginPasskeyAssertion(ctx, a, sess)
	if err != nil {
		t.Fatalf("passkey options while passwords are locked: %v", err)
	}
	resp, err := auth.Get(opts, webauthntest.Tweaks{})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := e.svc.FinishPasskeyAssertion(ctx, a, sess, resp, client); err != nil || id != p.CredentialID {
		t.Fatalf("an assertion while passwords are locked: %q %v", id, err)
	}

	e.clk.add(account.LockDuration)
	for range account.MaxFailures {
		opts, err := e.svc.BeginPasskeyAssertion(ctx, a, sess)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := auth.Get(opts, webauthntest.Tweaks{BreakSignature: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.FinishPasskeyAssertion(ctx, a, sess, resp, client)
		if code(err) != envelope.CodeAuthFailed && code(err) != envelope.CodeAccountLocked {
			t.Fatalf("a broken assertion: %v", err)
		}
	}
	if _, err := e.svc.BeginPasskeyAssertion(ctx, a, sess); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("passkey options after ten failed assertions: %v", err)
	}
	if _, err := e.svc.BeginFactorPasskey(ctx, a, sess); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("factor passkey options after ten failed assertions: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatalf("the right password while passkeys are locked: %v", err)
	}
}
