package persistence

import (
	"context"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// EnvelopeSettings is a change of an envelope's own members: a nil member (an unset optional
// one) is left as it is. Values are checked by UpdateEnvelope, against the envelope.
type EnvelopeSettings struct {
	Title            *string
	ExternalID       envelope.Optional[string]
	Visibility       *envelope.Visibility
	GlobalAccessAuth []envelope.AccessAuth
	GlobalActionAuth []envelope.ActionAuth
	FolderID         envelope.Optional[string]
	TemplateType     *envelope.TemplateType
}

// EnvelopeUpdate is a change of an envelope's settings (nil: none) and documentMeta (nil: none).
type EnvelopeUpdate struct {
	Settings *EnvelopeSettings
	Meta     *envelope.MetaInput
}

// UpdateEnvelope changes the settings and documentMeta of envelope envelopeID and returns the
// envelope after the change. Every bad value is reported at its path (data.title, meta.subject...);
// a visibility the editor's role may not see is FORBIDDEN; once the envelope is PENDING its
// global authentication may only be kept or strengthened and must stay one every recipient can
// prove on this server. Each change gets its audit entry (DOCUMENT_TITLE_UPDATED...,
// DOCUMENT_META_UPDATED).
func (s *Store) UpdateEnvelope(ctx context.Context, ed Editor, checks EditChecks, envelopeID string, in EnvelopeUpdate) (*envelope.Envelope, error) {
	var updated *envelope.Envelope
	err := s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.EditableEnvelope(ctx, ed, envelopeID)
		if err != nil {
			return err
		}
		var p envelope.Problems
		var audits []envelope.Audit
		if d := in.Settings; d != nil {
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
				v := *d.Visibility
				switch {
				case !envelope.OneOf(v, envelope.Visibilities()):
					p.Add("data.visibility", "must be one of %v, got %q", envelope.Visibilities(), *d.Visibility)
				case !ed.Member.Role.CanSee(v):
					return envelope.Errorf(envelope.CodeForbidden, "Your team role %s may not set visibility %s", ed.Member.Role, v)
				case v != e.Visibility:
					audits = append(audits, envelope.VisibilityUpdatedAudit(e.Visibility, v))
					e.Visibility = v
				}
			}
			if e.Status == envelope.StatusPending {
				next := e.AuthOptions
				if d.GlobalAccessAuth != nil {
					next.GlobalAccessAuth = d.GlobalAccessAuth
				}
				if d.GlobalActionAuth != nil {
					next.GlobalActionAuth = d.GlobalActionAuth
				}
				checkNotWeakened(&p, "data", "globalAccessAuth", "globalActionAuth", envelope.GlobalAuth(e.AuthOptions), envelope.GlobalAuth(next))
				for i, rec := range e.Recipients {
					checks.checkSignable(&p, envelope.Join(envelope.Join("recipients", i), "authOptions"), rec, next, e.Fields)
				}
			}
			if d.GlobalAccessAuth != nil {
				v := envelope.CheckEnums(&p, "data.globalAccessAuth", d.GlobalAccessAuth, envelope.AccessAuths())
				audits = append(audits, envelope.GlobalAccessAuthUpdatedAudit(e.AuthOptions.GlobalAccessAuth, v))
				e.AuthOptions.GlobalAccessAuth = v
			}
			if d.GlobalActionAuth != nil {
				v := envelope.CheckEnums(&p, "data.globalActionAuth", d.GlobalActionAuth, envelope.GlobalActionAuths())
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
				t := *d.TemplateType
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
		if err := envelope.CheckDirectLinkKept(e); err != nil {
			return err
		}
		if err := tx.SaveEnvelope(ctx, e); err != nil {
			return err
		}
		for _, a := range audits {
			if err := tx.AppendAudit(ctx, e.ID, a, ed.Actor); err != nil {
				return err
			}
		}
		if e.Type == envelope.TypeTemplate {
			if err := tx.emitWebhooks(ctx, e.ID, time.Now(), envelope.WebhookTemplateUpdated); err != nil {
				return err
			}
		}
		updated, err = tx.GetEnvelope(ctx, ed.scope(), e.ID)
		return err
	})
	return updated, err
}
