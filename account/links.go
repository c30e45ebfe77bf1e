package account

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// CleanNext returns next when it is a path on Sobre where an account page may send the browser
// once done: a signing page (/sign/...) or an account page (/account, /account/..., /account?...),
// relative, without scheme, host, backslash or control character. Anything else is "".
func CleanNext(next string) string {
	if next == "" || len(next) > 2048 || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\x00") {
		return ""
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f {
			return ""
		}
	}
	if !strings.HasPrefix(next, "/sign/") && next != "/account" && !strings.HasPrefix(next, "/account/") && !strings.HasPrefix(next, "/account?") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	return next
}

// linkTTL is how long a link of purpose works.
func linkTTL(purpose string) time.Duration {
	if purpose == persistence.AccountLinkReset {
		return ResetLinkTTL
	}
	return VerifyLinkTTL
}

// linkPath is where a link of purpose opens: {PublicURL}/account/{verify|reset}/{token}.
func linkPath(purpose string) string {
	if purpose == persistence.AccountLinkReset {
		return "/account/reset/"
	}
	return "/account/verify/"
}

// mailLink stores a new link of purpose for account a, leading to next, and mails it in lang.
// The token is only ever in the mail: never logged, stored as its SHA-256.
func (s *Service) mailLink(ctx context.Context, a persistence.SignerAccount, lang envelope.Language, purpose, next string, now time.Time) error {
	token, err := randomSecret(32)
	if err != nil {
		return err
	}
	ttl := linkTTL(purpose)
	if err := s.Store.CreateAccountLink(ctx, a.ID, purpose, sha(token), next, now.Add(ttl), now); err != nil {
		return err
	}
	kind := mail.AccountVerify
	if purpose == persistence.AccountLinkReset {
		kind = mail.AccountReset
	}
	composed, err := mail.ComposeAccountLink(lang, kind, mail.AccountLinkData{Email: a.Email, URL: s.PublicURL + linkPath(purpose) + token, Valid: ttl})
	if err != nil {
		return err
	}
	return s.send(ctx, a.ID, a.Email, kind, composed)
}

// mailAccountExists tells the holder of a's address that it has an account already, with the
// links to sign in and to reset the password. They carry no next: whoever signed up chose it, and
// the holder did not.
func (s *Service) mailAccountExists(ctx context.Context, a persistence.SignerAccount, lang envelope.Language) error {
	composed, err := mail.ComposeAccountLink(lang, mail.AccountExists, mail.AccountLinkData{Email: a.Email,
		URL: s.PublicURL + "/account/signin", ResetURL: s.PublicURL + "/account/reset"})
	if err != nil {
		return err
	}
	return s.send(ctx, a.ID, a.Email, mail.AccountExists, composed)
}

// send mails composed, a message of kind about account id, to its address to.
func (s *Service) send(ctx context.Context, id int64, to string, kind mail.AccountMail, composed mail.Composed) error {
	msgID, err := randomSecret(12)
	if err != nil {
		return err
	}
	host := s.MailHost
	if host == "" {
		host = "sobre.localhost"
	}
	msg := mail.Message{ID: strings.ReplaceAll(string(kind), "_", "-") + "." + msgID + "@" + host, To: to, Composed: composed}
	if err := s.Mail.Send(ctx, msg, nil); err != nil {
		return fmt.Errorf("mail %s to account %d: %w", kind, id, err)
	}
	return nil
}
