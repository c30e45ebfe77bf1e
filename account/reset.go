package account

import (
	"context"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// RequestReset mails a password-reset link (ResetLinkTTL, single use) to email when it has an
// account, verified or not, leading to next afterwards; the answer is the same when it has none,
// or when the address was sent MailsPerHour reset mails in the last hour (nothing is mailed
// then). Sign-up mails are counted apart and never hold a reset back. A newer reset link ends the
// older ones, so the newest mail's link always works.
func (s *Service) RequestReset(ctx context.Context, email string, lang envelope.Language, next string, c Client) error {
	email = strings.TrimSpace(email)
	if !envelope.ValidEmail(email) {
		var p envelope.Problems
		p.Add("email", "must be one email address")
		return p.Err()
	}
	if s.Mail == nil {
		return errNoMail
	}
	a, err := s.Store.SignerAccountByEmail(ctx, email)
	if envelope.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if lang != envelope.LanguageSpanish && lang != envelope.LanguageEnglish {
		lang = toAccount(a).Language
	}
	now := s.now()
	if ok, err := s.mayMail(ctx, a.ID, persistence.AccountEventResetRequested, now); err != nil || !ok {
		return err
	}
	if err := s.Store.RecordAccountEvent(ctx, a.ID, c.event(persistence.AccountEventResetRequested), now); err != nil {
		return err
	}
	return s.mailLink(ctx, a, lang, persistence.AccountLinkReset, CleanNext(next), now)
}

// ResetPassword uses a reset link: the account takes password (CheckPassword), its email counts
// as verified (the link proved it; an unverified account is verified so, with the password of
// whoever holds the mailbox), every session of it ends, its other links stop working, and the lock
// on its password is lifted; the lock on its second factors stays (only time lifts it). It
// returns the account and where the browser goes next. A password CheckPassword refuses leaves
// the link working.
func (s *Service) ResetPassword(ctx context.Context, token, password string, c Client) (Account, string, error) {
	if token == "" || len(token) > 100 {
		return Account{}, "", errLinkNotWorking
	}
	a, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkReset, s.now())
	if envelope.IsNotFound(err) {
		return Account{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, "", err
	}
	if err := CheckPassword(a.Email, password); err != nil {
		return Account{}, "", err
	}
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return Account{}, "", err
	}
	a, next, err := s.Store.ResetSignerPassword(ctx, sha(token), hash, c.event(persistence.AccountEventPasswordReset), s.now())
	if envelope.IsNotFound(err) {
		return Account{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, "", err
	}
	return toAccount(a), next, nil
}
