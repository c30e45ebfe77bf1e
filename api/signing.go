package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/workflows"
)

// The recipient signing API: what a signing page calls, authenticated by the recipient's token
// (no API key). Lifecycle events (complete, reject) go through the envelope's workflow, which
// checks the turn; field values are written straight to PostgreSQL under the envelope's lock.

func (s *Server) signingRoutes(r chi.Router) {
	r.Use(noStore)
	r.Get("/", s.signingView)
	r.Get("/items/{itemId}", s.signingItem)
	r.Post("/fields", s.signingField)
	r.Post("/complete", s.signingComplete)
	r.Post("/reject", s.signingReject)
	r.Get("/fea", s.signingDigest)
	r.Post("/fea", s.signingFEA)
	r.Post("/auth/password", s.signingPassword)
	r.Post("/auth/totp", s.signingTOTP)
	r.Post("/auth/passkey/options", s.signingPasskeyOptions)
	r.Post("/auth/passkey", s.signingPasskey)
}

// noStore keeps signing answers out of caches and referrers.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// recipientOf resolves the URL token to its recipient; a DRAFT envelope has no signing page.
func (s *Server) recipientOf(r *http.Request) (envelope.Recipient, *envelope.Envelope, error) {
	token := chi.URLParam(r, "token")
	if len(token) < 16 || len(token) > 128 {
		return envelope.Recipient{}, nil, envelope.NotFound("Signing link")
	}
	rec, err := s.store.RecipientByToken(r.Context(), token)
	if err != nil {
		if replaced, lerr := s.store.LinkReplaced(r.Context(), token); lerr == nil && replaced {
			return rec, nil, envelope.Errorf(envelope.CodeLinkReplaced, "This signing link was replaced by a newer one; use the link in the latest email")
		}
		return rec, nil, envelope.NotFound("Signing link")
	}
	e, err := s.store.EnvelopeForRecipient(r.Context(), rec.EnvelopeID)
	if err != nil {
		return rec, nil, err
	}
	if !e.SigningLinksOpen() {
		return rec, nil, envelope.NotFound("Signing link")
	}
	return rec, e, nil
}

type signingItemView struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Order int    `json:"order"`
	URL   string `json:"url"`
}

type signingView struct {
	Envelope struct {
		ID           string            `json:"id"`
		Title        string            `json:"title"`
		Status       envelope.Status   `json:"status"`
		DocumentMeta envelope.Meta     `json:"documentMeta"`
		Items        []signingItemView `json:"envelopeItems"`
		OwnerName    string            `json:"ownerName"`
	} `json:"envelope"`
	Recipient recipientView `json:"recipient"`
	Fields    []fieldView   `json:"fields"`
	// MayActNow: the recipient may sign, approve or view now. Waiting names why not.
	MayActNow bool   `json:"mayActNow"`
	Waiting   string `json:"waiting,omitempty"`
	Expired   bool   `json:"expired"`
	// Auth is what the recipient must prove: its own lists, else the envelope's.
	Auth envelope.RecipientAuthOptions `json:"auth"`
	// Verification is what this caller (its ceremony cookie) has proved so far.
	Verification verificationView `json:"verification"`
	// ReadableUntil, once the link ended (the envelope finished, or the recipient's deadline
	// passed), is when it stops showing the document, its pages and the field values; after it
	// envelopeItems and fields are empty. Null while the link is open.
	ReadableUntil *time.Time `json:"readableUntil"`
}

// derivedAuth is the recipient's authentication in force (envelope.RecipientAuth), with empty
// lists rather than null.
func derivedAuth(e *envelope.Envelope, r envelope.Recipient) envelope.RecipientAuthOptions {
	in := envelope.RecipientAuth(r.AuthOptions, e.AuthOptions)
	out := envelope.RecipientAuthOptions{AccessAuth: in.Access, ActionAuth: in.Action}
	if out.AccessAuth == nil {
		out.AccessAuth = []envelope.AccessAuth{}
	}
	if out.ActionAuth == nil {
		out.ActionAuth = []envelope.ActionAuth{}
	}
	return out
}

