package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// The account pages: a signer's account (sign-up, sign-in, password reset, authenticator app,
// passkeys), which some envelopes ask their recipients to be signed in to and to prove again
// at the moment of signing (docs/signer-accounts.md).

var accountTemplate = template.Must(template.New("account.html").Funcs(template.FuncMap{
	"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"iso":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"dict": func(kv ...any) map[string]any {
		m := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
}).ParseFS(templateFS, "templates/account.html"))

const (
	maxAccountForm = 16 << 10 // a form of the account pages
	maxPasskeyBody = 64 << 10 // a new passkey's credential and name
)

// accountView is what the account template shows. State picks the page: signup, checkemail,
// verify, signin, reset, resetsent, newpassword, account, totpsetup, totpconfirm, recovery or
// message.
type accountView struct {
	T       AccountText
	State   string
	Heading string
	// Lang is the language asked for by a lang query or form value, carried by every link and
	// form of the page; "" when the browser's Accept-Language chose it.
	Lang    envelope.Language
	Next    string // where the browser goes once done (safeNext), carried like Lang
	Email   string
	Message string            // what went wrong with the whole form
	Notice  string            // what went right
	Errors  map[string]string // a form input's name → what is wrong with it
	// ResendURL, with an unverified email, is the sign-up page that mails the link again.
	ResendURL string
	Token     string // a mailed link's token (verification, password reset)
	Help      string // the paragraph of a message page
	Back      string // a message page's way on
	BackText  string

	Overview *account.Overview
	// FactorLocked: the account has a second factor and this session did not prove one within
	// account.FactorProofTTL, so factors are neither added nor removed (but for the app's own
	// turn-off, which takes a code). FactorUntil, once proved, is when the proof lapses.
	FactorLocked  bool
	FactorUntil   string
	TOTPQR        template.URL // the QR code as a data: URL
	TOTPSecret    string       // the secret in groups of four, for typing
	RecoveryCodes []string
	Meta          template.JS // account.js's strings
}

// URL is path with the page's next and lang, and the pairs of extra (name, value, ...).
func (v *accountView) URL(path string, extra ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			q.Set(extra[i], extra[i+1])
		}
	}
	if v.Next != "" {
		q.Set("next", v.Next)
	}
	if v.Lang != "" {
		q.Set("lang", string(v.Lang))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// Err is the problem of form input name, "" when none.
func (v *accountView) Err(name string) string { return v.Errors[name] }

// safeNext keeps raw when it is a path on Sobre that a browser may be sent to once done: a
// signing page (/sign/{token}...) or an account page (/account...), as account.CleanNext rules,
// and without dot segments, which would lead out of those. Anything else, above all an address
// elsewhere ("https://...", "//host", "/\host"), is dropped: "" is returned.
func safeNext(raw string) string {
	next := account.CleanNext(raw)
	if next == "" || len(next) > 1024 || next == "/sign/" || strings.HasPrefix(next, "/sign/?") || strings.HasPrefix(next, "/sign/#") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Opaque != "" {
		return ""
	}
	p := "/" + strings.Trim(u.Path, "/") + "/"
	if strings.Contains(p, "/../") || strings.Contains(p, "/./") {
		return ""
	}
	return next
}

// accountLanguage is the language of an account page: asked, the lang query or form value, when
// it is es or en; else Spanish for a browser whose Accept-Language starts with es; else English.
// explicit reports that asked named it.
func accountLanguage(asked, acceptLanguage string) (lang envelope.Language, explicit bool) {
	switch asked {
	case string(envelope.LanguageSpanish), string(envelope.LanguageEnglish):
		return envelope.Language(asked), true
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(acceptLanguage)), "es") {
		return envelope.LanguageSpanish, false
	}
	return envelope.LanguageEnglish, false
}

