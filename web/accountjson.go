package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
)

// decodeAccountJSON reads one JSON object of at most maxPasskeyBody bytes, without unknown
// members, into dst; a body that is not one is answered 400 (413 when too large) and ok is false.
func (h *Handler) decodeAccountJSON(w http.ResponseWriter, r *http.Request, dst any) (ok bool) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPasskeyBody))
	if err != nil {
		if !envelope.BodyTooLarge(err) {
			err = envelope.Errorf(envelope.CodeInvalidBody, "Unreadable JSON body: %v", err)
		}
		h.accountJSONError(w, r, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		h.accountJSONError(w, r, envelope.Errorf(envelope.CodeInvalidBody, "Unreadable JSON body: %v", err))
		return false
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		h.accountJSONError(w, r, envelope.Errorf(envelope.CodeInvalidBody, "One JSON object expected"))
		return false
	}
	if err := envelope.CheckNoNUL(raw); err != nil {
		h.accountJSONError(w, r, err)
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
	de, internal := envelope.Shown(err)
	if internal {
		h.Log.ErrorContext(r.Context(), "account request failed", "path", r.URL.Path, "err", err)
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
