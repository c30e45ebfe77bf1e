package api

import "github.com/go-chi/chi/v5"

// envelopeRoutes declares the envelope API of the SPEC.
func (s *Server) envelopeRoutes(r chi.Router) {
	r.Get("/envelope", s.findEnvelopes)
}
