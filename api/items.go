package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

type itemView struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	EnvelopeID     string `json:"envelopeId"`
	Order          int    `json:"order"`
	DocumentDataID string `json:"documentDataId"`
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
	created, err := s.store.AddItems(r.Context(), s.editor(r), *in.EnvelopeID, docs)
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
	patches := make([]persistence.ItemPatch, len(in.Data))
	itemIDs := make([]*string, len(in.Data))
	for i, d := range in.Data {
		patches[i] = persistence.ItemPatch{ID: d.EnvelopeItemID, Order: d.Order, Title: d.Title}
		itemIDs[i] = d.EnvelopeItemID
	}
	var p envelope.Problems
	envelope.CheckOnce(&p, "document", itemIDs, dataPath("envelopeItemId"))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	updated, err := s.store.UpdateItems(r.Context(), s.editor(r), *in.EnvelopeID, patches)
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
	err := s.store.RemoveItem(r.Context(), s.editor(r), *in.EnvelopeID, deref(in.EnvelopeItemID))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
