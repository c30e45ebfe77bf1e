package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

type auditEntryView struct {
	ID         string         `json:"id"`
	CreatedAt  string         `json:"createdAt"`
	EnvelopeID string         `json:"envelopeId"`
	Type       string         `json:"type"`
	Data       map[string]any `json:"data"`
	Name       *string        `json:"name"`
	Email      *string        `json:"email"`
	UserID     *int64         `json:"userId"`
	UserAgent  *string        `json:"userAgent"`
	IPAddress  *string        `json:"ipAddress"`
}

// auditLog answers GET /envelope/{envelopeId}/audit-log: 50 entries a page, newest first by
// default.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "envelopeId")
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", id)
	q := query{values: r.URL.Query(), problems: &p}
	page := q.int("page", 1, 1, 1<<30)
	perPage := q.int("perPage", 50, 1, 100)
	if col := q.str("orderByColumn"); col != "" && col != "createdAt" {
		p.Add("orderByColumn", `must be "createdAt", got %q`, col)
	}
	ascending := false
	switch dir := q.str("orderByDirection"); dir {
	case "", "desc":
	case "asc":
		ascending = true
	default:
		p.Add("orderByDirection", `must be "asc" or "desc", got %q`, dir)
	}
	// Sobre's own entry types only when asked: Documenso's clients refuse a page with others.
	extensions := q.boolean("includeExtensions")
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	list, count, err := s.store.AuditPage(r.Context(), scope(r), id, page, perPage, ascending, extensions != nil && *extensions)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]auditEntryView, 0, len(list))
	for _, e := range list {
		if e.Data == nil {
			e.Data = map[string]any{}
		}
		if extensions == nil || !*extensions {
			e.Data = envelope.DocumensoAuditData(envelope.AuditType(e.Type), e.Data)
		}
		views = append(views, auditEntryView{ID: e.ID, CreatedAt: view.ISOTime(e.CreatedAt), EnvelopeID: e.EnvelopeID, Type: e.Type,
			Data: e.Data, Name: e.Name, Email: e.Email, UserID: e.UserID, UserAgent: e.UserAgent, IPAddress: e.IPAddress})
	}
	writeJSON(w, http.StatusOK, newPageView(views, count, page, perPage))
}
