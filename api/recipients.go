package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
)

type recipientsRequest struct {
	EnvelopeID *string          `json:"envelopeId"`
	Data       []recipientInput `json:"data"`
}

// pathID reads a numeric id from the URL path.
func pathID(r *http.Request, name string) (int64, error) {
	raw := chi.URLParam(r, name)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, envelope.Invalid(name, "must be a positive integer, got %q", raw)
	}
	return id, nil
}

// getRecipient answers GET /envelope/recipient/{recipientId}.
func (s *Server) getRecipient(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "recipientId")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	envelopeID, err := s.store.EnvelopeIDOfRecipient(r.Context(), scope(r), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), envelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec := e.Recipient(id)
	if rec == nil {
		s.writeError(w, r, envelope.NotFound("Recipient"))
		return
	}
	writeJSON(w, http.StatusOK, view.NewRecipientDetail(e, *rec, tokensHidden(r, e)))
}

// recipientsView lists recipients ids of e with their tokens, for a caller who may manage e.
func recipientsView(e *envelope.Envelope, ids []int64) []view.Recipient {
	out := make([]view.Recipient, 0, len(ids))
	for _, id := range ids {
		for _, rec := range e.Recipients {
			if rec.ID == id {
				out = append(out, view.NewRecipientDetail(e, rec, false))
			}
		}
	}
	return out
}

// createRecipients answers POST /envelope/recipient/create-many.
func (s *Server) createRecipients(w http.ResponseWriter, r *http.Request) {
	var in recipientsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkBatch(&p, in.EnvelopeID, len(in.Data), "recipient")
	for i, rin := range in.Data {
		checkRecipient(&p, envelope.Join("data", i), rin, true)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	recs := make([]envelope.Recipient, len(in.Data))
	for i, rin := range in.Data {
		recs[i] = recipientFrom(rin)
	}
	e, ids, err := s.store.AddRecipients(r.Context(), s.editor(r), s.editChecks(), *in.EnvelopeID, recs)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, e.ID, e.Status)
	writeJSON(w, http.StatusOK, map[string]any{"data": recipientsView(e, ids)})
}

// refreshWorkflow tells a PENDING envelope's workflow that its recipients changed. The change is
// already committed; a failure to tell is logged, and the workflow reads the envelope again at
// its next event anyway.
func (s *Server) refreshWorkflow(r *http.Request, envelopeID string, status envelope.Status) {
	if status != envelope.StatusPending || s.flows == nil {
		return
	}
	// What changed is committed: the signal must not be lost because the client went away
	// (a replaced link's new mail waits for it), so it outlives the request, within a bound.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	if err := s.flows.Refresh(ctx, envelopeID); err != nil {
		s.log.WarnContext(ctx, "refresh envelope workflow", "envelope", envelopeID, "err", err)
	}
}

// updateRecipients answers POST /envelope/recipient/update-many: while the envelope is not
// finished, for recipients who have not acted.
func (s *Server) updateRecipients(w http.ResponseWriter, r *http.Request) {
	var in recipientsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkBatch(&p, in.EnvelopeID, len(in.Data), "recipient")
	recipientIDs := make([]*int64, len(in.Data))
	for i, rin := range in.Data {
		path := envelope.Join("data", i)
		if rin.ID == nil {
			p.Add(envelope.Join(path, "id"), "is required")
		}
		recipientIDs[i] = rin.ID
		checkRecipient(&p, path, rin, false)
	}
	envelope.CheckOnce(&p, "recipient", recipientIDs, dataPath("id"))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	patches := make([]persistence.RecipientPatch, len(in.Data))
	for i, rin := range in.Data {
		patches[i] = recipientPatch(rin)
	}
	e, ids, err := s.store.UpdateRecipients(r.Context(), s.editor(r), s.editChecks(), *in.EnvelopeID, patches)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, e.ID, e.Status)
	writeJSON(w, http.StatusOK, map[string]any{"data": recipientsView(e, ids)})
}

// deleteRecipient answers POST /envelope/recipient/delete {recipientId}.
func (s *Server) deleteRecipient(w http.ResponseWriter, r *http.Request) {
	var in struct {
		RecipientID *int64 `json:"recipientId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.RecipientID == nil {
		s.writeError(w, r, envelope.Invalid("recipientId", "is required"))
		return
	}
	ref, err := s.store.RemoveRecipient(r.Context(), s.editor(r), s.editChecks(), *in.RecipientID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, ref.ID, ref.Status)
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
