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

// Wrong passwords, codes and confirmations count together.
func TestLockoutAcrossProofs(t *testing.T) {
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
	for i := range account.MaxFailures / 2 {
		err := e.svc.VerifyTOTP(ctx, a, wrong, client)
		want := envelope.CodeAuthFailed
		if i == account.MaxFailures/2-1 {
			want = envelope.CodeAccountLocked
		}
		if code(err) != want {
			t.Fatalf("wrong code %d: %v, want %s", i+1, err, want)
		}
	}
	e.clk.add(time.Minute)
	if err := e.svc.VerifyTOTP(ctx, a, codeAt(t, secret, e.clk.now()), client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right code while locked: %v", err)
	}
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); code(err) != envelope.CodeAccountLocked {
		t.Fatalf("the right password while locked: %v", err)
	}
	if e.events(t, a.ID, "PASSWORD_FAILED") != account.MaxFailures/2 || e.events(t, a.ID, "TOTP_FAILED") != account.MaxFailures/2 {
		t.Error("failures not recorded by kind")
	}
	e.clk.add(account.LockDuration)
	if err := e.svc.ConfirmPassword(ctx, a, goodPassword, client); err != nil {
		t.Fatalf("the right password after the lock: %v", err)
	}
	if e.events(t, a.ID, "PASSWORD_CONFIRMED") != 1 {
		t.Error("no PASSWORD_CONFIRMED event")
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
