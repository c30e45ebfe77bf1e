package api

import (
	"net/http"
	"regexp"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

var envelopeIDPattern = regexp.MustCompile(`^envelope_[A-Za-z0-9_]{2,64}$`)

// checkEnvelopeID records a problem unless id looks like an envelope id.
func checkEnvelopeID(p *envelope.Problems, path, id string) {
	if id == "" {
		p.Add(path, "is required")
	} else if !envelopeIDPattern.MatchString(id) {
		p.Add(path, "is not an envelope id (envelope_…): %q", id)
	}
}

// dataPath is the path of member name of a batch request's i-th entry: data[i].name.
func dataPath(name string) func(i int) string {
	return func(i int) string { return envelope.Join(envelope.Join("data", i), name) }
}

// checkBatch records the problems of a create-many or update-many request's common part: the
// envelope it names at envelopeId (checkEnvelopeID) and its data, which must hold at least one
// item (what one is called: "field", "recipient").
func checkBatch(p *envelope.Problems, envelopeID *string, items int, item string) {
	checkEnvelopeID(p, "envelopeId", deref(envelopeID))
	if items == 0 {
		p.Add("data", "must hold at least one %s", item)
	}
}

// getEnvelope answers GET /envelope/{envelopeId}: the whole envelope.
func (s *Server) getEnvelope(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "envelopeId")
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", id)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, view.NewEnvelope(e, tokensHidden(r, e)))
}

type getManyRequest struct {
	IDs *struct {
		Type *string `json:"type"`
		IDs  []any   `json:"ids"`
	} `json:"ids"`
}

// getManyEnvelopes answers POST /envelope/get-many: up to 20 envelopes by envelope id, document
// id or template id; ids the caller cannot see are left out.
func (s *Server) getManyEnvelopes(w http.ResponseWriter, r *http.Request) {
	var in getManyRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	if in.IDs == nil {
		p.Add("ids", "is required: {type, ids}")
		s.writeError(w, r, p.Err())
		return
	}
	kind := deref(in.IDs.Type)
	if len(in.IDs.IDs) < 1 || len(in.IDs.IDs) > 20 {
		p.Add("ids.ids", "must hold 1 to 20 ids, got %d", len(in.IDs.IDs))
	}
	var strIDs []string
	var numIDs []int64
	for i, raw := range in.IDs.IDs {
		path := envelope.Join("ids.ids", i)
		switch kind {
		case "envelopeId":
			s, ok := raw.(string)
			if !ok {
				p.Add(path, "must be a string envelope id")
				continue
			}
			checkEnvelopeID(&p, path, s)
			strIDs = append(strIDs, s)
		case "documentId", "templateId":
			n, ok := raw.(float64)
			if !ok || n != float64(int64(n)) || n < 1 {
				p.Add(path, "must be a positive integer")
				continue
			}
			numIDs = append(numIDs, int64(n))
		}
	}
	if kind != "envelopeId" && kind != "documentId" && kind != "templateId" {
		p.Add("ids.type", `must be "envelopeId", "documentId" or "templateId", got %q`, kind)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	var list []*envelope.Envelope
	var err error
	switch kind {
	case "envelopeId":
		list, err = s.store.GetEnvelopesByIDs(r.Context(), scope(r), strIDs)
	case "documentId":
		list, err = s.store.GetEnvelopesByLegacyIDs(r.Context(), scope(r), envelope.TypeDocument, numIDs)
	case "templateId":
		list, err = s.store.GetEnvelopesByLegacyIDs(r.Context(), scope(r), envelope.TypeTemplate, numIDs)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]view.Envelope, 0, len(list))
	for _, e := range list {
		views = append(views, view.NewEnvelope(e, tokensHidden(r, e)))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": views})
}