// accountRoutes mounts the account pages; every POST from another site is refused.
func (h *Handler) accountRoutes(r chi.Router) {
	origins := http.NewCrossOriginProtection()
	origins.SetDenyHandler(http.HandlerFunc(h.crossSite))
	r.Group(func(r chi.Router) {
		r.Use(h.pageHeaders, origins.Handler)
		r.Get("/account", h.accountPage)
		r.Get("/account/signup", h.signUpForm)
		r.Post("/account/signup", h.signUp)
		r.Get("/account/verify/{token}", h.verifyForm)
		r.Post("/account/verify/{token}", h.verifyEmail)
		r.Get("/account/signin", h.signInForm)
		r.Post("/account/signin", h.signIn)
		r.Post("/account/signout", h.signOut)
		r.Get("/account/reset", h.resetForm)
		r.Post("/account/reset", h.requestReset)
		r.Get("/account/reset/{token}", h.newPasswordForm)
		r.Post("/account/reset/{token}", h.resetPassword)
		r.Post("/account/totp/begin", h.beginTOTP)
		r.Post("/account/totp/confirm", h.confirmTOTP)
		r.Post("/account/totp/disable", h.disableTOTP)
		r.Post("/account/passkeys/options", h.passkeyOptions)
		r.Post("/account/passkeys", h.addPasskey)
		r.Post("/account/passkeys/{id}/delete", h.removePasskey)
		r.Post("/account/factor/confirm", h.confirmFactor)
		r.Post("/account/factor/passkey/options", h.factorPasskeyOptions)
		r.Post("/account/factor/passkey", h.factorPasskey)
	})
}

// accountRequest reads an account page's request: its form (a POST's body at most
// maxAccountForm bytes), language and next. A form that cannot be read is answered 400 and ok
// is false.
func (h *Handler) accountRequest(w http.ResponseWriter, r *http.Request) (v *accountView, ok bool) {
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxAccountForm)
	}
	formErr := r.ParseForm()
	lang, explicit := accountLanguage(r.Form.Get("lang"), r.Header.Get("Accept-Language"))
	v = &accountView{T: accountTextFor(lang), Next: safeNext(r.Form.Get("next"))}
	if explicit {
		v.Lang = lang
	}
	if formErr != nil {
		h.accountMessage(w, r, v, http.StatusBadRequest, v.T.ErrorHeading, v.T.ErrorHelp)
		return v, false
	}
	return v, true
}

func (h *Handler) client(r *http.Request) account.Client {
	c := account.Client{UserAgent: r.UserAgent()}
	if h.ClientIP != nil {
		c.IP = h.ClientIP(r)
	}
	return c
}

// renderAccount writes the account template with v.
func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, status int, v *accountView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := accountTemplate.Execute(w, v); err != nil {
		h.Log.ErrorContext(r.Context(), "render account page", "state", v.State, "err", err)
	}
}

// accountMessage shows a page of one heading and one paragraph.
func (h *Handler) accountMessage(w http.ResponseWriter, r *http.Request, v *accountView, status int, heading, help string) {
	v.State, v.Heading, v.Help = "message", heading, help
	h.renderAccount(w, r, status, v)
}

// accountFailure shows err, which is no answer a form can show: logged, and a plain failure.
func (h *Handler) accountFailure(w http.ResponseWriter, r *http.Request, v *accountView, err error) {
	// The route's pattern, not its path: /account/verify/{token} and /account/reset/{token} hold
	// a mailed link's secret, which must not reach the log.
	route := r.URL.Path
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		route = rc.RoutePattern()
	} else if strings.Count(route, "/") > 2 {
		route = route[:strings.LastIndexByte(route, '/')] + "/…"
	}
	h.Log.ErrorContext(r.Context(), "account page failed", "route", route, "err", err)
	h.accountMessage(w, r, v, http.StatusInternalServerError, v.T.ErrorHeading, v.T.ErrorHelp)
}