// signingView answers GET /api/v2/signing/{token}: the recipient's view of the envelope. The
// first call marks the recipient OPENED.
func (s *Server) signingView(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rec.Role != envelope.RoleCC {
		if err := s.store.MarkOpened(r.Context(), rec, st.SessionID(), envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent())); err != nil {
			s.writeError(w, r, err)
			return
		}
		if rec, e, err = s.recipientOf(r); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	var v signingView
	v.Envelope.ID, v.Envelope.Title, v.Envelope.Status, v.Envelope.DocumentMeta = e.ID, e.Title, e.Status, e.Meta
	v.Envelope.OwnerName = e.User.Name
	now := time.Now()
	shows, until := envelope.LinkShowsDocument(e, rec, now, s.cfg.LinkRead())
	if !until.IsZero() {
		v.ReadableUntil = &until
	}
	v.Envelope.Items = []signingItemView{}
	v.Fields = []fieldView{}
	if shows {
		for _, it := range e.Items {
			v.Envelope.Items = append(v.Envelope.Items, signingItemView{ID: it.ID, Title: it.Title, Order: it.Order,
				URL: "/api/v2/signing/" + rec.Token + "/items/" + it.ID})
		}
		for _, f := range e.Fields {
			if f.RecipientID == rec.ID {
				v.Fields = append(v.Fields, newFieldView(f))
			}
		}
	}
	v.Recipient = newRecipientView(rec)
	// Whoever holds the link is not told whose RUN may sign: it would hand a forwarded link's
	// holder the intended signer's RUN.
	v.Recipient.ExpectedRut = nil
	v.Auth = derivedAuth(e, rec)
	v.Verification = newVerificationView(st, s.ceremony.Unavailable(st.Requirements))
	v.Expired = rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) && rec.SigningStatus == envelope.SigningStatusNotSigned
	if e.Status == envelope.StatusPending {
		if err := envelope.Turn(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, now); err != nil {
			v.Waiting = string(envelope.ErrorCode(err))
		} else {
			v.MayActNow = true
		}
	}
	writeJSON(w, http.StatusOK, v)
}

// signingItem answers GET /api/v2/signing/{token}/items/{itemId}: the PDF, while the link shows
// it (410 SIGNING_LINK_ENDED once it ended more than SOBRE_LINK_READ_DAYS ago).
func (s *Server) signingItem(w http.ResponseWriter, r *http.Request) {
	rec, e, _, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if shows, _ := envelope.LinkShowsDocument(e, rec, time.Now(), s.cfg.LinkRead()); !shows {
		s.writeError(w, r, envelope.ErrLinkEnded())
		return
	}
	doc, err := s.store.ItemFile(r.Context(), rec.EnvelopeID, chi.URLParam(r, "itemId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeFile(w, "application/pdf", "inline", pdfName(doc.Title, ".pdf"), doc.Data)
}

// signingField answers POST /api/v2/signing/{token}/fields {fieldId, value}: a value for one of
// the recipient's fields, or null to clear it.
func (s *Server) signingField(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		FieldID *int64          `json:"fieldId"`
		Value   json.RawMessage `json:"value"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.FieldID == nil {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: "fieldId", Message: "is required"}}})
		return
	}
	var field *envelope.Field
	for i := range e.Fields {
		if e.Fields[i].ID == *in.FieldID && e.Fields[i].RecipientID == rec.ID {
			field = &e.Fields[i]
		}
	}
	if field == nil {
		s.writeError(w, r, envelope.NotFound("Field"))
		return
	}
	if field.Type == envelope.FieldRUTFirmado {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeRUTFirmadoTyped, Message: "A RUT_FIRMADO field is filled with the RUN that ClaveÚnica verifies when you complete; it cannot be typed or cleared",
			Issues: []envelope.Issue{{Path: "value", Message: "RUT_FIRMADO fields are filled from the signer's verified identity"}}})
		return
	}
	var value *persistence.FieldValue
	if len(in.Value) > 0 && string(in.Value) != "null" {
		text, sig, err := envelope.ParseFieldValue(*field, e.Meta, in.Value)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		value = &persistence.FieldValue{CustomText: text}
		if sig != nil {
			if sig.PNG != nil {
				value.PNG = sig.PNG
			} else {
				typed := sig.Typed
				value.Typed = &typed
			}
		}
	}
	f, err := s.store.InsertFieldValue(r.Context(), rec, field.ID, value, st.SessionID(), envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newFieldView(f))
}

// signingComplete answers POST /api/v2/signing/{token}/complete {nextSigner?}: the recipient
// signs, approves or marks viewed, if it is their turn.
func (s *Server) signingComplete(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		NextSigner *envelope.NextSigner `json:"nextSigner"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &in); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	if in.NextSigner != nil {
		var p envelope.Problems
		if !envelope.ValidEmail(in.NextSigner.Email) {
			p.Add("nextSigner.email", "must be an email address")
		}
		envelope.CheckLength(&p, "nextSigner.name", in.NextSigner.Name, 0, envelope.MaxRecipientName)
		if err := p.Err(); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	if err := envelope.RequirePending(e.Status); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := st.CheckAction(rec.Role); err != nil {
		s.writeError(w, r, err)
		return
	}
	req := workflows.CompleteRequest{RecipientID: rec.ID, NextSigner: in.NextSigner, Actor: envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent()),
		SessionID: st.SessionID(), LinkVersion: &rec.LinkVersion}
	if err := s.flows.Complete(r.Context(), e.ID, req); err != nil {
		s.writeError(w, r, err)
		return
	}
	after, err := s.store.EnvelopeForRecipient(r.Context(), e.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "status": after.Status, "redirectUrl": e.Meta.RedirectURL})
}

