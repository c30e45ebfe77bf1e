package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
)

type fieldsRequest struct {
	EnvelopeID *string      `json:"envelopeId"`
	Data       []fieldInput `json:"data"`
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
			writeJSON(w, http.StatusOK, newFieldDetailView(e, f))
			return
		}
	}
	s.writeError(w, r, envelope.NotFound("Field"))
}

func fieldsView(e *envelope.Envelope, ids []int64) []fieldView {
	out := make([]fieldView, 0, len(ids))
	for _, id := range ids {
		for _, f := range e.Fields {
			if f.ID == id {
				out = append(out, newFieldDetailView(e, f))
			}
		}
	}
	return out
}

func findRecipient(e *envelope.Envelope, id int64) *envelope.Recipient {
	for i := range e.Recipients {
		if e.Recipients[i].ID == id {
			return &e.Recipients[i]
		}
	}
	return nil
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
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(in.Data) == 0 {
		p.Add("data", "must hold at least one field")
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	var e *envelope.Envelope
	var ids []int64
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		if e, err = s.mutableEnvelope(r, tx, *in.EnvelopeID); err != nil {
			return err
		}
		items, err := tx.ItemPages(r.Context(), e.ID)
		if err != nil {
			return err
		}
		type pending struct {
			f   envelope.Field
			rec envelope.Recipient
		}
		var todo []pending
		whiteouts := map[string][]pdf.Match{}
		for i, fin := range in.Data {
			path := envelope.Join("data", i)
			var rec *envelope.Recipient
			if fin.RecipientID == nil {
				p.Add(envelope.Join(path, "recipientId"), "is required")
			} else if rec = findRecipient(e, *fin.RecipientID); rec == nil {
				p.Add(envelope.Join(path, "recipientId"), "recipient %d is not in envelope %s", *fin.RecipientID, e.ID)
			}
			if rec != nil && !rec.Role.FillsFields() {
				p.Add(envelope.Join(path, "recipientId"), "recipient %d is a %s and fills no fields", rec.ID, rec.Role)
			}
			item := itemFor(&p, envelope.Join(path, "envelopeItemId"), fin.EnvelopeItemID, items)
			if fin.Placeholder != nil && e.Status != envelope.StatusDraft {
				// Placing by text whites the placeholder out, a change of the document's bytes,
				// and a sent envelope's documents are what its recipients were shown.
				p.Add(envelope.Join(path, "placeholder"), "the documents of a %s envelope are frozen and a placeholder would change them; place the field by coordinates", e.Status)
				continue
			}
			if fin.Placeholder != nil {
				fields := s.placeFields(r, tx, &p, path, fin, item, whiteouts)
				for _, f := range fields {
					if rec != nil {
						todo = append(todo, pending{f, *rec})
					}
				}
				continue
			}
			var pages []persistence.PageSize
			if item != nil {
				pages = item.Pages
			}
			f, ok := checkFieldInput(&p, path, fin, pages, true)
			if item != nil {
				f.EnvelopeItemID = item.ID
			}
			if rec != nil && ok {
				todo = append(todo, pending{f, *rec})
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
		for _, t := range todo {
			if err := tx.RequireUnacted(r.Context(), t.rec.ID, envelope.FrozenFields); err != nil {
				return err
			}
			f, err := tx.AddField(r.Context(), e.ID, t.f, t.rec, s.actor(r))
			if err != nil {
				return err
			}
			ids = append(ids, f.ID)
		}
		for itemID, boxes := range whiteouts {
			if err := s.whiteOut(r, tx, e.ID, itemID, boxes); err != nil {
				return err
			}
		}
		if err := tx.Touch(r.Context(), e.ID); err != nil {
			return err
		}
		e, err = tx.GetEnvelope(r.Context(), scope(r), e.ID)
		return err
	})
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
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(in.Data) == 0 {
		p.Add("data", "must hold at least one field")
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	var e *envelope.Envelope
	var ids []int64
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		if e, err = s.mutableEnvelope(r, tx, *in.EnvelopeID); err != nil {
			return err
		}
		if err := envelope.RequireDraft(e.Status, "Fields can only be updated"); err != nil {
			return err
		}
		items, err := tx.ItemPages(r.Context(), e.ID)
		if err != nil {
			return err
		}
		for i, fin := range in.Data {
			path := envelope.Join("data", i)
			if fin.ID == nil {
				p.Add(envelope.Join(path, "id"), "is required")
				continue
			}
			var cur *envelope.Field
			for k := range e.Fields {
				if e.Fields[k].ID == *fin.ID {
					cur = &e.Fields[k]
				}
			}
			if cur == nil {
				p.Add(envelope.Join(path, "id"), "field %d is not in envelope %s", *fin.ID, e.ID)
				continue
			}
			next := *cur
			itemID := cur.EnvelopeItemID
			if fin.EnvelopeItemID != nil {
				itemID = *fin.EnvelopeItemID
			}
			item := itemFor(&p, envelope.Join(path, "envelopeItemId"), &itemID, items)
			var pages []persistence.PageSize
			if item != nil {
				pages = item.Pages
				next.EnvelopeItemID = item.ID
			}
			if fin.Type == nil {
				t := string(cur.Type)
				fin.Type = &t
			}
			f, _ := checkFieldInput(&p, path, fin, pages, false)
			next.Type, next.FieldMeta = f.Type, f.FieldMeta
			if fin.FieldMeta == nil && f.Type == cur.Type {
				next.FieldMeta = cur.FieldMeta
			}
			if fin.Page != nil {
				next.Page = *fin.Page
			} else if pages != nil && next.Page > len(pages) {
				p.Add(envelope.Join(path, "page"), "must be at most %d (the document's page count), got %d", len(pages), next.Page)
			}
			setIf(&next.PositionX, fin.PositionX)
			setIf(&next.PositionY, fin.PositionY)
			setIf(&next.Width, fin.Width)
			setIf(&next.Height, fin.Height)
			if err := p.Err(); err != nil {
				continue
			}
			if err := tx.UpdateField(r.Context(), next); err != nil {
				return err
			}
			rec := findRecipient(e, cur.RecipientID)
			if err := tx.AppendAudit(r.Context(), e.ID, envelope.FieldUpdatedAudit(*cur, next, *rec), s.actor(r)); err != nil {
				return err
			}
			ids = append(ids, next.ID)
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.Touch(r.Context(), e.ID); err != nil {
			return err
		}
		e, err = tx.GetEnvelope(r.Context(), scope(r), e.ID)
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": fieldsView(e, ids)})
}

func setIf(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
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
