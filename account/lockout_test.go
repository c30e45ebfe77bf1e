package account_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// Ten wrong passwords in a row lock the account for 15 minutes: meanwhile even the right
// password is refused with the wait, and afterwards it works again.
func TestLockout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	signIn := func(password string) error {
		_, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, password, client)
		return err
	}

	for i := 1; i < account.MaxFailures; i++ {
		if err := signIn("wrong-password-x"); code(err) != envelope.CodeAuthFailed {
			t.Fatalf("wrong password %d: %v", i, err)
		}
	}
	if n := e.failedAttempts(t, a.ID); n != account.MaxFailures-1 {
		t.Fatalf("%d failures counted, want %d", n, account.MaxFailures-1)
	}
	err := signIn("wrong-password-x")
	var de *envelope.Error
	if !errors.As(err, &de) || de.Code != envelope.CodeAccountLocked || de.RetryAfter != account.LockDuration {
		t.Fatalf("the tenth wrong password: %#v, want ACCOUNT_LOCKED with a %v wait", err, account.LockDuration)
	}
	e.clk.add(time.Minute)
	for _, pw := range []string{goodPassword, "wrong-password-x"} {
		err := signIn(pw)
		if !errors.As(err, &de) || de.Code != envelope.CodeAccountLocked || de.RetryAfter != account.LockDuration-time.Minute {
			t.Fatalf("%q while locked: %#v", pw, err)
		}
	}
	// While locked nothing is tested: no failure is counted or recorded.
	if n, ev := e.failedAttempts(t, a.ID), e.events(t, a.ID, "SIGN_IN_FAILED"); n != 0 || ev != account.MaxFailures {
		t.Fatalf("while locked: %d failures counted, %d recorded; want 0 and %d", n, ev, account.MaxFailures)
	}
	if n := e.events(t, a.ID, "ACCOUNT_LOCKED"); n != 1 {
		t.Fatalf("%d ACCOUNT_LOCKED events, want 1", n)
	}
	// Every proof is refused while locked.
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("ConfirmPassword while locked: %v", err)
	}

	e.clk.add(account.LockDuration - time.Minute)
	if err := signIn(goodPassword); err != nil {
		t.Fatalf("the right password once the lock passed: %v", err)
	}
	// A success starts the count again.
	if err := signIn("wrong-password-x"); code(err) != envelope.CodeAuthFailed {
		t.Fatal(err)
	}
	if err := signIn(goodPassword); err != nil {
		t.Fatal(err)
	}
	if n := e.failedAttempts(t, a.ID); n != 0 {
		t.Fatalf("%d failures after a success", n)
	}
}

