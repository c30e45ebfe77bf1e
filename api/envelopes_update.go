package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
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
	caller := member(r)
	var updated *envelope.Envelope
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		var audits []envelope.Audit
		if d := in.Data; d != nil {
			if d.Title != nil {
				envelope.CheckLength(&p, "data.title", *d.Title, 1, envelope.MaxTitle)
				if *d.Title != e.Title {
					audits = append(audits, envelope.TitleUpdatedAudit(e.Title, *d.Title))
					e.Title = *d.Title
				}
			}
			if d.ExternalID.Set {
				if !d.ExternalID.Null {
					envelope.CheckLength(&p, "data.externalId", d.ExternalID.Value, 0, envelope.MaxExternalID)
				}
				if deref(e.ExternalID) != deref(d.ExternalID.Ptr()) {
					audits = append(audits, envelope.ExternalIDUpdatedAudit(deref(e.ExternalID), deref(d.ExternalID.Ptr())))
				}
				e.ExternalID = d.ExternalID.Ptr()
			}
			if d.Visibility != nil {
				v := envelope.Visibility(*d.Visibility)
				switch {
				case !envelope.OneOf(v, envelope.Visibilities()):
					p.Add("data.visibility", "must be one of %v, got %q", envelope.Visibilities(), *d.Visibility)
				case !caller.Role.CanSee(v):
					return envelope.Errorf(envelope.CodeForbidden, "Your team role %s may not set visibility %s", caller.Role, v)
				case v != e.Visibility:
					audits = append(audits, envelope.VisibilityUpdatedAudit(e.Visibility, v))
					e.Visibility = v
				}
			}
			if e.Status == envelope.StatusPending {
				next := e.AuthOptions
				if d.GlobalAccessAuth != nil {
					next.GlobalAccessAuth = toType[envelope.AccessAuth](d.GlobalAccessAuth)
				}
				if d.GlobalActionAuth != nil {
					next.GlobalActionAuth = toType[envelope.ActionAuth](d.GlobalActionAuth)
				}
				checkNotWeakened(&p, "data", "globalAccessAuth", "globalActionAuth", envelope.GlobalAuth(e.AuthOptions), envelope.GlobalAuth(next))
				for i, rec := range e.Recipients {
					s.checkRecipientSignable(&p, envelope.Join(envelope.Join("recipients", i), "authOptions"), rec, next, e.Fields)
				}
			}
			if d.GlobalAccessAuth != nil {
				v := envelope.CheckEnums(&p, "data.globalAccessAuth", toType[envelope.AccessAuth](d.GlobalAccessAuth), envelope.AccessAuths())
				audits = append(audits, envelope.GlobalAccessAuthUpdatedAudit(e.AuthOptions.GlobalAccessAuth, v))
				e.AuthOptions.GlobalAccessAuth = v
			}
			if d.GlobalActionAuth != nil {
				v := envelope.CheckEnums(&p, "data.globalActionAuth", toType[envelope.ActionAuth](d.GlobalActionAuth), envelope.GlobalActionAuths())
				audits = append(audits, envelope.GlobalActionAuthUpdatedAudit(e.AuthOptions.GlobalActionAuth, v))
				e.AuthOptions.GlobalActionAuth = v
			}
			if d.FolderID.Set {
				if !d.FolderID.Null {
					envelope.CheckLength(&p, "data.folderId", d.FolderID.Value, 1, 255)
				}
				e.FolderID = d.FolderID.Ptr()
			}
			if d.TemplateType != nil {
				t := envelope.TemplateType(*d.TemplateType)
				if !envelope.OneOf(t, envelope.TemplateTypes()) {
					p.Add("data.templateType", "must be one of %v, got %q", envelope.TemplateTypes(), *d.TemplateType)
				}
				e.TemplateType = t
			}
		}
		if changes := envelope.MetaAuditChanges(in.Meta.Apply(&p, "meta", &e.Meta)); len(changes) > 0 {
			audits = append(audits, envelope.MetaUpdatedAudit(changes))
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.SaveEnvelope(r.Context(), e); err != nil {
			return err
		}
		for _, a := range audits {
			if err := tx.AppendAudit(r.Context(), e.ID, a, s.actor(r)); err != nil {
				return err
			}
		}
		updated, err = tx.GetEnvelope(r.Context(), scope(r), e.ID)
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// A PENDING envelope's workflow reads the new meta (reminders, expiry, signing order).
	s.refreshWorkflow(r, updated.ID, updated.Status)
	writeJSON(w, http.StatusOK, newEnvelopeSummaryView(updated, false))
}

// checkNotWeakened records a problem for each of the access and action lists (members
// accessName and actionName of path) that would lose a method in force once the envelope is
// PENDING (envelope.Weakened).
func checkNotWeakened(p *envelope.Problems, path, accessName, actionName string, before, after envelope.AuthMethods) {
	access, action := envelope.Weakened(before, after)
	if len(access) > 0 {
		p.Add(envelope.Join(path, accessName), "the envelope was sent: its authentication may only be kept or strengthened, and this would drop %v", access)
	}
	if len(action) > 0 {
		p.Add(envelope.Join(path, actionName), "the envelope was sent: its authentication may only be kept or strengthened, and this would loosen it (any one method completes: %v)", action)
	}
}
