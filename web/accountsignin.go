package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
)

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
		h.showFormProblem(w, r, v, err, v.T.WrongPassword)
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
		h.showFormProblem(w, r, v, err, v.T.WrongPassword)
		return
	}
	redirectNext(w, r, v, "/account")
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
	redirectNext(w, r, v, "/account/signin")
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
		h.showFormProblem(w, r, v, err, v.T.WrongPassword)
		return
	}
	v.Back, v.BackText = v.URL("/account/signin", "email", v.Email), v.T.SignIn
	h.accountMessage(w, r, v, http.StatusOK, v.T.ResetSentHeading, v.T.ResetSentHelp)
}

func (h *Handler) newPasswordForm(w http.ResponseWriter, r *http.Request) {
	v, ok := h.newPasswordRequest(w, r)
	if !ok {
		return
	}
	h.renderAccount(w, r, http.StatusOK, v)
}

// newPasswordRequest reads the request of the new-password form (accountRequest) and the reset
// link's token it came through; without one the browser is told the link failed, and ok is false.
func (h *Handler) newPasswordRequest(w http.ResponseWriter, r *http.Request) (*accountView, bool) {
	v, ok := h.accountRequest(w, r)
	if !ok {
		return v, false
	}
	if v.Token = linkToken(r); v.Token == "" {
		h.resetLinkFailed(w, r, v)
		return v, false
	}
	v.State, v.Heading = "newpassword", v.T.NewPasswordHeading
	return v, true
}

func (h *Handler) resetLinkFailed(w http.ResponseWriter, r *http.Request, v *accountView) {
	v.Back, v.BackText = v.URL("/account/reset"), v.T.AskNewLink
	h.accountMessage(w, r, v, http.StatusNotFound, v.T.ResetFailedHeading, v.T.ResetFailed)
}

func (h *Handler) resetPassword(w http.ResponseWriter, r *http.Request) {
	v, ok := h.newPasswordRequest(w, r)
	if !ok {
		return
	}
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
		h.showFormProblem(w, r, v, err, v.T.WrongPassword)
		return
	}
	if n := safeNext(next); n != "" {
		v.Next = n
	}
	http.Redirect(w, r, v.URL("/account/signin", "email", a.Email, "reset", "1"), http.StatusSeeOther)
}
