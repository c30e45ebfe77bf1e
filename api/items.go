package api

import (
	"net/http"
	"strconv"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// maxItems is the most documents one envelope holds (Documenso's ENVELOPE_ITEM_LIMIT_EXCEEDED).
const maxItems = 20

type itemView struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	EnvelopeID     string `json:"envelopeId"`
	Order          int    `json:"order"`
	DocumentDataID string `json:"documentDataId"`
}

// draftOnly refuses a change of e's documents unless e is a DRAFT.
func draftOnly(e *envelope.Envelope) error {
	return envelope.RequireDraft(e.Status, "Documents can only change")
}

// createItems answers POST /envelope/item/create-many (multipart: payload {envelopeId} and
// files): the PDFs are added after the envelope's documents.
func (s *Server) createItems(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
	}
	files, err := readMultipart(r, &in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(files) == 0 {
		p.Add("files", "at least one PDF file is required")
	}
	docs, err := s.inspectFiles(r.Context(), &p, files)
	if err == nil {
		err = p.Err()
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var created []envelope.Item
	err = s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		if len(e.Items)+len(docs) > maxItems {
			return envelope.Errorf(codeItemLimit, "An envelope holds at most %d documents", maxItems)
		}
		next := 1
		for _, it := range e.Items {
			next = max(next, it.Order+1)
		}
		for i, d := range docs {
			it, err := tx.AddItem(r.Context(), e.ID, d, next+i, s.actor(r))
			if err != nil {
				return err
			}
			created = append(created, it)
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := []itemView{}
	for _, it := range created {
		out = append(out, itemView{ID: it.ID, Title: it.Title, EnvelopeID: it.EnvelopeID, Order: it.Order, DocumentDataID: it.DocumentDataID})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// updateItems answers POST /envelope/item/update-many: titles and order of documents.
func (s *Server) updateItems(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
		Data       []struct {
			EnvelopeItemID *string `json:"envelopeItemId"`
			Order          *int    `json:"order"`
			Title          *string `json:"title"`
		} `json:"data"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	var updated []envelope.Item
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		var p envelope.Problems
		items := append([]envelope.Item(nil), e.Items...)
		type change struct {
			idx     int
			changes []envelope.ItemChange
		}
		var changed []change
		for i, d := range in.Data {
			path := envelope.Join("data", i)
			idx := -1
			for k, it := range items {
				if d.EnvelopeItemID != nil && it.ID == *d.EnvelopeItemID {
					idx = k
				}
			}
			if idx < 0 {
				p.Add(envelope.Join(path, "envelopeItemId"), "names no document of envelope %s", e.ID)
				continue
			}
			var ch []envelope.ItemChange
			if d.Title != nil {
				envelope.CheckLength(&p, envelope.Join(path, "title"), *d.Title, 1, envelope.MaxTitle)
				if *d.Title != items[idx].Title {
					ch = append(ch, envelope.ItemChange{Field: "title", From: items[idx].Title, To: *d.Title})
					items[idx].Title = *d.Title
				}
			}
			if d.Order != nil {
				if *d.Order < 1 || *d.Order > 1000 {
					p.Add(envelope.Join(path, "order"), "must be between 1 and 1000, got %d", *d.Order)
				} else if *d.Order != items[idx].Order {
					ch = append(ch, envelope.ItemChange{Field: "order", From: strconv.Itoa(items[idx].Order), To: strconv.Itoa(*d.Order)})
					items[idx].Order = *d.Order
				}
			}
			changed = append(changed, change{idx, ch})
		}
		seen := map[int]bool{}
		for _, it := range items {
			if seen[it.Order] {
				p.Add("data", "two documents would share order %d", it.Order)
			}
			seen[it.Order] = true
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.ParkItemOrders(r.Context(), e.ID); err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.UpdateItem(r.Context(), it); err != nil {
				return err
			}
		}
		for _, c := range changed {
			updated = append(updated, items[c.idx])
			if len(c.changes) > 0 {
				if err := tx.AppendAudit(r.Context(), e.ID, envelope.ItemUpdatedAudit(items[c.idx].ID, c.changes), s.actor(r)); err != nil {
					return err
				}
			}
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := []map[string]any{}
	for _, it := range updated {
		out = append(out, map[string]any{"id": it.ID, "order": it.Order, "title": it.Title, "envelopeId": it.EnvelopeID})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// deleteItem answers POST /envelope/item/delete: a document and its fields, while DRAFT.
func (s *Server) deleteItem(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID     *string `json:"envelopeId"`
		EnvelopeItemID *string `json:"envelopeItemId"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		var item *envelope.Item
		for i := range e.Items {
			if e.Items[i].ID == deref(in.EnvelopeItemID) {
				item = &e.Items[i]
			}
		}
		if item == nil {
			return envelope.NotFound("Envelope item")
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		if len(e.Items) == 1 {
			return envelope.Errorf(envelope.CodeInvalidRequest, "An envelope keeps at least one document")
		}
		if err := tx.DeleteItem(r.Context(), item.ID); err != nil {
			return err
		}
		if err := tx.AppendAudit(r.Context(), e.ID, envelope.ItemDeletedAudit(*item), s.actor(r)); err != nil {
			return err
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
