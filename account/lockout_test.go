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

// Wrong passwords and wrong codes are counted apart, under one lock: five of each lock
// nothing, ten wrong codes lock the account for everything, and a right password clears only
// the wrong passwords.
func TestLockoutCountsApart(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	secret, _ := e.enrol(t, a)
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
	// One lock for everything.
	e.clk.add(time.Minute)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right code while locked: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while locked: %v", err)
	}
	if _, _, err := e.svc.SignIn(ctx, httptest.NewRecorder(), (&browser{}).request(), a.Email, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("sign-in while locked by codes: %v", err)
	}
	if e.events(t, a.ID, "PASSWORD_FAILED") != account.MaxFailures/2 || e.events(t, a.ID, "TOTP_FAILED") != account.MaxFailures {
		t.Error("failures not recorded by kind")
	}
	e.clk.add(account.LockDuration)
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatalf("the right password after the lock: %v", err)
	}
	if e.events(t, a.ID, "PASSWORD_CONFIRMED") != 2 {
		t.Error("no PASSWORD_CONFIRMED event")
	}
	// Ten wrong passwords lock the account for codes too.
	for range account.MaxFailures {
		_ = e.svc.ConfirmPassword(ctx, a, "wrong-password-x", client)
	}
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("a right code while locked by passwords: %v", err)
	}
}

// Whoever knows the password cannot guess authenticator codes without end by typing the right
// password after every nine wrong ones: the tenth wrong code locks the account all the same.
func TestRightPasswordKeepsTheCodeCount(t *testing.T) {
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
	// A right recovery code is refused while locked, and so is the password.
	if err := e.svc.VerifyTOTP(ctx, a, recovery[0], client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("a recovery code while locked: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while locked by codes: %v", err)
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