// Wrong passwords and wrong codes are counted apart, and lock apart: five of each lock nothing, a
// right password clears only the wrong passwords, ten wrong codes lock codes (and passkeys) but
// not the password, and ten wrong passwords lock passwords but not codes.
func TestLockoutCountsApart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	secret, recovery := e.enrol(t, a)
	wrong := wrongCode(codeAt(t, secret, e.clk.now()))

	for range account.MaxFailures / 2 {
		if err := e.svc.ConfirmPassword(ctx, a, "wrong-password-x", client); code(err) != envelope.CodeAuthFailed {
			t.Fatalf("wrong confirmation: %v", err)
		}
	}
	for range account.MaxFailures / 2 {
		if err := e.svc.VerifyTOTP(ctx, a, wrong, client); code(err) != envelope.CodeAuthFailed {
			t.Fatalf("wrong code: %v", err)
		}
	}
	if pw, f := e.failedAttempts(t, a.ID), e.factorFailures(t, a.ID); pw != account.MaxFailures/2 || f != account.MaxFailures/2 {
		t.Fatalf("counted %d wrong passwords and %d wrong codes, want %d of each", pw, f, account.MaxFailures/2)
	}
	// A right password clears the wrong passwords, not the wrong codes.
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatal(err)
	}
	if pw, f := e.failedAttempts(t, a.ID), e.factorFailures(t, a.ID); pw != 0 || f != account.MaxFailures/2 {
		t.Fatalf("after the right password: %d wrong passwords and %d wrong codes counted, want 0 and %d", pw, f, account.MaxFailures/2)
	}
	for i := range account.MaxFailures / 2 {
		err := e.svc.VerifyTOTP(ctx, a, wrong, client)
		want := envelope.CodeAuthFailed
		if i == account.MaxFailures/2-1 {
			want = envelope.CodeAccountLocked
		}
		if code(err) != want {
			t.Fatalf("wrong code %d: %v, want %s", account.MaxFailures/2+i+1, err, want)
		}
	}
	// Codes are locked, the password is not.
	e.clk.add(time.Minute)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right code while codes are locked: %v", err)
	}
	if err := e.svc.VerifyTOTP(ctx, a, recovery[0], client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("a recovery code while codes are locked: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatalf("the right password while codes are locked: %v", err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, goodPassword, client); err != nil {
		t.Fatalf("sign-in while codes are locked: %v", err)
	}
	if e.events(t, a.ID, "PASSWORD_FAILED") != account.MaxFailures/2 || e.events(t, a.ID, "TOTP_FAILED") != account.MaxFailures {
		t.Error("failures not recorded by kind")
	}
	e.clk.add(account.LockDuration)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("the right code after the lock: %v", err)
	}
	// Ten wrong passwords lock passwords, not codes.
	for range account.MaxFailures {
		_ = e.svc.ConfirmPassword(ctx, a, "wrong-password-x", client)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while passwords are locked: %v", err)
	}
	e.clk.add(account.TOTPPeriod)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("a right code while passwords are locked: %v", err)
	}
	var kinds []string
	rows, err := e.db.Query(ctx, `SELECT data->>'proofs' FROM account_events WHERE account_id = $1 AND type = 'ACCOUNT_LOCKED' ORDER BY id`, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, k)
	}
	if rows.Err() != nil || len(kinds) != 2 || kinds[0] != "factor" || kinds[1] != "password" {
		t.Errorf("ACCOUNT_LOCKED events of %v, want factor then password (%v)", kinds, rows.Err())
	}
}

// Whoever knows only the address types ten wrong passwords at the sign-in page: passwords are
// locked, but the holder's authenticator code, in a session signed in before, still proves the
// second factor (TWO_FACTOR_AUTH at the moment of signing, a factor confirmation on the account
// page).
func TestStrangersPasswordsLeaveTheFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	secret, _ := e.enrol(t, a)
	var owner browser
	_, sess := e.signIn(t, &owner, a.Email, goodPassword)
	stranger := account.Client{IP: "198.51.100.66", UserAgent: "stranger/1.0"}
	var err error
	for range account.MaxFailures {
		_, _, err = e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, "a stranger's guess 1", stranger)
	}
	if code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the stranger's tenth wrong password: %v", err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while passwords are locked: %v", err)
	}
	if _, _, ok := e.svc.Current(ctx, owner.request()); !ok {
		t.Fatal("the owner's session ended")
	}
	e.clk.add(account.TOTPPeriod)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("the owner's right code after a stranger's ten wrong sign-ins: %v", err)
	}
	e.clk.add(account.TOTPPeriod)
	if err := e.svc.ConfirmFactor(ctx, a, sess, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("the owner's factor confirmation after a stranger's ten wrong sign-ins: %v", err)
	}
}