// crossSite answers a POST that another site sent (http.CrossOriginProtection).
func (h *Handler) crossSite(w http.ResponseWriter, r *http.Request) {
	lang, _ := accountLanguage(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
	t := accountTextFor(lang)
	h.accountMessage(w, r, &accountView{T: t}, http.StatusForbidden, t.CrossSiteHeading, t.CrossSiteHelp)
}

// formProblem puts err, the answer of the account service to a form, into v: a message for the
// form or its inputs, and returns the status to answer. wrong is the message of a wrong
// password or code. ok is false for an error no form shows (an internal one).
func formProblem(w http.ResponseWriter, v *accountView, err error, wrong string) (status int, ok bool) {
	var de *envelope.Error
	if !errors.As(err, &de) || de.Code == envelope.CodeInternal || de.Code == envelope.CodeUnavailable {
		return http.StatusInternalServerError, false
	}
	t := v.T
	retryAfter(w, err)
	switch de.Code {
	case envelope.CodeAuthFailed:
		v.Message = wrong
	case envelope.CodeAccountLocked:
		wait := de.RetryAfter
		if wait <= 0 {
			wait = account.LockDuration
		}
		v.Message = fmt.Sprintf(t.Locked, int((wait+time.Minute-1)/time.Minute))
	case envelope.CodeEmailUnverified:
		v.Message = t.Unverified
		v.ResendURL = v.URL("/account/signup", "email", v.Email)
	case envelope.CodeTooManyRequests:
		v.Message = fmt.Sprintf(t.TooManyAttempts, waitSeconds(max(de.RetryAfter, time.Second)))
	case envelope.CodeFactorProofNeeded:
		v.Message = t.FactorRequired
	case envelope.CodeInvalidBody, envelope.CodeInvalidRequest:
		if len(de.Issues) == 0 {
			v.Message = de.Message
		}
		for _, is := range de.Issues {
			field, msg := is.Path, is.Message
			switch field {
			case "email":
				msg = t.EmailInvalid
			case "password":
				msg = t.PasswordRule
			case "code", "name":
			default:
				v.Message = msg
				continue
			}
			if v.Errors == nil {
				v.Errors = map[string]string{}
			}
			v.Errors[field] = msg
		}
	default:
		v.Message = de.Message
	}
	return de.Code.HTTPStatus(), true
}

// fieldError records that form input name has problem msg.
func (v *accountView) fieldError(name, msg string) {
	if v.Errors == nil {
		v.Errors = map[string]string{}
	}
	v.Errors[name] = msg
}

// signedIn is the account this browser is signed in to; without one the browser is sent to
// the sign-in page, which brings it back to the account page (with v's next), and ok is false.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request, v *accountView) (account.Account, account.Session, bool) {
	a, sess, ok := h.Accounts.Current(r.Context(), r)
	if !ok {
		back := "/account"
		if v.Next != "" {
			back += "?next=" + url.QueryEscape(v.Next)
		}
		to := &accountView{Lang: v.Lang, Next: back}
		http.Redirect(w, r, to.URL("/account/signin"), http.StatusSeeOther)
	}
	return a, sess, ok
}

func (h *Handler) signUpForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.Email = strings.TrimSpace(r.Form.Get("email"))
	v.State, v.Heading = "signup", v.T.SignUpHeading
	h.renderAccount(w, r, http.StatusOK, v)
}

func (h *Handler) signUp(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.State, v.Heading = "signup", v.T.SignUpHeading
	v.Email = strings.TrimSpace(r.PostForm.Get("email"))
	password, password2 := r.PostForm.Get("password"), r.PostForm.Get("password2")
	switch {
	case v.Email == "":
		v.fieldError("email", v.T.EmailMissing)
	case password == "":
		v.fieldError("password", v.T.PasswordMissing)
	case password != password2:
		v.fieldError("password2", v.T.PasswordsDiffer)
	}
	if len(v.Errors) > 0 {
		h.renderAccount(w, r, http.StatusBadRequest, v)
		return
	}
	if err := h.Accounts.SignUp(r.Context(), v.Email, password, envelope.Language(v.T.Lang), v.Next, h.client(r)); err != nil {
		status, ok := formProblem(w, v, err, v.T.WrongPassword)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		h.renderAccount(w, r, status, v)
		return
	}
	v.State, v.Heading, v.Help = "checkemail", v.T.CheckEmailHeading, fmt.Sprintf(v.T.CheckEmailHelp, v.Email)
	h.renderAccount(w, r, http.StatusOK, v)
}

