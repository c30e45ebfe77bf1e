package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

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
	v, a, sess, ok := h.signedInRequest(w, r)
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
	v, a, sess, ok := h.signedInRequest(w, r)
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
	v, a, sess, ok := h.signedInRequest(w, r)
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
	v, a, sess, ok := h.signedInRequest(w, r)
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

func wrongCode(t AccountText) string { return t.WrongCode }

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
