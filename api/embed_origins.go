package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// embedOriginRoutes declares the team's embed origins: which sites may frame its embedded
// signing page (/embed/sign/{token}; README "Embedded signing"), besides SOBRE_EMBED_ORIGINS.
// The paths are Sobre's: Documenso keeps them in its web app. Reading and changing are for a
// MANAGER or an ADMIN (envelope.MayManageEmbedOrigins).
func (s *Server) embedOriginRoutes(r chi.Router) {
	r.Get("/team/embed-origins", s.getEmbedOrigins)
	r.Post("/team/embed-origins/update", s.updateEmbedOrigins)
}

// embedOriginsView is the answer of both routes: the team's origins, and those the server
// allows every team (SOBRE_EMBED_ORIGINS), which frame the page too.
type embedOriginsView struct {
	Origins       []string `json:"origins"`
	ServerOrigins []string `json:"serverOrigins"`
}

// writeEmbedOrigins answers team teamID's embed origins (embedOriginsView).
func (s *Server) writeEmbedOrigins(w http.ResponseWriter, r *http.Request, teamID int64) {
	origins, err := s.store.TeamEmbedOrigins(r.Context(), teamID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, embedOriginsView{Origins: origins, ServerOrigins: append([]string{}, s.cfg.EmbedOrigins...)})
}

func (s *Server) getEmbedOrigins(w http.ResponseWriter, r *http.Request) {
	m := member(r)
	if err := envelope.MayManageEmbedOrigins(m); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeEmbedOrigins(w, r, m.TeamID)
}

func (s *Server) updateEmbedOrigins(w http.ResponseWriter, r *http.Request) {
	m := member(r)
	if err := envelope.MayManageEmbedOrigins(m); err != nil {
		s.writeError(w, r, err)
		return
	}
	var in struct {
		Origins *[]string `json:"origins"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	var origins []string
	switch {
	case in.Origins == nil:
		p.Add("origins", "is required (an empty list allows none)")
	case len(*in.Origins) > config.MaxEmbedOrigins:
		p.Add("origins", "has at most %d origins", config.MaxEmbedOrigins)
	default:
		for i, raw := range *in.Origins {
			o, err := config.ParseEmbedOrigin(raw, s.cfg.Env == config.EnvDevelopment)
			if err != nil {
				p.Add(fmt.Sprintf("origins[%d]", i), "%s", err.Error())
				continue
			}
			if !slices.Contains(origins, o) {
				origins = append(origins, o)
			}
		}
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.store.SetTeamEmbedOrigins(r.Context(), m.TeamID, origins); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeEmbedOrigins(w, r, m.TeamID)
}
