package account

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// lockedError is the answer while proofs of kind are locked until until.
func lockedError(kind persistence.AccountFailures, until, now time.Time) error {
	wait := until.Sub(now)
	if wait < time.Second {
		wait = time.Second
	}
	minutes := int((wait + time.Minute - 1) / time.Minute)
	unit := "minutes"
	if minutes == 1 {
		unit = "minute"
	}
	what := "no password"
	if kind == factorFailures {
		what = "no authenticator code, recovery code or passkey"
	}
	return &envelope.Error{Code: envelope.CodeAccountLocked, RetryAfter: wait,
		Message: fmt.Sprintf("Too many failed attempts: this account takes %s for %d more %s", what, minutes, unit)}
}

// Which count a failure goes to: wrong passwords, or wrong codes and failed passkey assertions.
const (
	passwordFailures = persistence.PasswordFailures
	factorFailures   = persistence.FactorFailures
)

// attempt counts an attempt to prove account id with a secret of kind before the secret is tested
// (persistence.Store.ReserveAccountAttempt): while proofs of kind are locked it is refused with
// CodeAccountLocked (the lock of the other kind does not matter). The caller then calls failed,
// or clears the count of kind on success.
func (s *Service) attempt(ctx context.Context, id int64, kind persistence.AccountFailures) error {
	now := s.now()
	ok, until, err := s.Store.ReserveAccountAttempt(ctx, id, kind, MaxFailures, now)
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case until != nil:
		return lockedError(kind, *until, now)
	default:
		// MaxFailures attempts are being tested at this moment: kind is as good as locked.
		return lockedError(kind, now.Add(LockDuration), now)
	}
}

// failed records a failed attempt of kind on account id (ev) and answers wrong, or
// CodeAccountLocked when this failure locked proofs of kind.
func (s *Service) failed(ctx context.Context, id int64, kind persistence.AccountFailures, ev persistence.AccountEvent, wrong error) error {
	now := s.now()
	until, err := s.Store.RecordAccountFailure(ctx, id, kind, ev, MaxFailures, LockDuration, now)
	if err != nil {
		return err
	}
	if until != nil {
		s.log().WarnContext(ctx, "signer account locked after too many failures", "account", id, "proofs", kind, "event", ev.Type, "until", until)
		return lockedError(kind, *until, now)
	}
	return wrong
}

// succeeded clears account id's count kind of failures after a right secret of that kind; the
// other count stays: a right password never clears the wrong codes.
func (s *Service) succeeded(ctx context.Context, id int64, kind persistence.AccountFailures) error {
	return s.Store.ClearAccountFailures(ctx, id, kind)
}

// checkPassword tests password against account a, counted against its lock: it returns the
// account's password hash as it now stands (rehashed under stronger parameters, perhaps) when
// right, and the error for a wrong one (wrong, or CodeAccountLocked) after recording ev.
func (s *Service) checkPassword(ctx context.Context, a persistence.SignerAccount, password string, ev persistence.AccountEvent, wrong error) (string, error) {
	if err := s.attempt(ctx, a.ID, passwordFailures); err != nil {
		return "", err
	}
	ok, err := VerifyPassword(ctx, a.PasswordHash, password)
	if err != nil {
		return "", fmt.Errorf("verify the password of account %d: %w", a.ID, err)
	}
	if !ok {
		return "", s.failed(ctx, a.ID, passwordFailures, ev, wrong)
	}
	if needsRehash(a.PasswordHash) {
		if h, err := HashPassword(ctx, password); err == nil {
			if err := s.Store.SetSignerPasswordHash(ctx, a.ID, a.PasswordHash, h); err != nil {
				s.log().WarnContext(ctx, "rehash a password", "account", a.ID, "err", err)
			} else {
				return h, nil
			}
		}
	}
	return a.PasswordHash, nil
}

// ConfirmPassword checks the password of a signed-in account again (PASSWORD action auth): nil
// when right, CodeAuthFailed when wrong (counted), CodeAccountLocked while passwords are locked. A right
// password clears the count of wrong passwords only, never that of wrong codes.
func (s *Service) ConfirmPassword(ctx context.Context, a Account, password string, c Client) error {
	if password == "" || utf8.RuneCountInString(password) > MaxPasswordLength {
		var p envelope.Problems
		p.Add("password", "is required, at most %d characters", MaxPasswordLength)
		return p.Err()
	}
	stored, err := s.Store.SignerAccountByID(ctx, a.ID)
	if err != nil {
		return err
	}
	if _, err := s.checkPassword(ctx, stored, password, c.event(persistence.AccountEventPasswordFailed), errPasswordWrong); err != nil {
		return err
	}
	if err := s.succeeded(ctx, a.ID, passwordFailures); err != nil {
		return err
	}
	return s.Store.RecordAccountEvent(ctx, a.ID, c.event(persistence.AccountEventPasswordConfirmed), s.now())
}
