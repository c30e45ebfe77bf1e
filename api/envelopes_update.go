package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
)

type updateRequest struct {
	EnvelopeID *string `json:"envelopeId"`
	Data       *struct {
		Title            *string                   `json:"title"`
		ExternalID       envelope.Optional[string] `json:"externalId"`
		Visibility       *string                   `json:"visibility"`
		GlobalAccessAuth []string                  `json:"globalAccessAuth"`
		GlobalActionAuth []string                  `json:"globalActionAuth"`
		FolderID         envelope.Optional[string] `json:"folderId"`
		TemplateType     *string                   `json:"templateType"`
	} `json:"data"`
	Meta *envelope.MetaInput `json:"meta"`
}

// update is the store's change of a decoded request.
func (in updateRequest) update() persistence.EnvelopeUpdate {
	u := persistence.EnvelopeUpdate{Meta: in.Meta}
	if d := in.Data; d != nil {
		u.Settings = &persistence.EnvelopeSettings{Title: d.Title, ExternalID: d.ExternalID, FolderID: d.FolderID}
		if d.Visibility != nil {
			v := envelope.Visibility(*d.Visibility)
			u.Settings.Visibility = &v
		}
		if d.GlobalAccessAuth != nil {
			u.Settings.GlobalAccessAuth = toType[envelope.AccessAuth](d.GlobalAccessAuth)
		}
		if d.GlobalActionAuth != nil {
			u.Settings.GlobalActionAuth = toType[envelope.ActionAuth](d.GlobalActionAuth)
		}
		if d.TemplateType != nil {
			t := envelope.TemplateType(*d.TemplateType)
			u.Settings.TemplateType = &t
		}
	}
	return u
}

// updateEnvelope answers POST /envelope/update: title, external id, visibility, global auth,
// folder, template type and meta, each change with its audit entry.
func (s *Server) updateEnvelope(w http.ResponseWriter, r *http.Request) {
	var in updateRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	updated, err := s.store.UpdateEnvelope(r.Context(), s.editor(r), s.editChecks(), *in.EnvelopeID, in.update())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// A PENDING envelope's workflow reads the new meta (reminders, expiry, signing order).
	s.refreshWorkflow(r, updated.ID, updated.Status)
	writeJSON(w, http.StatusOK, view.NewEnvelopeSummary(updated, false))
}
