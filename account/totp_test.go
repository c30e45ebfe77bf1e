package account_test

import (
	"bytes"
	"context"
	"image/png"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// codeAt is the authenticator code of secret for the step t falls in, as an app computes it.
func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol turns the authenticator on for a, in a session of its own (a first factor: the session
// alone may add it), and returns its secret and recovery codes.
func (e *env) enrol(t *testing.T, a account.Account) (string, []string) {
	t.Helper()
	_, sess := e.signIn(t, &browser{}, a.Email, goodPassword)
	return e.enrolIn(t, a, sess)
}

// enrolIn turns the authenticator on for a in session sess.
func (e *env) enrolIn(t *testing.T, a account.Account, sess account.Session) (string, []string) {
	t.Helper()
	ctx := context.Background()
	en, err := e.svc.BeginTOTP(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := e.svc.EnableTOTP(ctx, a, sess, codeAt(t, en.Secret, e.clk.now()), client)
	if err != nil {
		t.Fatal(err)
	}
	return en.Secret, codes
}

func TestTOTPEnrolment(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)

	if err := e.svc.VerifyTOTP(ctx, a, "123456", client); code(err) != envelope.CodeAuthNotEnrolled {
		t.Fatalf("a code before any app: %v", err)
	}
	_, sess := e.signIn(t, &browser{}, a.Email, goodPassword)
	en, err := e.svc.BeginTOTP(ctx, a, sess)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(en.URL)
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("issuer") != "Sobre" ||
		u.Query().Get("secret") != en.Secret || !strings.Contains(u.Path, a.Email) ||
		u.Query().Get("digits") != "6" || u.Query().Get("period") != "30" || u.Query().Get("algorithm") != "SHA1" {
		t.Fatalf("otpauth URL %q", en.URL)
	}
	img, err := png.Decode(bytes.NewReader(en.QRCode))
	if err != nil || img.Bounds().Dx() != 200 || img.Bounds().Dy() != 200 {
		t.Fatalf("QR code: %v %v", img.Bounds(), err)
	}
	// The secret is kept sealed, never in the clear.
	var sealed []byte
	var keyID string
	if err := e.db.QueryRow(ctx, `SELECT totp_secret_sealed, totp_key_id FROM signer_accounts WHERE id = $1`, a.ID).Scan(&sealed, &keyID); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || keyID == "" || bytes.Contains(sealed, []byte(en.Secret)) {
		t.Fatalf("stored secret %x (key %q) is not sealed", sealed, keyID)
	}
	// Being enrolled is not enabled: codes are not taken yet.
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, en.Secret, e.clk.now()), client); code(err) != envelope.CodeAuthNotEnrolled {
		t.Fatalf("a code of an app not confirmed: %v", err)
	}
	if _, err := e.svc.EnableTOTP(ctx, a, sess, wrongCode(codeAt(t, en.Secret, e.clk.now())), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a wrong confirmation code: %v", err)
	}
	if n := e.factorFailures(t, a.ID); n != 1 {
		t.Fatalf("a wrong confirmation code counted %d times with the codes, want once", n)
	}
	codes, err := e.svc.EnableTOTP(ctx, a, sess, codeAt(t, en.Secret, e.clk.now()), client)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != account.RecoveryCodes {
		t.Fatalf("%d recovery codes", len(codes))
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 11 || c[5] != '-' || seen[c] {
			t.Errorf("recovery code %q: want xxxxx-xxxxx, all different", c)
		}
		seen[c] = true
	}
	if e.events(t, a.ID, "TOTP_ENABLED") != 1 {
		t.Error("no TOTP_ENABLED event")
	}
	if n := e.factorFailures(t, a.ID); n != 0 {
		t.Fatalf("%d failed codes counted after the right one", n)
	}
	// Another enrolment: the app on is a factor, so the session proves it first; and then the
	// app must be turned off before another is set up.
	if _, err := e.svc.BeginTOTP(ctx, a, sess); code(err) != envelope.CodeFactorProofNeeded {
		t.Fatalf("a second enrolment without a factor proof: %v", err)
	}
	e.clk.add(time.Minute)
	if err := e.svc.ConfirmFactor(ctx, a, sess, codeAt(t, en.Secret, e.clk.now()), client); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.BeginTOTP(ctx, a, sess); code(err) != envelope.CodeInvalidRequest {
		t.Fatalf("a second enrolment while enabled: %v", err)
	}
	o, err := e.svc.Overview(ctx, a)
	if err != nil || !o.Account.TOTPEnabled || o.RecoveryCodesLeft != account.RecoveryCodes {
		t.Fatalf("overview after enabling: %+v %v", o, err)
	}

	// Turning it off takes a current code; afterwards codes are not taken.
	e.clk.add(time.Minute)
	if err := e.svc.DisableTOTP(ctx, a, wrongCode(codeAt(t, en.Secret, e.clk.now())), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("disable with a wrong code: %v", err)
	}
	if err := e.svc.DisableTOTP(ctx, a, codeAt(t, en.Secret, e.clk.now()), client); err != nil {
		t.Fatal(err)
	}
	e.clk.add(time.Minute)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, en.Secret, e.clk.now()), client); code(err) != envelope.CodeAuthNotEnrolled {
		t.Fatalf("a code after disabling: %v", err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, codes[0], client); code(err) != envelope.CodeAuthNotEnrolled {
		t.Fatalf("a recovery code after disabling: %v", err)
	}
	if e.events(t, a.ID, "TOTP_DISABLED") != 1 {
		t.Error("no TOTP_DISABLED event")
	}
}

