package api

import (
	"encoding/json"
	"net/http"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// The account proofs of the signing API (docs/signer-accounts.md): a signer signed in to the
// account of the recipient's email proves PASSWORD, TWO_FACTOR_AUTH or PASSKEY just before
// completing. Each proof is kept with the caller's signing session (its cookie); complete
// checks it again.

// accountProofOf resolves the link and the caller's ceremony for an account proof, refusing
// when the envelope is not PENDING or the server keeps no accounts.
func (s *Server) accountProofOf(w http.ResponseWriter, r *http.Request) (envelope.Recipient, *ceremonyState, bool) {
	rec, e, st, err := s.ceremonyOf(r)
	if err == nil {
		err = envelope.RequirePending(e.Status)
	}
	if err == nil && s.ceremony.Accounts == nil {
		err = envelope.Errorf(envelope.CodeAuthUnavailable, "Signer accounts are not available on this server")
	}
	if err != nil {
		s.writeError(w, r, err)
		return rec, nil, false
	}
	return rec, &ceremonyState{Status: st, client: account.Client{IP: s.clientIP(r), UserAgent: r.UserAgent()},
		actor: envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent())}, true
}

// signingPassword answers POST /api/v2/signing/{token}/auth/password {password}.
func (s *Server) signingPassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password *string `json:"password"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.Password == nil || *in.Password == "" {
		s.writeError(w, r, oneIssue("password", "is required"))
		return
	}
	rec, c, ok := s.accountProofOf(w, r)
	if !ok {
		return
	}
	if err := s.ceremony.ProvePassword(r.Context(), c.Status, rec, *in.Password, c.client, c.actor); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified": true, "method": envelope.ActionAuthPassword})
}

// signingTOTP answers POST /api/v2/signing/{token}/auth/totp {code}: a code of the account's
// authenticator app, or one of its recovery codes.
func (s *Server) signingTOTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code *string `json:"code"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.Code == nil || *in.Code == "" || len(*in.Code) > 64 {
		s.writeError(w, r, oneIssue("code", "is a code of your authenticator app, or a recovery code"))
		return
	}
	rec, c, ok := s.accountProofOf(w, r)
	if !ok {
		return
	}
	if err := s.ceremony.ProveTOTP(r.Context(), c.Status, rec, *in.Code, c.client, c.actor); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified": true, "method": envelope.ActionAuthTwoFactorAuth})
}

// signingPasskeyOptions answers POST /api/v2/signing/{token}/auth/passkey/options: the options
// for navigator.credentials.get.
func (s *Server) signingPasskeyOptions(w http.ResponseWriter, r *http.Request) {
	_, c, ok := s.accountProofOf(w, r)
	if !ok {
		return
	}
	options, err := s.ceremony.PasskeyOptions(r.Context(), c.Status)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(options)
}

// signingPasskey answers POST /api/v2/signing/{token}/auth/passkey {credential}: the assertion
// navigator.credentials.get gave, as JSON.
func (s *Server) signingPasskey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Credential json.RawMessage `json:"credential"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(in.Credential) == 0 || in.Credential[0] != '{' {
		s.writeError(w, r, oneIssue("credential", "is the PublicKeyCredential the browser gave, as a JSON object"))
		return
	}
	rec, c, ok := s.accountProofOf(w, r)
	if !ok {
		return
	}
	id, err := s.ceremony.ProvePasskey(r.Context(), c.Status, rec, in.Credential, c.client, c.actor)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified": true, "method": envelope.ActionAuthPasskey, "credentialId": id})
}

// ceremonyState is the caller's ceremony and who it is, for an account proof.
type ceremonyState struct {
	ceremony.Status
	client account.Client
	actor  envelope.Actor
}

// oneIssue is the 400 of one bad member of a body.
func oneIssue(path, msg string) error {
	var p envelope.Problems
	p.Add(path, "%s", msg)
	return p.Err()
}