// linkToken is the token of a mailed link, "" when it cannot be one.
func linkToken(r *http.Request) string {
	token := chi.URLParam(r, "token")
	if len(token) < 16 || len(token) > 128 {
		return ""
	}
	return token
}

// verifyLink reads the mailed verification link of r: its token and the address it is for, into
// v. A link that does not work (used, expired, unknown, or no token at all) is answered with the
// not-found page, and ok is false.
func (h *Handler) verifyLink(w http.ResponseWriter, r *http.Request, v *accountView) (ok bool) {
	v.Token = linkToken(r)
	email, err := h.Accounts.LinkEmail(r.Context(), v.Token)
	if v.Token == "" || envelope.IsNotFound(err) {
		v.Token = ""
		v.Back, v.BackText = v.URL("/account/signin"), v.T.SignIn
		h.accountMessage(w, r, v, http.StatusNotFound, v.T.VerifyFailedHeading, v.T.VerifyFailedHelp)
		return false
	}
	if err != nil {
		h.accountFailure(w, r, v, err)
		return false
	}
	v.State, v.Heading, v.Email = "verify", v.T.VerifyHeading, email
	return true
}

// verifyForm shows the page a mailed verification link opens: the address, and the account's
// password to type. Opening it (as a mail scanner does) changes nothing.
func (h *Handler) verifyForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok || !h.verifyLink(w, r, v) {
		return
	}
	h.renderAccount(w, r, http.StatusOK, v)
}

