package account

import (
	"context"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// SignUp creates an account for email with password (CheckPassword), unverified, and mails a
// verification link (VerifyLinkTTL, single use) that leads, once used, to next (a path on
// Sobre: a signing page). An address that has a verified account already gets a mail saying so
// and nothing else changes; the answer is the same either way, so that nobody learns which
// addresses have accounts. An unverified account of the address takes the new password, and
// only the newest link works. An address sent MailsPerHour sign-up mails in the last hour is
// answered the same, and nothing changes or is mailed; reset mails are counted apart, so that
// sign-ups never keep the owner of the mailbox from a reset (RequestReset), which verifies an
// unverified account with the owner's password. The notice that the address has an account
// already carries no next: who signed up chose it, not the account's holder.
func (s *Service) SignUp(ctx context.Context, email, password string, lang envelope.Language, next string, c Client) error {
	var p envelope.Problems
	if !envelope.ValidEmail(email) {
		p.Add("email", "must be one email address")
	}
	checkPassword(&p, "password", email, password)
	if err := p.Err(); err != nil {
		return err
	}
	if s.Mail == nil {
		return errNoMail
	}
	if lang != envelope.LanguageSpanish {
		lang = envelope.LanguageEnglish
	}
	next = CleanNext(next)
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	// An address mailed too often already changes nothing: its earlier links stay those of the
	// password they were mailed for.
	switch existing, err := s.Store.SignerAccountByEmail(ctx, email); {
	case err == nil:
		if ok, err := s.mayMail(ctx, existing.ID, persistence.AccountEventSignUp, now); err != nil || !ok {
			return err
		}
	case !envelope.IsNotFound(err):
		return err
	}
	a, created, err := s.Store.UpsertSignerAccount(ctx, email, hash, string(lang), now)
	if err != nil {
		return err
	}
	ev := c.event(persistence.AccountEventSignUp)
	ev.Data = map[string]any{"created": created, "verified": a.EmailVerifiedAt != nil}
	if err := s.Store.RecordAccountEvent(ctx, a.ID, ev, now); err != nil {
		return err
	}
	if a.EmailVerifiedAt != nil {
		return s.mailAccountExists(ctx, a, lang)
	}
	return s.mailLink(ctx, a, lang, persistence.AccountLinkVerify, next, now)
}

// mayMail reports whether account id's address may be sent another mail of the kind that event
// records now (persistence.AccountEventSignUp: a sign-up mail; AccountEventResetRequested: a
// reset mail): at most MailsPerHour of each kind. A refusal is logged, and answered like a mail
// sent.
func (s *Service) mayMail(ctx context.Context, id int64, event string, now time.Time) (bool, error) {
	n, err := s.Store.CountAccountEvents(ctx, id, []string{event}, now.Add(-time.Hour))
	if err != nil {
		return false, err
	}
	if n >= MailsPerHour {
		s.log().WarnContext(ctx, "account mail not sent: too many in the last hour", "account", id, "kind", event)
		return false, nil
	}
	return true, nil
}

// LinkEmail is the address of the account whose mailed verification link token is, while the
// link works; it changes nothing and does not use the link, so that the page a link opens (or a
// mail scanner's GET of it) only shows which address it is for. A used, expired or unknown link
// is CodeNotFound.
func (s *Service) LinkEmail(ctx context.Context, token string) (string, error) {
	if token == "" || len(token) > 100 {
		return "", errLinkNotWorking
	}
	a, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkVerify, s.now())
	if envelope.IsNotFound(err) {
		return "", errLinkNotWorking
	}
	if err != nil {
		return "", err
	}
	return a.Email, nil
}

// VerifyEmail uses a mailed verification link together with the account's password: only
// someone who holds both the mailbox and the password chosen at sign-up proves the address, so
// that whoever signs up first for someone else's address gains nothing when the owner (or a mail
// scanner) opens the link. When the password is right, the email is verified, the link is spent
// and the browser is signed in (a new session, as SignIn makes); it returns the account, the
// session and where the browser goes next (the link's next). A wrong password is counted like a
// wrong sign-in (CodeAuthFailed, or CodeAccountLocked) and leaves the link working. A used,
// expired or unknown link, or one whose account took another password (a later sign-up)
// meanwhile, is CodeNotFound.
func (s *Service) VerifyEmail(ctx context.Context, w http.ResponseWriter, r *http.Request, token, password string, c Client) (Account, Session, string, error) {
	if token == "" || len(token) > 100 {
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if password == "" || utf8.RuneCountInString(password) > MaxPasswordLength {
		var p envelope.Problems
		p.Add("password", "is required, at most %d characters", MaxPasswordLength)
		return Account{}, Session{}, "", p.Err()
	}
	stored, err := s.Store.AccountOfLink(ctx, sha(token), persistence.AccountLinkVerify, s.now())
	if envelope.IsNotFound(err) {
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, Session{}, "", err
	}
	ev := c.event(persistence.AccountEventSignInFailed)
	ev.Data = map[string]any{"link": persistence.AccountLinkVerify}
	hash, err := s.checkPassword(ctx, stored, password, ev, errPasswordWrong)
	if err != nil {
		return Account{}, Session{}, "", err
	}
	a, next, err := s.Store.VerifySignerEmail(ctx, sha(token), hash, c.event(persistence.AccountEventEmailVerified), s.now())
	if envelope.IsNotFound(err) {
		if err := s.succeeded(ctx, stored.ID, passwordFailures); err != nil {
			return Account{}, Session{}, "", err
		}
		return Account{}, Session{}, "", errLinkNotWorking
	}
	if err != nil {
		return Account{}, Session{}, "", err
	}
	sess, err := s.startSession(ctx, w, r, a, c)
	if err != nil {
		return Account{}, Session{}, "", err
	}
	return toAccount(a), sess, next, nil
}
