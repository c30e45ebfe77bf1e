package api

import "github.com/go-chi/chi/v5"

// envelopeRoutes declares the envelope API of the SPEC, every route in one place.
func (s *Server) envelopeRoutes(r chi.Router) {
	r.Get("/envelope", s.findEnvelopes)
	r.Post("/envelope/create", s.createEnvelope)
	r.Post("/envelope/get-many", s.getManyEnvelopes)
	r.Post("/envelope/update", s.updateEnvelope)
	r.Post("/envelope/distribute", s.distributeEnvelope)
	r.Post("/envelope/cancel", s.cancelEnvelope)
	r.Post("/envelope/recipient/{recipientId}/reject", s.rejectRecipient)
	r.Get("/envelope/attachment", s.findAttachments)
	r.Post("/envelope/attachment/create", s.createAttachment)
	r.Post("/envelope/field/create-many", s.createFields)
	r.Post("/envelope/field/update-many", s.updateFields)
	r.Post("/envelope/field/delete", s.deleteField)
	r.Get("/envelope/field/{fieldId}", s.getField)
	r.Post("/envelope/recipient/create-many", s.createRecipients)
	r.Post("/envelope/recipient/update-many", s.updateRecipients)
	r.Post("/envelope/recipient/delete", s.deleteRecipient)
	r.Get("/envelope/recipient/{recipientId}", s.getRecipient)
	r.Get("/envelope/{envelopeId}/audit-log", s.auditLog)
	r.Get("/envelope/{envelopeId}", s.getEnvelope)
}
