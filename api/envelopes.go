package api

import "github.com/go-chi/chi/v5"

// envelopeRoutes declares the envelope API of the SPEC, every route in one place.
func (s *Server) envelopeRoutes(r chi.Router) {
	r.Get("/envelope", s.findEnvelopes)
	r.Post("/envelope/create", s.createEnvelope)
	r.Post("/envelope/use", s.useTemplate)
	r.Post("/envelope/get-many", s.getManyEnvelopes)
	r.Post("/envelope/update", s.updateEnvelope)
	r.Post("/envelope/distribute", s.distributeEnvelope)
	r.Post("/envelope/cancel", s.cancelEnvelope)
	r.Post("/envelope/duplicate", s.duplicateEnvelope)
	r.Post("/envelope/delete", s.deleteEnvelope)
	r.Post("/envelope/redistribute", s.redistributeEnvelope)
	r.Post("/envelope/item/create-many", s.createItems)
	r.Post("/envelope/item/update-many", s.updateItems)
	r.Post("/envelope/item/delete", s.deleteItem)
	r.Get("/envelope/item/{envelopeItemId}/download", s.downloadItem)
	r.Post("/envelope/attachment/update", s.updateAttachment)
	r.Post("/envelope/attachment/delete", s.deleteAttachment)
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
	r.Get("/envelope/{envelopeId}/audit-log/download", s.downloadAuditLog)
	r.Get("/envelope/{envelopeId}/certificate/download", s.downloadCertificate)
	r.Get("/envelope/{envelopeId}", s.getEnvelope)
}