// verifyEmail takes the password typed on the verification page: when it is the account's, the
// email is verified, the link spent, and the browser signed in and sent to the link's next (else
// the account page).
func (h *Handler) verifyEmail(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok || !h.verifyLink(w, r, v) {
		return
	}
	password := r.PostForm.Get("password")
	if password == "" {
		v.fieldError("password", v.T.PasswordMissing)
		h.renderAccount(w, r, http.StatusBadRequest, v)
		return
	}
	_, _, next, err := h.Accounts.VerifyEmail(r.Context(), w, r, v.Token, password, h.client(r))
	if envelope.IsNotFound(err) {
		v.State, v.Token = "", ""
		v.Back, v.BackText = v.URL("/account/signin"), v.T.SignIn
		h.accountMessage(w, r, v, http.StatusNotFound, v.T.VerifyFailedHeading, v.T.VerifyFailedHelp)
		return
	}
	if err != nil {
		status, ok := formProblem(w, v, err, v.T.VerifyWrongPassword)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		if envelope.ErrorCode(err) == envelope.CodeAuthFailed {
			v.fieldError("password", v.Message)
			v.Message = ""
		}
		h.renderAccount(w, r, status, v)
		return
	}
	to := safeNext(next)
	if to == "" {
		to = v.URL("/account", "done", "verified")
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (h *Handler) signInForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.State, v.Heading = "signin", v.T.SignInHeading
	v.Email = strings.TrimSpace(r.Form.Get("email"))
	if r.Form.Get("reset") == "1" {
		v.Notice = v.T.PasswordChanged
	}
	h.renderAccount(w, r, http.StatusOK, v)
}

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.State, v.Heading = "signin", v.T.SignInHeading
	v.Email = strings.TrimSpace(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	if v.Email == "" {
		v.fieldError("email", v.T.EmailMissing)
	}
	if password == "" {
		v.fieldError("password", v.T.PasswordMissing)
	}
	if len(v.Errors) > 0 {
		h.renderAccount(w, r, http.StatusBadRequest, v)
		return
	}
	if _, _, err := h.Accounts.SignIn(r.Context(), w, r, v.Email, password, h.client(r)); err != nil {
		status, ok := formProblem(w, v, err, v.T.WrongPassword)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		h.renderAccount(w, r, status, v)
		return
	}
	next := v.Next
	if next == "" {
		next = v.URL("/account")
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	if err := h.Accounts.SignOut(r.Context(), w, r); err != nil {
		h.accountFailure(w, r, v, err)
		return
	}
	next := v.Next
	if next == "" {
		next = v.URL("/account/signin")
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Handler) resetForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.State, v.Heading = "reset", v.T.ResetHeading
	v.Email = strings.TrimSpace(r.Form.Get("email"))
	h.renderAccount(w, r, http.StatusOK, v)
}

// requestReset mails a reset link; the answer is the same whether the address has an account
// or not.
func (h *Handler) requestReset(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	v.State, v.Heading = "reset", v.T.ResetHeading
	v.Email = strings.TrimSpace(r.PostForm.Get("email"))
	if v.Email == "" {
		v.fieldError("email", v.T.EmailMissing)
		h.renderAccount(w, r, http.StatusBadRequest, v)
		return
	}
	if err := h.Accounts.RequestReset(r.Context(), v.Email, envelope.Language(v.T.Lang), v.Next, h.client(r)); err != nil {
		status, ok := formProblem(w, v, err, v.T.WrongPassword)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		h.renderAccount(w, r, status, v)
		return
	}
	v.Back, v.BackText = v.URL("/account/signin", "email", v.Email), v.T.SignIn
	h.accountMessage(w, r, v, http.StatusOK, v.T.ResetSentHeading, v.T.ResetSentHelp)
}

func (h *Handler) newPasswordForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	if v.Token = linkToken(r); v.Token == "" {
		h.resetLinkFailed(w, r, v)
		return
	}
	v.State, v.Heading = "newpassword", v.T.NewPasswordHeading
	h.renderAccount(w, r, http.StatusOK, v)
}

func (h *Handler) resetLinkFailed(w http.ResponseWriter, r *http.Request, v *accountView) {
	v.Back, v.BackText = v.URL("/account/reset"), v.T.AskNewLink
	h.accountMessage(w, r, v, http.StatusNotFound, v.T.ResetFailedHeading, v.T.ResetFailed)
}

func (h *Handler) resetPassword(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	if v.Token = linkToken(r); v.Token == "" {
		h.resetLinkFailed(w, r, v)
		return
	}
	v.State, v.Heading = "newpassword", v.T.NewPasswordHeading
	password, password2 := r.PostForm.Get("password"), r.PostForm.Get("password2")
	switch {
	case password == "":
		v.fieldError("password", v.T.PasswordMissing)
	case password != password2:
		v.fieldError("password2", v.T.PasswordsDiffer)
	}
	if len(v.Errors) > 0 {
		h.renderAccount(w, r, http.StatusBadRequest, v)
		return
	}
	a, next, err := h.Accounts.ResetPassword(r.Context(), v.Token, password, h.client(r))
	if envelope.IsNotFound(err) {
		h.resetLinkFailed(w, r, v)
		return
	}
	if err != nil {
		status, ok := formProblem(w, v, err, v.T.WrongPassword)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		h.renderAccount(w, r, status, v)
		return
	}
	if n := safeNext(next); n != "" {
		v.Next = n
	}
	http.Redirect(w, r, v.URL("/account/signin", "email", a.Email, "reset", "1"), http.StatusSeeOther)
}

// accountNotices are the confirmations the account page shows after a change (its done query).
func accountNotice(t AccountText, done string) string {
	switch done {
	case "verified":
		return t.Verified
	case "factor-confirmed":
		return t.FactorConfirmedDone
	case "totp-off":
		return t.AuthenticatorOffDone
	case "passkey-added":
		return t.PasskeyAdded
	case "passkey-removed":
		return t.PasskeyRemoved
	}
	return ""
}

func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	a, sess, ok := h.signedIn(w, r, v)
	if !ok {
		return
	}
	v.Notice = accountNotice(v.T, r.Form.Get("done"))
	h.showAccount(w, r, v, a, sess, http.StatusOK)
}

