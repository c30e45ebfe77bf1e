package persistence

import (
	"context"
	"encoding/json"

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
		type audit struct {
			typ  string
			data any
		}
		var audits []audit
		if d := in.Settings; d != nil {
			if d.Title != nil {
				envelope.CheckLength(&p, "data.title", *d.Title, 1, envelope.MaxTitle)
				if *d.Title != e.Title {
					audits = append(audits, audit{"DOCUMENT_TITLE_UPDATED", map[string]any{"from": e.Title, "to": *d.Title}})
					e.Title = *d.Title
				}
			}
			if d.ExternalID.Set {
				if !d.ExternalID.Null {
					envelope.CheckLength(&p, "data.externalId", d.ExternalID.Value, 0, envelope.MaxExternalID)
				}
				if deref(e.ExternalID) != deref(d.ExternalID.Ptr()) {
					audits = append(audits, audit{"DOCUMENT_EXTERNAL_ID_UPDATED", map[string]any{"from": deref(e.ExternalID), "to": deref(d.ExternalID.Ptr())}})
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
					audits = append(audits, audit{"DOCUMENT_VISIBILITY_UPDATED", map[string]any{"from": e.Visibility, "to": v}})
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
				audits = append(audits, audit{"DOCUMENT_GLOBAL_AUTH_ACCESS_UPDATED", map[string]any{"from": e.AuthOptions.GlobalAccessAuth, "to": v}})
				e.AuthOptions.GlobalAccessAuth = v
			}
			if d.GlobalActionAuth != nil {
				v := envelope.CheckEnums(&p, "data.globalActionAuth", d.GlobalActionAuth, envelope.GlobalActionAuths())
				audits = append(audits, audit{"DOCUMENT_GLOBAL_AUTH_ACTION_UPDATED", map[string]any{"from": e.AuthOptions.GlobalActionAuth, "to": v}})
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
		if changes := MetaAuditChanges(in.Meta.Apply(&p, "meta", &e.Meta)); len(changes) > 0 {
			audits = append(audits, audit{"DOCUMENT_META_UPDATED", map[string]any{"changes": changes}})
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.SaveEnvelope(ctx, e); err != nil {
			return err
		}
		for _, a := range audits {
			if err := tx.AppendAudit(ctx, e.ID, a.typ, a.data, ed.Actor); err != nil {
				return err
			}
		}
		updated, err = tx.GetEnvelope(ctx, ed.scope(), e.ID)
		return err
	})
	return updated, err
}

// metaAuditTypes names, as Documenso's audit log does, the documentMeta members whose changes
// DOCUMENT_META_UPDATED records. Documenso's clients parse exactly these; changes to the other
// members (signing order, language, signature kinds...) are not recorded there.
var metaAuditTypes = map[string]string{
	"subject": "SUBJECT", "message": "MESSAGE", "timezone": "TIMEZONE", "dateFormat": "DATE_FORMAT",
	"redirectUrl": "REDIRECT_URL", "emailId": "EMAIL_ID", "emailReplyTo": "EMAIL_REPLY_TO", "emailSettings": "EMAIL_SETTINGS",
}

// MetaAuditChanges turns documentMeta changes into DOCUMENT_META_UPDATED's {type, from, to}
// entries, with from and to as strings or null.
func MetaAuditChanges(changes []envelope.MetaChange) []map[string]any {
	var out []map[string]any
	asString := func(v any) any {
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			return x
		default:
			b, _ := json.Marshal(x)
			return string(b)
		}
	}
	for _, c := range changes {
		if t, ok := metaAuditTypes[c.Type]; ok {
			out = append(out, map[string]any{"type": t, "from": asString(c.From), "to": asString(c.To)})
		}
	}
	return out
}
