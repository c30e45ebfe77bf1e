package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// Authenticator codes (RFC 6238): HMAC-SHA-1, six digits, 30-second steps, and the step before
// and after the current one accepted, for clocks that drift.
const (
	TOTPIssuer = "Sobre"
	TOTPPeriod = 30 * time.Second
	TOTPSkew   = 1
	totpDigits = otp.DigitsSix
)

var totpOpts = totp.ValidateOpts{Period: uint(TOTPPeriod / time.Second), Digits: totpDigits, Algorithm: otp.AlgorithmSHA1}

// recoveryAlphabet has no two characters a reader could take for one another (no 0/o, 1/l/i).
const recoveryAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// recoveryLength is how many characters a recovery code has; it is shown as two groups of five.
const recoveryLength = 10

var (
	errTOTPNotEnrolled = envelope.Errorf(envelope.CodeAuthNotEnrolled, "This account has no authenticator app")
	errTOTPEnabled     = envelope.Errorf(envelope.CodeInvalidRequest, "An authenticator app is on already: turn it off before setting up another")
	errTOTPNotBegun    = envelope.Errorf(envelope.CodeInvalidRequest, "Start setting up the authenticator app first")
)

// totpStep is the 30-second step t falls in.
func totpStep(t time.Time) int64 { return t.Unix() / int64(TOTPPeriod/time.Second) }

// matchTOTP returns the step, among the current one and TOTPSkew either side, whose code is code
// and which is after lastStep (the newest such step); false when there is none. Codes are
// compared in constant time.
func matchTOTP(secret, code string, now time.Time, lastStep int64) (int64, bool, error) {
	cur := totpStep(now)
	found, ok := int64(0), false
	for step := cur - TOTPSkew; step <= cur+TOTPSkew; step++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*int64(TOTPPeriod/time.Second), 0), totpOpts)
		if err != nil {
			return 0, false, fmt.Errorf("compute an authenticator code: %w", err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step > lastStep {
			found, ok = step, true
		}
	}
	return found, ok, nil
}

// isTOTPCode reports whether code is six digits.
func isTOTPCode(code string) bool {
	return len(code) == totpDigits.Length() && strings.Trim(code, "0123456789") == ""
}

// normaliseRecoveryCode returns code as stored (lower case, without the dash and spaces), or ""
// when it cannot be a recovery code.
func normaliseRecoveryCode(code string) string {
	c := strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(code))
	if len(c) != recoveryLength {
		return ""
	}
	for _, r := range c {
		if !strings.ContainsRune(recoveryAlphabet, r) {
			return ""
		}
	}
	return c
}

// newRecoveryCodes draws RecoveryCodes codes, as shown (xxxxx-xxxxx) and as stored (SHA-256).
func newRecoveryCodes() ([]string, [][]byte, error) {
	shown := make([]string, RecoveryCodes)
	hashes := make([][]byte, RecoveryCodes)
	// Bytes at or above limit are drawn again, so that every character is equally likely.
	limit := byte(256 / len(recoveryAlphabet) * len(recoveryAlphabet))
	for i := range shown {
		code := make([]byte, 0, recoveryLength)
		buf := make([]byte, 2*recoveryLength)
		for len(code) < recoveryLength {
			if _, err := rand.Read(buf); err != nil {
				return nil, nil, fmt.Errorf("draw a recovery code: %w", err)
			}
			for _, x := range buf {
				if x < limit && len(code) < recoveryLength {
					code = append(code, recoveryAlphabet[int(x)%len(recoveryAlphabet)])
				}
			}
		}
		shown[i] = string(code[:5]) + "-" + string(code[5:])
		hashes[i] = sha(string(code))
	}
	return shown, hashes, nil
}

// BeginTOTP starts enrolling an authenticator app for account a, asked by its session sess: a
// new secret, kept sealed and not in use until EnableTOTP confirms it. An account with an app
// enabled already must disable it first. An account with a passkey asks that sess proved a second
// factor less than FactorProofTTL ago (CodeFactorProofNeeded).
func (s *Service) BeginTOTP(ctx context.Context, a Account, sess Session) (TOTPEnrolment, error) {
	if err := s.requireFactorProof(ctx, a, sess); err != nil {
		return TOTPEnrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: a.Email, Period: totpOpts.Period,
		Digits: totpDigits, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TOTPEnrolment{}, fmt.Errorf("make an authenticator secret: %w", err)
	}
	if err := s.Store.SetPendingTOTPSecret(ctx, a.ID, key.Secret()); err != nil {
		if errors.Is(err, persistence.ErrTOTPEnabled) {
			return TOTPEnrolment{}, errTOTPEnabled
		}
		return TOTPEnrolment{}, err
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return TOTPEnrolment{}, fmt.Errorf("draw the authenticator QR code: %w", err)
	}
	var qr bytes.Buffer
	if err := png.Encode(&qr, img); err != nil {
		return TOTPEnrolment{}, fmt.Errorf("encode the authenticator QR code: %w", err)
	}
	return TOTPEnrolment{Secret: key.Secret(), URL: key.URL(), QRCode: qr.Bytes()}, nil
}