// showAccount renders the account page of a, seen by session sess, with status.
func (h *Handler) showAccount(w http.ResponseWriter, r *http.Request, v *accountView, a account.Account, sess account.Session, status int) {
	ov, err := h.Accounts.Overview(r.Context(), a)
	if err != nil {
		h.accountFailure(w, r, v, err)
		return
	}
	v.State, v.Heading, v.Overview, v.Email = "account", v.T.AccountHeading, &ov, a.Email
	if h.Accounts.FactorProved(sess) {
		v.FactorUntil = sess.FactorConfirmedAt.Add(account.FactorProofTTL).UTC().Format("15:04 UTC")
	} else {
		v.FactorLocked = ov.Account.TOTPEnabled || len(ov.Passkeys) > 0
	}
	meta, err := json.Marshal(map[string]string{
		"done": v.URL("/account", "done", "passkey-added"), "working": v.T.Working, "error": v.T.ErrorHeading,
		"unsupported": v.T.PasskeysUnsupported, "cancelled": v.T.PasskeyCancelled,
		"factorDone": v.URL("/account", "done", "factor-confirmed"), "factorRequired": v.T.FactorRequired,
		"factorCancelled": v.T.FactorPasskeyCancelled,
	})
	if err != nil {
		h.accountFailure(w, r, v, err)
		return
	}
	v.Meta = template.JS(meta)
	h.renderAccount(w, r, status, v)
}

// groupsOf4 writes s in groups of four characters, for typing.
func groupsOf4(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (h *Handler) beginTOTP(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	a, sess, ok := h.signedIn(w, r, v)
	if !ok {
		return
	}
	enr, err := h.Accounts.BeginTOTP(r.Context(), a, sess)
	if err != nil {
		if status, ok := formProblem(w, v, err, v.T.WrongPassword); ok {
			h.showAccount(w, r, v, a, sess, status)
			return
		}
		h.accountFailure(w, r, v, err)
		return
	}
	v.State, v.Heading = "totpsetup", v.T.TOTPSetupHeading
	v.TOTPQR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(enr.QRCode))
	v.TOTPSecret = groupsOf4(enr.Secret)
	h.renderAccount(w, r, http.StatusOK, v)
}

func (h *Handler) confirmTOTP(w http.ResponseWriter, r *http.Request) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	a, sess, ok := h.signedIn(w, r, v)
	if !ok {
		return
	}
	code := strings.TrimSpace(r.PostForm.Get("code"))
	codes, err := h.Accounts.EnableTOTP(r.Context(), a, sess, code, h.client(r))
	if err != nil {
		status, ok := formProblem(w, v, err, v.T.WrongCode)
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		if envelope.ErrorCode(err) == envelope.CodeFactorProofNeeded {
			h.showAccount(w, r, v, a, sess, status)
			return
		}
		if v.Message != "" && len(v.Errors) == 0 && envelope.ErrorCode(err) != envelope.CodeAccountLocked {
			v.fieldError("code", v.Message)
			v.Message = ""
		}
		v.State, v.Heading = "totpconfirm", v.T.TOTPSetupHeading
		h.renderAccount(w, r, status, v)
		return
	}
	v.State, v.Heading, v.RecoveryCodes = "recovery", v.T.RecoveryHeading, codes
	h.renderAccount(w, r, http.StatusOK, v)
}

