package account

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// cookieName is the session cookie's name for this service's PublicURL.
func (s *Service) cookieName() string {
	if config.ServedOverHTTPS(s.PublicURL) {
		return SecureCookieName
	}
	return CookieName
}

// SignIn checks email and password and, when they are right and the email verified, signs the
// browser in: a new session whose secret is set as an HttpOnly, SameSite=Lax cookie (__Host- and
// Secure under HTTPS). A wrong email or password is CodeAuthFailed (counted against an existing
// account), an unverified email CodeEmailUnverified, a locked account CodeAccountLocked. An
// address without an account costs the same password hashing as one with. A session the browser
// held already ends.
func (s *Service) SignIn(ctx context.Context, w http.ResponseWriter, r *http.Request, email, password string, c Client) (Account, Session, error) {
	email = strings.TrimSpace(email)
	var p envelope.Problems
	if email == "" {
		p.Add("email", "is required")
	}
	if password == "" {
		p.Add("password", "is required")
	} else if utf8.RuneCountInString(password) > MaxPasswordLength {
		p.Add("password", "must be at most %d characters long", MaxPasswordLength)
	}
	if err := p.Err(); err != nil {
		return Account{}, Session{}, err
	}
	a, err := s.Store.SignerAccountByEmail(ctx, email)
	if envelope.IsNotFound(err) {
		spendVerification(ctx, password)
		return Account{}, Session{}, errSignInFailed
	}
	if err != nil {
		return Account{}, Session{}, err
	}
	if _, err := s.checkPassword(ctx, a, password, c.event(persistence.AccountEventSignInFailed), errSignInFailed); err != nil {
		return Account{}, Session{}, err
	}
	if a.EmailVerifiedAt == nil {
		if err := s.succeeded(ctx, a.ID, passwordFailures); err != nil {
			return Account{}, Session{}, err
		}
		return Account{}, Session{}, errEmailUnproved
	}
	sess, err := s.startSession(ctx, w, r, a, c)
	if err != nil {
		return Account{}, Session{}, err
	}
	return toAccount(a), sess, nil
}

// startSession signs the browser of r in to account a, its password just proved: a new session
// whose secret is set as the cookie, the account's count of wrong passwords cleared. A session
// the browser held already (perhaps of another account) ends: one browser, one session.
func (s *Service) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request, a persistence.SignerAccount, c Client) (Session, error) {
	if prev := s.sessionSecret(r); prev != "" {
		if _, err := s.Store.EndAccountSession(ctx, sha(prev), c.event(persistence.AccountEventSignOut), s.now()); err != nil {
			return Session{}, err
		}
	}
	secret, err := randomSecret(32)
	if err != nil {
		return Session{}, err
	}
	sess, err := s.Store.StartAccountSession(ctx, sha(secret), a.ID, "PASSWORD", c.event(persistence.AccountEventSignIn), s.now())
	if err != nil {
		return Session{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: secret, Path: "/", HttpOnly: true,
		Secure: config.ServedOverHTTPS(s.PublicURL), SameSite: http.SameSiteLaxMode})
	return toSession(sess), nil
}

// sessionSecret is the session cookie's value in r, "" without one.
func (s *Service) sessionSecret(r *http.Request) string {
	ck, err := r.Cookie(s.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return ""
	}
	return ck.Value
}

// Current is the account this browser is signed in to, if any; a use keeps the session alive
// (SessionIdleTTL from now).
func (s *Service) Current(ctx context.Context, r *http.Request) (Account, Session, bool) {
	secret := s.sessionSecret(r)
	if secret == "" {
		return Account{}, Session{}, false
	}
	now := s.now()
	sess, a, err := s.Store.LiveAccountSession(ctx, sha(secret), now)
	if err != nil {
		if !envelope.IsNotFound(err) {
			s.log().WarnContext(ctx, "read an account session", "err", err)
		}
		return Account{}, Session{}, false
	}
	if now.Sub(sess.LastSeenAt) >= time.Minute {
		if err := s.Store.TouchAccountSession(ctx, sha(secret), now); err != nil {
			s.log().WarnContext(ctx, "touch an account session", "err", err)
		} else {
			sess.LastSeenAt = now
		}
	}
	return toAccount(a), toSession(sess), true
}

// SessionLive reports whether the session with public id is signed in now, and to which account.
func (s *Service) SessionLive(ctx context.Context, id string) (Account, bool, error) {
	if id == "" {
		return Account{}, false, nil
	}
	_, a, err := s.Store.LiveAccountSessionByID(ctx, id, s.now())
	if envelope.IsNotFound(err) {
		return Account{}, false, nil
	}
	if err != nil {
		return Account{}, false, err
	}
	return toAccount(a), true, nil
}

// SignOut ends this browser's session and clears its cookie. The SIGN_OUT event names the
// client as ClientOf(r) sees it.
func (s *Service) SignOut(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: config.ServedOverHTTPS(s.PublicURL), SameSite: http.SameSiteLaxMode})
	secret := s.sessionSecret(r)
	if secret == "" {
		return nil
	}
	_, err := s.Store.EndAccountSession(ctx, sha(secret), ClientOf(r).event(persistence.AccountEventSignOut), s.now())
	return err
}