// EnableTOTP confirms the enrolment begun by BeginTOTP with a code from the app and returns
// RecoveryCodes single-use recovery codes, shown once; the account's address is mailed a notice.
// A wrong code counts against the account's lock (with wrong codes). The factor proof BeginTOTP
// asks for is asked again: a passkey added meanwhile counts.
func (s *Service) EnableTOTP(ctx context.Context, a Account, sess Session, code string, c Client) ([]string, error) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if !isTOTPCode(code) {
		return nil, codeProblem()
	}
	if err := s.requireFactorProof(ctx, a, sess); err != nil {
		return nil, err
	}
	sec, ok, err := s.Store.AccountTOTPSecret(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errTOTPNotBegun
	}
	if sec.Enabled {
		return nil, errTOTPEnabled
	}
	if err := s.attempt(ctx, a.ID, factorFailures); err != nil {
		return nil, err
	}
	now := s.now()
	step, match, err := matchTOTP(sec.Secret, code, now, sec.LastStep)
	if err != nil {
		return nil, err
	}
	if !match {
		return nil, s.failed(ctx, a.ID, factorFailures, c.event(persistence.AccountEventTOTPFailed), errCodeWrong)
	}
	shown, hashes, err := newRecoveryCodes()
	if err != nil {
		return nil, err
	}
	enabled, err := s.Store.EnableTOTP(ctx, a.ID, sec, step, hashes, c.event(persistence.AccountEventTOTPEnabled), now)
	if err != nil {
		return nil, err
	}
	if !enabled {
		// Another enrolment began, or the step was taken, meanwhile.
		return nil, s.failed(ctx, a.ID, factorFailures, c.event(persistence.AccountEventTOTPFailed), errCodeWrong)
	}
	s.notifyFactorChange(ctx, a, mail.AccountTOTPAdded, "", c)
	return shown, nil
}

func codeProblem() error {
	var p envelope.Problems
	p.Add("code", "must be six digits from the authenticator app, or a recovery code")
	return p.Err()
}

// DisableTOTP turns the app off, proved by a current code or a recovery code of it (which is
// the proof of a second factor that removing one asks for), and mails the account's address a
// notice.
func (s *Service) DisableTOTP(ctx context.Context, a Account, code string, c Client) error {
	if err := s.VerifyTOTP(ctx, a, code, c); err != nil {
		return err
	}
	if err := s.Store.DisableTOTP(ctx, a.ID, c.event(persistence.AccountEventTOTPDisabled), s.now()); err != nil {
		return err
	}
	s.notifyFactorChange(ctx, a, mail.AccountTOTPRemoved, "", c)
	return nil
}

// VerifyTOTP checks a code of the account's app (RFC 6238, 30 s steps, one step either side), or
// one of its recovery codes. A code is accepted once: a step at or before the last accepted one
// is refused. Wrong: CodeAuthFailed (counted with the wrong codes and passkey assertions, which
// only a right code or assertion clears); no app: CodeAuthNotEnrolled.
func (s *Service) VerifyTOTP(ctx context.Context, a Account, code string, c Client) error {
	code = strings.TrimSpace(code)
	if digits := strings.ReplaceAll(code, " ", ""); isTOTPCode(digits) {
		code = digits // typed as "123 456"
	}
	recovery := ""
	if !isTOTPCode(code) {
		if recovery = normaliseRecoveryCode(code); recovery == "" {
			return codeProblem()
		}
	}
	sec, ok, err := s.Store.AccountTOTPSecret(ctx, a.ID)
	if err != nil {
		return err
	}
	if !ok || !sec.Enabled {
		return errTOTPNotEnrolled
	}
	if err := s.attempt(ctx, a.ID, factorFailures); err != nil {
		return err
	}
	now := s.now()
	fail := func() error {
		return s.failed(ctx, a.ID, factorFailures, c.event(persistence.AccountEventTOTPFailed), errCodeWrong)
	}
	if recovery != "" {
		used, err := s.Store.UseRecoveryCode(ctx, a.ID, sha(recovery), c.event(persistence.AccountEventRecoveryCodeUsed), now)
		if err != nil {
			return err
		}
		if !used {
			return fail()
		}
		return nil
	}
	step, match, err := matchTOTP(sec.Secret, code, now, sec.LastStep)
	if err != nil {
		return err
	}
	if !match {
		return fail()
	}
	accepted, err := s.Store.AcceptTOTPStep(ctx, a.ID, step)
	if err != nil {
		return err
	}
	if !accepted {
		// The same code, or a later one, was accepted meanwhile.
		return fail()
	}
	return nil
}
