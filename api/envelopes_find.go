package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
)

// findEnvelopes answers GET /envelope: a page of the envelopes the caller sees, newest first.
func (s *Server) findEnvelopes(w http.ResponseWriter, r *http.Request) {
	var problems envelope.Problems
	q := query{values: r.URL.Query(), problems: &problems}
	f := persistence.FindFilter{
		Query:                q.str("query"),
		Page:                 q.int("page", 1, 1, 1<<30),
		PerPage:              q.int("perPage", 10, 1, 100),
		Type:                 enum(q, "type", envelope.Types()),
		Source:               enum(q, "source", envelope.Sources()),
		Status:               enum(q, "status", envelope.Statuses()),
		HasExpiredRecipients: q.boolean("hasExpiredRecipients"),
		Now:                  time.Now(),
	}
	f.Query = strings.TrimSpace(f.Query)
	if f.Query != "" {
		envelope.CheckLength(&problems, "query", f.Query, envelope.MinSearchQuery, envelope.MaxSearchQuery)
	}
	if s := q.str("templateId"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			problems.Add("templateId", "expected an integer, got %q", s)
		}
		f.TemplateID = &id
	}
	if s := q.str("folderId"); s != "" {
		f.FolderID = &s
	}
	if col := q.str("orderByColumn"); col != "" && col != "createdAt" {
		problems.Add("orderByColumn", `must be "createdAt", got %q`, col)
	}
	switch dir := q.str("orderByDirection"); dir {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		problems.Add("orderByDirection", `must be "asc" or "desc", got %q`, dir)
	}
	if err := problems.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	list, count, err := s.store.FindEnvelopes(r.Context(), scope(r), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]view.EnvelopeSummary, 0, len(list))
	for _, e := range list {
		// Recipient tokens are signing credentials: only those who may manage it see them.
		views = append(views, view.NewEnvelopeSummary(e, tokensHidden(r, e)))
	}
	writeJSON(w, http.StatusOK, newPageView(views, count, f.Page, f.PerPage))
}
