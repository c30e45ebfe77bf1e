package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
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
	formErr := parseTextForm(r)
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

// showFormProblem answers a form's refusal err: the form again, with formProblem's message and
// status (wrong, the message of a wrong answer), or the failure page for anything else.
func (h *Handler) showFormProblem(w http.ResponseWriter, r *http.Request, v *accountView, err error, wrong string) {
	status, ok := formProblem(w, v, err, wrong)
	if !ok {
		h.accountFailure(w, r, v, err)
		return
	}
	h.renderAccount(w, r, status, v)
}

// redirectNext sends the browser on to where it was going (v.Next), or to the account page at
// path when it was going nowhere.
func redirectNext(w http.ResponseWriter, r *http.Request, v *accountView, path string) {
	next := v.Next
	if next == "" {
		next = v.URL(path)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
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
		v.Message = fmt.Sprintf(t.TooManyAttempts, max(de.RetryAfterSeconds(), 1))
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

// signedInRequest reads a signed-in account page's request (accountRequest) and the account
// this browser is signed in to (signedIn); ok is false when either has already been answered.
func (h *Handler) signedInRequest(w http.ResponseWriter, r *http.Request) (*accountView, account.Account, account.Session, bool) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return v, account.Account{}, account.Session{}, false
	}
	a, sess, ok := h.signedIn(w, r, v)
	return v, a, sess, ok
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