// signingReject answers POST /api/v2/signing/{token}/reject {reason}.
func (s *Server) signingReject(w http.ResponseWriter, r *http.Request) {
	rec, e, _, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		Reason *string `json:"reason"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	if in.Reason == nil {
		p.Add("reason", "is required")
	} else {
		envelope.CheckLength(&p, "reason", *in.Reason, 1, envelope.MaxReason)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := envelope.RequirePending(e.Status); err != nil {
		s.writeError(w, r, err)
		return
	}
	req := workflows.RejectRequest{RecipientID: rec.ID, Reason: *in.Reason, Actor: envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent()),
		LinkVersion: &rec.LinkVersion}
	if err := s.flows.Reject(r.Context(), e.ID, req); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "status": envelope.StatusRejected})
}

// ceremonyOf resolves the token like recipientOf and reads what the caller's ceremony cookie has
// proved; a recipient who must enter a mailed code first gets 401 until it has.
func (s *Server) ceremonyOf(r *http.Request) (envelope.Recipient, *envelope.Envelope, ceremony.Status, error) {
	rec, e, err := s.recipientOf(r)
	if err != nil {
		return rec, e, ceremony.Status{}, err
	}
	st, err := s.ceremony.StatusOf(r.Context(), r, e, rec)
	if err != nil {
		return rec, e, st, err
	}
	if err := st.CheckAccess(); err != nil {
		return rec, e, st, err
	}
	return rec, e, st, nil
}

// verificationView is what the caller has proved and what it still must.
type verificationView struct {
	AccessCodeRequired bool     `json:"accessCodeRequired"`
	AccessVerified     bool     `json:"accessVerified"`
	ClaveUnicaRequired bool     `json:"claveUnicaRequired"`
	ClaveUnicaRUN      *string  `json:"claveUnicaRun"`
	ClaveUnicaName     *string  `json:"claveUnicaName"`
	FAOHashRequired    bool     `json:"faoHashRequired"`
	FAOHashVerified    bool     `json:"faoHashVerified"`
	Digest             *string  `json:"digest"`
	Unavailable        []string `json:"unavailable"`
	// AccountRequired: ACCOUNT access; ActionMethods: the methods any one of which completes.
	AccountRequired bool                  `json:"accountRequired"`
	ActionMethods   []envelope.ActionAuth `json:"actionMethods"`
	// Account is the signer account this browser is signed in to, AccountMatches whether it
	// is the recipient's, AccountProofs which account proofs it gave here in the last minutes.
	Account        *accountView      `json:"account"`
	AccountMatches bool              `json:"accountMatches"`
	AccountProofs  accountProofsView `json:"accountProofs"`
}

type accountView struct {
	Email         string `json:"email"`
	EmailVerified bool   `json:"emailVerified"`
	TOTPEnabled   bool   `json:"totpEnabled"`
}

type accountProofsView struct {
	Password bool `json:"password"`
	TOTP     bool `json:"totp"`
	Passkey  bool `json:"passkey"`
}

func newVerificationView(st ceremony.Status, unavailable []string) verificationView {
	v := verificationView{AccessCodeRequired: st.AccessCode, AccessVerified: st.AccessVerified, ClaveUnicaRequired: st.ClaveUnica(),
		FAOHashRequired: st.FAOHash(), Unavailable: unavailable, AccountRequired: st.AccessAccount, ActionMethods: st.Action,
		AccountMatches: st.AccountMatches}
	if v.Unavailable == nil {
		v.Unavailable = []string{}
	}
	if v.ActionMethods == nil {
		v.ActionMethods = []envelope.ActionAuth{}
	}
	if st.ClaveUnicaRUN != "" {
		v.ClaveUnicaRUN, v.ClaveUnicaName = &st.ClaveUnicaRUN, &st.ClaveUnicaName
	}
	if st.Digest != "" {
		v.Digest = &st.Digest
	}
	v.FAOHashVerified = st.FEA != nil && st.FEA.Digest == st.Digest
	if st.Account != nil {
		v.Account = &accountView{Email: st.Account.Email, EmailVerified: st.Account.EmailVerified, TOTPEnabled: st.Account.TOTPEnabled}
	}
	now := time.Now()
	fresh := func(at *time.Time) bool { return envelope.Fresh(at, now, envelope.AccountProofMaxAge) }
	v.AccountProofs = accountProofsView{Password: fresh(st.PasswordAt), TOTP: fresh(st.TOTPAt), Passkey: fresh(st.PasskeyAt)}
	return v
}

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
		return &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: "signature", Message: msg}}}
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