// pageAction runs act for a POST of a signed-in account's page, then sends the browser to the
// account page with done (a notice). A refusal the page's forms can show (wrong, the message of
// a wrong answer) is shown on the account page, with shown to move it where it belongs;
// anything else is a failure page.
func (h *Handler) pageAction(w http.ResponseWriter, r *http.Request, wrong func(AccountText) string, done string,
	act func(a account.Account, sess account.Session) error, shown func(v *accountView, err error)) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return
	}
	a, sess, ok := h.signedIn(w, r, v)
	if !ok {
		return
	}
	if err := act(a, sess); err != nil {
		status, ok := formProblem(w, v, err, wrong(v.T))
		if !ok {
			h.accountFailure(w, r, v, err)
			return
		}
		if shown != nil {
			shown(v, err)
		}
		h.showAccount(w, r, v, a, sess, status)
		return
	}
	http.Redirect(w, r, v.URL("/account", "done", done), http.StatusSeeOther)
}

func wrongCode(t AccountText) string     { return t.WrongCode }
func wrongPassword(t AccountText) string { return t.WrongPassword }

func (h *Handler) disableTOTP(w http.ResponseWriter, r *http.Request) {
	h.pageAction(w, r, wrongCode, "totp-off", func(a account.Account, _ account.Session) error {
		return h.Accounts.DisableTOTP(r.Context(), a, strings.TrimSpace(r.PostForm.Get("code")), h.client(r))
	}, nil)
}

func (h *Handler) removePasskey(w http.ResponseWriter, r *http.Request) {
	h.pageAction(w, r, wrongPassword, "passkey-removed", func(a account.Account, sess account.Session) error {
		id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
		if err != nil {
			return envelope.NotFound("Passkey")
		}
		return h.Accounts.RemovePasskey(r.Context(), a, sess, id, h.client(r))
	}, nil)
}

// confirmFactor takes a code of the account's authenticator app, or a recovery code, typed on
// the account page: for account.FactorProofTTL this session may add or remove second factors.
func (h *Handler) confirmFactor(w http.ResponseWriter, r *http.Request) {
	h.pageAction(w, r, wrongCode, "factor-confirmed", func(a account.Account, sess account.Session) error {
		return h.Accounts.ConfirmFactor(r.Context(), a, sess, strings.TrimSpace(r.PostForm.Get("code")), h.client(r))
	}, func(v *accountView, err error) {
		// The problem belongs to this form's input, not to the turn-off form's (also "code").
		if msg := v.Errors["code"]; msg != "" {
			delete(v.Errors, "code")
			v.fieldError("factor-code", msg)
		} else if envelope.ErrorCode(err) == envelope.CodeAuthFailed {
			v.fieldError("factor-code", v.Message)
			v.Message = ""
		}
	})
}

// factorPasskeyOptions answers the options (JSON) of a passkey assertion that confirms a second
// factor on the account page.
func (h *Handler) factorPasskeyOptions(w http.ResponseWriter, r *http.Request) {
	h.writePasskeyOptions(w, r, h.Accounts.BeginFactorPasskey)
}

// writePasskeyOptions answers, for a signed-in account, the WebAuthn options begin makes (JSON).
func (h *Handler) writePasskeyOptions(w http.ResponseWriter, r *http.Request,
	begin func(context.Context, account.Account, account.Session) ([]byte, error)) {
	a, sess, ok := h.jsonSignedIn(w, r)
	if !ok {
		return
	}
	opts, err := begin(r.Context(), a, sess)
	if err != nil {
		h.accountJSONError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(opts)
}

// factorPasskeyBody is the body of POST /account/factor/passkey.
type factorPasskeyBody struct {
	Credential json.RawMessage `json:"credential"`
}

// factorPasskey takes the browser's passkey assertion: for account.FactorProofTTL this session
// may add or remove second factors. A credential that is not a JSON object is refused (400)
// before anything is counted against the account's lock.
func (h *Handler) factorPasskey(w http.ResponseWriter, r *http.Request) {
	a, sess, ok := h.jsonSignedIn(w, r)
	if !ok {
		return
	}
	var body factorPasskeyBody
	if !h.decodeAccountJSON(w, r, &body) {
		return
	}
	if len(body.Credential) == 0 || body.Credential[0] != '{' {
		var p envelope.Problems
		p.Add("credential", "is the PublicKeyCredential the browser gave, as a JSON object")
		h.accountJSONError(w, r, p.Err())
		return
	}
	if err := h.Accounts.ConfirmFactorWithPasskey(r.Context(), a, sess, body.Credential, h.client(r)); err != nil {
		h.accountJSONError(w, r, err)
		return
	}
	writeAccountJSON(w, http.StatusOK, map[string]any{"confirmed": true})
}

// decodeAccountJSON reads one JSON object of at most maxPasskeyBody bytes, without unknown
// members, into dst; a body that is not one is answered 400 (413 when too large) and ok is false.
func (h *Handler) decodeAccountJSON(w http.ResponseWriter, r *http.Request, dst any) (ok bool) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxPasskeyBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) {
			err = envelope.Errorf(envelope.CodeInvalidBody, "Unreadable JSON body: %v", err)
		}
		h.accountJSONError(w, r, err)
		return false
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		h.accountJSONError(w, r, envelope.Errorf(envelope.CodeInvalidBody, "One JSON object expected"))
		return false
	}
	return true
}