// Whoever knows the password cannot guess authenticator codes without end by typing the right
// password after every nine wrong ones: the tenth wrong code locks the account all the same.
func TestRightPasswordKeepsTheCodeCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	secret, recovery := e.enrol(t, a)
	wrong := wrongCode(codeAt(t, secret, e.clk.now()))

	for i := 1; i < account.MaxFailures; i++ {
		if err := e.svc.VerifyTOTP(ctx, a, wrong, client); code(err) != envelope.CodeAuthFailed {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	// The right password, typed again and at a sign-in.
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatal(err)
	}
	e.signIn(t, &browser{}, a.Email, goodPassword)
	err := e.svc.VerifyTOTP(ctx, a, wrong, client)
	var de *envelope.Error
	if !errors.As(err, &de) || de.Code != envelope.CodeAccountLocked || de.RetryAfter != account.LockDuration {
		t.Fatalf("the tenth wrong code, after the right password: %v, want ACCOUNT_LOCKED for %v", err, account.LockDuration)
	}
	// A right recovery code is refused while codes are locked; the password is not locked.
	if err := e.svc.VerifyTOTP(ctx, a, recovery[0], client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("a recovery code while locked: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatalf("the right password while codes are locked: %v", err)
	}
	// Once the lock passed, a right code clears the count.
	e.clk.add(account.LockDuration)
	for range 3 {
		_ = e.svc.VerifyTOTP(ctx, a, wrong, client)
	}
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("the right code after the lock: %v", err)
	}
	if n := e.factorFailures(t, a.ID); n != 0 {
		t.Fatalf("%d wrong codes counted after a right one", n)
	}
}

// Wrong passwords sent all at once test no more than the lock allows: each is counted before it
// is tested.
func TestLockoutConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	const tries = 3 * account.MaxFailures
	var wg sync.WaitGroup
	errs := make([]error, tries)
	for i := range errs {
		wg.Go(func() {
			_, _, errs[i] = e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, "wrong-password-x", client)
		})
	}
	wg.Wait()
	failed, locked := 0, 0
	for _, err := range errs {
		switch code(err) {
		case envelope.CodeAuthFailed:
			failed++
		case envelope.CodeAccountLocked:
			locked++
		default:
			t.Errorf("a concurrent wrong password: %v", err)
		}
	}
	if tested := e.events(t, a.ID, "SIGN_IN_FAILED"); tested != account.MaxFailures {
		t.Fatalf("%d wrong passwords tested, want %d (answers: %d failed, %d locked)", tested, account.MaxFailures, failed, locked)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("after the burst: %v", err)
	}
}

// Ten wrong codes lock codes; a password reset, which lifts the lock on passwords, leaves that
// one: whoever holds the mailbox and the password gets no more guesses at a code before the lock
// has passed.
func TestResetKeepsTheFactorLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	ctx := context.Background()
	a := e.verified(t)
	secret, _ := e.enrol(t, a)
	wrong := wrongCode(codeAt(t, secret, e.clk.now()))
	var err error
	for range account.MaxFailures {
		err = e.svc.VerifyTOTP(ctx, a, wrong, client)
	}
	if code(err) != envelope.CodeAccountLocked {
		t.Fatalf("ten wrong codes: %v", err)
	}
	for range account.MaxFailures {
		_ = e.svc.ConfirmPassword(ctx, a, "wrong-password-x", client)
	}
	if err := e.svc.RequestReset(ctx, a.Email, envelope.LanguageEnglish, "", client); err != nil {
		t.Fatal(err)
	}
	token := linkIn(t, e.waitMails(t, a.Email, 2)[0], "reset") // the authenticator's notice, then the reset
	if _, _, err := e.svc.ResetPassword(ctx, token, "a-new-password-9", client); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, "a-new-password-9", client); err != nil {
		t.Fatalf("the new password: the reset left the password lock: %v", err)
	}
	e.clk.add(account.TOTPPeriod)
	for _, c := range []string{wrong, codeAt(t, secret, e.clk.now())} {
		if err := e.svc.VerifyTOTP(ctx, a, c, client); code(err) != envelope.CodeAccountLocked {
			t.Fatalf("code %s after the reset: %v, want ACCOUNT_LOCKED", c, err)
		}
	}
	e.clk.add(account.LockDuration)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); err != nil {
		t.Fatalf("the right code once the lock passed: %v", err)
	}
}
