package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// signingDigest answers GET /api/v2/signing/{token}/fea: the FAO_HASH digest the recipient signs
// (docs/fao-hash.md says how to recompute it) and whether a signature over it was verified.
func (s *Server) signingDigest(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !st.FAOHash() {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "This recipient signs without FAO_HASH"))
		return
	}
	if s.ceremony.FEA == nil {
		s.writeError(w, r, envelope.Errorf(envelope.CodeAuthUnavailable, "Advanced electronic signatures are not configured on this server"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"envelopeId": e.ID, "recipientId": rec.ID, "algorithm": "SHA-256",
		"digest": st.Digest, "verified": st.FEA != nil && st.FEA.Digest == st.Digest})
}

// signingFEA answers POST /api/v2/signing/{token}/fea {signature}: a detached CMS signature
// (base64 of DER, or PEM) over the recipient's FAO_HASH digest, verified and kept.
func (s *Server) signingFEA(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		Signature *string `json:"signature"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	bad := func(msg string) error {
		return envelope.Invalid("signature", "%s", msg)
	}
	if in.Signature == nil || *in.Signature == "" {
		s.writeError(w, r, bad("is required"))
		return
	}
	cms, err := ceremony.DecodeSignature([]byte(*in.Signature))
	if err != nil {
		s.writeError(w, r, bad(err.Error()))
		return
	}
	if err := envelope.RequirePending(e.Status); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !st.FAOHash() {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "This recipient signs without FAO_HASH"))
		return
	}
	h, err := s.ceremony.SubmitFEA(r.Context(), st, e, rec, cms, envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified": true, "rut": h.RUT, "subject": h.Subject, "issuer": h.Issuer,
		"revocation": h.Revocation.String()})
}
