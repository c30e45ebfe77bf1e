package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
)

// findAttachments answers GET /envelope/attachment?envelopeId=…[&token=…]. The envelope must be
// visible to the caller, or token must be the signing token of one of its recipients whose
// access auth this caller passed.
func (s *Server) findAttachments(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("envelopeId")
	token := r.URL.Query().Get("token")
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", id)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if _, err := s.store.EnvelopeRef(r.Context(), scope(r), id); err != nil {
		if !envelope.IsNotFound(err) || token == "" {
			s.writeError(w, r, err)
			return
		}
		tokenEnvelope, err := s.store.EnvelopeIDOfToken(r.Context(), token)
		if err != nil || tokenEnvelope != id {
			s.writeError(w, r, envelope.NotFound("Envelope"))
			return
		}
		// Through a signing token, what the token's recipient may see: nothing before their
		// access auth (a mailed code, their account) is passed by this caller.
		if err := s.tokenMaySee(r, token); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	list, err := s.store.Attachments(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": list})
}

// tokenMaySee refuses a caller who may not see what signing token token shows yet
// (ceremony.Status.CheckAccess).
func (s *Server) tokenMaySee(r *http.Request, token string) error {
	rec, err := s.store.RecipientByToken(r.Context(), token)
	if err != nil && envelope.ErrorCode(err) != envelope.CodeNotFound {
		return err // the store failed: the link may well exist
	}
	if err != nil {
		return envelope.NotFound("Envelope")
	}
	e, err := s.store.EnvelopeForRecipient(r.Context(), rec.EnvelopeID)
	if err != nil {
		return err
	}
	st, err := s.ceremony.StatusOf(r.Context(), r, e, rec)
	if err != nil {
		return err
	}
	return st.CheckAccess()
}

// createAttachment answers POST /envelope/attachment/create.
func (s *Server) createAttachment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string          `json:"envelopeId"`
		Data       *attachmentInput `json:"data"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	att := checkAttachmentData(&p, in.Data)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	att, err := s.store.CreateAttachment(r.Context(), s.editor(r), *in.EnvelopeID, att)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": att.ID})
}

// updateAttachment answers POST /envelope/attachment/update {id, data:{label, data}}.
func (s *Server) updateAttachment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID   *string          `json:"id"`
		Data *attachmentInput `json:"data"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	if in.ID == nil || *in.ID == "" {
		p.Add("id", "is required")
	}
	att := checkAttachmentData(&p, in.Data)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	err := s.store.UpdateAttachment(r.Context(), s.editor(r), *in.ID, att.Label, att.Data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// deleteAttachment answers POST /envelope/attachment/delete {id}.
func (s *Server) deleteAttachment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID *string `json:"id"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.ID == nil || *in.ID == "" {
		s.writeError(w, r, envelope.Invalid("id", "is required"))
		return
	}
	err := s.store.RemoveAttachment(r.Context(), s.editor(r), *in.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
