package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
	"github.com/sobre-sign/sobre/workflows"
)

// The recipient signing API: what a signing page calls, authenticated by the recipient's token
// (no API key). Lifecycle events (complete, reject) go through the envelope's workflow, which
// checks the turn; field values are written straight to PostgreSQL under the envelope's lock.

func (s *Server) signingRoutes(r chi.Router) {
	r.Use(noStore, s.jsonBodies)
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
	if err != nil && envelope.ErrorCode(err) != envelope.CodeNotFound {
		return rec, nil, err // the store failed: the link may well exist
	}
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
// the fields the recipient may fill (envelope.MayFillField: its own, and an assistant's for the
// recipients after it), or null to clear it.
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
		s.writeError(w, r, envelope.Invalid("fieldId", "is required"))
		return
	}
	var field *envelope.Field
	for i := range e.Fields {
		if e.Fields[i].ID == *in.FieldID {
			field = &e.Fields[i]
		}
	}
	if field == nil {
		s.writeError(w, r, envelope.NotFound("Field"))
		return
	}
	if field.RecipientID == rec.ID && field.Type == envelope.FieldRUTFirmado {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeRUTFirmadoTyped, Message: "A RUT_FIRMADO field is filled with the RUN that ClaveÚnica verifies when you complete; it cannot be typed or cleared",
			Issues: []envelope.Issue{{Path: "value", Message: "RUT_FIRMADO fields are filled from the signer's verified identity"}}})
		return
	}
	if field.RecipientID != rec.ID {
		// Another recipient's field: only an assistant's, as the store decides again under its lock.
		if err := envelope.MayFillField(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, field.RecipientID, field.Type, time.Now()); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	value, err := fieldValue(*field, e.Meta, in.Value)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f, err := s.store.InsertFieldValue(r.Context(), rec, field.ID, value, st.SessionID(), envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, view.NewField(f))
}

// fieldValue is the value raw puts in field f (envelope.ParseFieldValue), nil for none (absent
// or null: the field is cleared).
func fieldValue(f envelope.Field, m envelope.Meta, raw json.RawMessage) (*persistence.FieldValue, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	text, sig, err := envelope.ParseFieldValue(f, m, raw)
	if err != nil {
		return nil, err
	}
	value := &persistence.FieldValue{CustomText: text}
	if sig != nil {
		if sig.PNG != nil {
			value.PNG = sig.PNG
		} else {
			typed := sig.Typed
			value.Typed = &typed
		}
	}
	return value, nil
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
