package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

type fieldsRequest struct {
	EnvelopeID *string               `json:"envelopeId"`
	Data       []envelope.FieldInput `json:"data"`
}

// getField answers GET /envelope/field/{fieldId}.
func (s *Server) getField(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "fieldId")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	envelopeID, err := s.store.EnvelopeIDOfField(r.Context(), scope(r), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), envelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, f := range e.Fields {
		if f.ID == id {
			writeJSON(w, http.StatusOK, view.NewFieldDetail(e, f))
			return
		}
	}
	s.writeError(w, r, envelope.NotFound("Field"))
}

func fieldsView(e *envelope.Envelope, ids []int64) []view.Field {
	out := make([]view.Field, 0, len(ids))
	for _, id := range ids {
		for _, f := range e.Fields {
			if f.ID == id {
				out = append(out, view.NewFieldDetail(e, f))
			}
		}
	}
	return out
}

// createFields answers POST /envelope/field/create-many. Each item is placed by coordinates
// (page and box in percent of the page) or by a placeholder: text found in the PDF, whose box
// the field takes (every occurrence with matchAll) and which is then whited out.
func (s *Server) createFields(w http.ResponseWriter, r *http.Request) {
	var in fieldsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkBatch(&p, in.EnvelopeID, len(in.Data), "field")
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, ids, err := s.store.AddFields(r.Context(), s.editor(r), s.placement(), *in.EnvelopeID, in.Data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": fieldsView(e, ids)})
}

// updateFields answers POST /envelope/field/update-many: only while the envelope is a draft.
func (s *Server) updateFields(w http.ResponseWriter, r *http.Request) {
	var in fieldsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkBatch(&p, in.EnvelopeID, len(in.Data), "field")
	fieldIDs := make([]*int64, len(in.Data))
	for i, f := range in.Data {
		fieldIDs[i] = f.ID
	}
	envelope.CheckOnce(&p, "field", fieldIDs, dataPath("id"))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, ids, err := s.store.UpdateFields(r.Context(), s.editor(r), *in.EnvelopeID, in.Data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": fieldsView(e, ids)})
}

// deleteField answers POST /envelope/field/delete {fieldId}.
func (s *Server) deleteField(w http.ResponseWriter, r *http.Request) {
	var in struct {
		FieldID *int64 `json:"fieldId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.FieldID == nil {
		s.writeError(w, r, envelope.Invalid("fieldId", "is required"))
		return
	}
	err := s.store.RemoveField(r.Context(), s.editor(r), *in.FieldID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