// wrongCode is a six-digit code other than c.
func wrongCode(c string) string {
	if c == "000000" {
		return "000001"
	}
	return "000000"
}

// Codes of the current step and one step either side are taken, two steps off are not, and each
// step is taken once: the same code again, or a code of an earlier step than the last taken, is
// refused.
func TestTOTPWindowAndReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	secret, _ := e.enrol(t, a)
	const step = 30 * time.Second

	for _, c := range []struct {
		name   string
		offset time.Duration
		ok     bool
	}{
		{"two steps back", -2 * step, false},
		{"two steps ahead", 2 * step, false},
		{"one step back", -step, true},
		{"this step", 0, true},
		{"one step ahead", step, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.clk.add(10 * step) // past every step taken so far
			err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now().Add(c.offset)), client)
			if (err == nil) != c.ok {
				t.Fatalf("offset %v: %v, want ok=%v", c.offset, err, c.ok)
			}
			if err != nil && code(err) != envelope.CodeAuthFailed {
				t.Fatalf("offset %v: %v, want AUTHENTICATION_FAILED", c.offset, err)
			}
		})
	}

	e.clk.add(10 * step)
	now := e.clk.now()
	current := codeAt(t, secret, now)
	if err := e.svc.VerifyTOTP(ctx, a, " "+current[:3]+" "+current[3:]+" ", client); err != nil {
		t.Fatalf("the current code: %v", err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, current, client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("the same code twice: %v", err)
	}
	// A newer step taken first: the older one, still in the window, is refused.
	e.clk.add(10 * step)
	now = e.clk.now()
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, now.Add(step)), client); err != nil {
		t.Fatalf("the next step's code: %v", err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, now), client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("an older step after a newer: %v", err)
	}
	// Two uses of one code at once: one is taken.
	e.clk.add(10 * step)
	same := codeAt(t, secret, e.clk.now())
	var wg sync.WaitGroup
	results := make([]error, 8)
	for i := range results {
		wg.Go(func() { results[i] = e.svc.VerifyTOTP(ctx, a, same, client) })
	}
	wg.Wait()
	passed := 0
	for _, err := range results {
		switch {
		case err == nil:
			passed++
		case code(err) != envelope.CodeAuthFailed:
			t.Errorf("a concurrent use: %v", err)
		}
	}
	if passed != 1 {
		t.Fatalf("one code used %d times at once was taken %d times, want 1", len(results), passed)
	}
	// Input that is neither six digits nor a recovery code is a 400 naming the code.
	for _, bad := range []string{"", "12345", "1234567", "abc!ef"} {
		if err := e.svc.VerifyTOTP(ctx, a, bad, client); code(err) != envelope.CodeInvalidBody {
			t.Errorf("code %q: %v", bad, err)
		}
	}
}

// A recovery code works once, typed in any case, with or without its dash.
func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	_, codes := e.enrol(t, a)

	if err := e.svc.VerifyTOTP(ctx, a, codes[0], client); err != nil {
		t.Fatalf("a recovery code: %v", err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, codes[0], client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a recovery code used twice: %v", err)
	}
	typed := strings.ToUpper(strings.ReplaceAll(codes[1], "-", " "))
	if err := e.svc.VerifyTOTP(ctx, a, typed, client); err != nil {
		t.Fatalf("recovery code typed as %q: %v", typed, err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, "zzzzz-zzzzz", client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("a made-up recovery code: %v", err)
	}
	o, err := e.svc.Overview(ctx, a)
	if err != nil || o.RecoveryCodesLeft != account.RecoveryCodes-2 {
		t.Fatalf("recovery codes left: %d (%v), want %d", o.RecoveryCodesLeft, err, account.RecoveryCodes-2)
	}
	if e.events(t, a.ID, "RECOVERY_CODE_USED") != 2 {
		t.Error("recovery codes used without their events")
	}
	// Another account's code is not this one's.
	b := e.verified(t)
	_, other := e.enrol(t, b)
	if err := e.svc.VerifyTOTP(ctx, a, other[0], client); code(err) != envelope.CodeAuthFailed {
		t.Fatalf("another account's recovery code: %v", err)
	}
	// A recovery code turns the app off.
	if err := e.svc.DisableTOTP(ctx, a, codes[2], client); err != nil {
		t.Fatalf("disable with a recovery code: %v", err)
	}
	var left int
	if err := e.db.QueryRow(ctx, `SELECT count(*) FROM account_recovery_codes WHERE account_id = $1`, a.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d recovery codes kept after disabling (%v)", left, err)
	}
}
