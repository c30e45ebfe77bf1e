package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

// directLinkRoutes are the template direct-link endpoints of Documenso's v2 API; they need an
// API key whose member may manage the template (envelope.MayChangeDirectLink).
func (s *Server) directLinkRoutes(r chi.Router) {
	r.Post("/template/direct/create", s.createDirectLink)
	r.Post("/template/direct/toggle", s.toggleDirectLink)
	r.Post("/template/direct/delete", s.deleteDirectLink)
}

// checkTemplateID adds a problem when templateID is missing or not a template's number.
func checkTemplateID(p *envelope.Problems, templateID *int64) {
	if templateID == nil {
		p.Add("templateId", "is required: the template's number (the n of template_n)")
	} else if *templateID < 1 {
		p.Add("templateId", "must be a positive integer, got %d", *templateID)
	}
}

// createDirectLink answers POST /template/direct/create {templateId, directRecipientId?}.
func (s *Server) createDirectLink(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TemplateID        *int64 `json:"templateId"`
		DirectRecipientID *int64 `json:"directRecipientId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkTemplateID(&p, in.TemplateID)
	if in.DirectRecipientID != nil && *in.DirectRecipientID < 1 {
		p.Add("directRecipientId", "must be a positive integer, got %d", *in.DirectRecipientID)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	link, err := s.store.CreateDirectLink(r.Context(), s.editor(r), *in.TemplateID, in.DirectRecipientID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, view.NewDirectLinkAnswer(link, *in.TemplateID))
}

// toggleDirectLink answers POST /template/direct/toggle {templateId, enabled}.
func (s *Server) toggleDirectLink(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TemplateID *int64 `json:"templateId"`
		Enabled    *bool  `json:"enabled"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkTemplateID(&p, in.TemplateID)
	if in.Enabled == nil {
		p.Add("enabled", "is required: true or false")
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	link, err := s.store.ToggleDirectLink(r.Context(), s.editor(r), *in.TemplateID, *in.Enabled)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, view.NewDirectLinkAnswer(link, *in.TemplateID))
}

// deleteDirectLink answers POST /template/direct/delete {templateId}: {success: true}, also
// when the template had no link.
func (s *Server) deleteDirectLink(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TemplateID *int64 `json:"templateId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkTemplateID(&p, in.TemplateID)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.store.DeleteDirectLink(r.Context(), s.editor(r), *in.TemplateID); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