// writeAccountJSON answers v as JSON with status.
func writeAccountJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// accountJSONError answers err as the API does: {message, code, issues}; anything but a domain
// error is logged and answered as a plain internal error.
func (h *Handler) accountJSONError(w http.ResponseWriter, r *http.Request, err error) {
	var de *envelope.Error
	if !errors.As(err, &de) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			de = envelope.Errorf(envelope.CodePayloadTooLarge, "Request body larger than %d bytes", tooLarge.Limit)
		} else {
			h.Log.ErrorContext(r.Context(), "account request failed", "path", r.URL.Path, "err", err)
			de = envelope.Errorf(envelope.CodeInternal, "Internal server error")
		}
	}
	retryAfter(w, de)
	writeAccountJSON(w, de.Code.HTTPStatus(), map[string]any{"message": de.Message, "code": de.Code, "issues": de.Issues})
}

// jsonSignedIn is the signed-in account of a JSON request; without one the answer is 401.
func (h *Handler) jsonSignedIn(w http.ResponseWriter, r *http.Request) (account.Account, account.Session, bool) {
	a, sess, ok := h.Accounts.Current(r.Context(), r)
	if !ok {
		h.accountJSONError(w, r, envelope.Errorf(envelope.CodeUnauthorized, "Sign in to your account first"))
	}
	return a, sess, ok
}

func (h *Handler) passkeyOptions(w http.ResponseWriter, r *http.Request) {
	h.writePasskeyOptions(w, r, h.Accounts.BeginPasskeyRegistration)
}

// newPasskey is the body of POST /account/passkeys.
type newPasskey struct {
	Name       string          `json:"name"`
	Credential json.RawMessage `json:"credential"`
}

func (h *Handler) addPasskey(w http.ResponseWriter, r *http.Request) {
	a, sess, ok := h.jsonSignedIn(w, r)
	if !ok {
		return
	}
	var body newPasskey
	if !h.decodeAccountJSON(w, r, &body) {
		return
	}
	var p envelope.Problems
	body.Name = strings.TrimSpace(body.Name)
	if body.Name == "" || len(body.Name) > 100 {
		p.Add("name", "Give the passkey a name of 1 to 100 characters")
	}
	if len(body.Credential) == 0 || string(body.Credential) == "null" {
		p.Add("credential", "The new credential is missing")
	}
	if err := p.Err(); err != nil {
		h.accountJSONError(w, r, err)
		return
	}
	pk, err := h.Accounts.FinishPasskeyRegistration(r.Context(), a, sess, body.Name, body.Credential, h.client(r))
	if err != nil {
		h.accountJSONError(w, r, err)
		return
	}
	writeAccountJSON(w, http.StatusOK, map[string]any{"id": pk.ID, "name": pk.Name, "credentialId": pk.CredentialID, "createdAt": pk.CreatedAt})
}
