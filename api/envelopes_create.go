package api

import (
	"net/http"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

type createPayload struct {
	Title                  *string             `json:"title"`
	Type                   *string             `json:"type"`
	DelegatedDocumentOwner *string             `json:"delegatedDocumentOwner"`
	ExternalID             *string             `json:"externalId"`
	Visibility             *string             `json:"visibility"`
	GlobalAccessAuth       []string            `json:"globalAccessAuth"`
	GlobalActionAuth       []string            `json:"globalActionAuth"`
	FormValues             map[string]any      `json:"formValues"`
	FolderID               *string             `json:"folderId"`
	Recipients             []recipientInput    `json:"recipients"`
	Meta                   *envelope.MetaInput `json:"meta"`
	Attachments            []attachmentInput   `json:"attachments"`
}

// createEnvelope answers POST /envelope/create.
func (s *Server) createEnvelope(w http.ResponseWriter, r *http.Request) {
	var in createPayload
	files, err := readMultipart(r, &in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(in.Recipients) > envelope.MaxRecipients {
		s.writeError(w, r, envelope.Errorf(envelope.CodeRecipientLimit, "An envelope has at most %d recipients, got %d", envelope.MaxRecipients, len(in.Recipients)))
		return
	}
	var p envelope.Problems
	// Files are optional, as in Documenso: documents may be added later with item/create-many.
	docs, err := s.inspectFiles(r.Context(), &p, files)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ne := s.validateCreate(&p, in, files, docs)
	caller := member(r)
	owner := caller
	if email := deref(in.DelegatedDocumentOwner); email != "" && envelope.ValidEmail(email) {
		// The role first: a caller who may not act for a colleague learns nothing of who is one.
		if !strings.EqualFold(email, caller.UserEmail) {
			if err := envelope.MayActFor(caller, envelope.Member{TeamID: caller.TeamID}); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		m, err := s.store.FindMemberByEmail(r.Context(), caller.TeamID, email)
		switch {
		case envelope.IsNotFound(err):
			p.Add("delegatedDocumentOwner", "%q is not a member of this team", email)
		case err != nil:
			s.writeError(w, r, err)
			return
		default:
			owner = m
		}
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := envelope.MayActFor(caller, owner); err != nil {
		s.writeError(w, r, err) // only a MANAGER or an ADMIN creates envelopes for a colleague
		return
	}
	if !caller.Role.CanSee(ne.Envelope.Visibility) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeForbidden, "Your team role %s may not create envelopes with visibility %s", caller.Role, ne.Envelope.Visibility))
		return
	}
	id, err := s.store.CreateDraft(r.Context(), s.editor(r), owner, ne)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id})
}

// validateCreate checks a create payload and its files, recording every problem, and returns
// what to write. It reads nothing from the store.
func (s *Server) validateCreate(p *envelope.Problems, in createPayload, files []uploadedFile, docs []persistence.Document) persistence.NewEnvelope {
	e := envelope.Envelope{
		Source:       envelope.SourceDocument,
		Visibility:   envelope.VisibilityEveryone,
		TemplateType: envelope.TemplateTypePrivate,
		FolderID:     in.FolderID,
		Meta:         envelope.DefaultMeta(""),
		FormValues:   in.FormValues,
	}
	if in.Title == nil {
		p.Add("title", "is required")
	} else {
		envelope.CheckLength(p, "title", *in.Title, 1, envelope.MaxTitle)
		e.Title = *in.Title
	}
	switch {
	case in.Type == nil:
		p.Add("type", "is required: DOCUMENT or TEMPLATE")
	case !envelope.OneOf(envelope.Type(*in.Type), envelope.Types()):
		p.Add("type", "must be one of %v, got %q", envelope.Types(), *in.Type)
	default:
		e.Type = envelope.Type(*in.Type)
	}
	if in.ExternalID != nil {
		envelope.CheckLength(p, "externalId", *in.ExternalID, 0, envelope.MaxExternalID)
		e.ExternalID = in.ExternalID
	}
	if in.Visibility != nil {
		v := envelope.Visibility(*in.Visibility)
		if !envelope.OneOf(v, envelope.Visibilities()) {
			p.Add("visibility", "must be one of %v, got %q", envelope.Visibilities(), *in.Visibility)
		} else {
			e.Visibility = v
		}
	}
	e.AuthOptions.GlobalAccessAuth = envelope.CheckEnums(p, "globalAccessAuth", toType[envelope.AccessAuth](in.GlobalAccessAuth), envelope.AccessAuths())
	e.AuthOptions.GlobalActionAuth = envelope.CheckEnums(p, "globalActionAuth", toType[envelope.ActionAuth](in.GlobalActionAuth), envelope.GlobalActionAuths())
	checkFormValues(p, "formValues", in.FormValues)
	if in.FolderID != nil {
		envelope.CheckLength(p, "folderId", *in.FolderID, 1, 255)
	}
	in.Meta.Apply(p, "meta", &e.Meta)
	if email := deref(in.DelegatedDocumentOwner); email != "" && !envelope.ValidEmail(email) {
		p.Add("delegatedDocumentOwner", "must be an email address, got %q", email)
	}

	recipients := make([]persistence.NewRecipient, 0, len(in.Recipients))
	for i, rin := range in.Recipients {
		rp := envelope.Join("recipients", i)
		checkRecipient(p, rp, rin, true)
		nr := persistence.NewRecipient{Recipient: recipientFrom(rin)}
		for j, fin := range rin.Fields {
			fp := envelope.Join(envelope.Join(rp, "fields"), j)
			item := itemIndex(p, envelope.Join(fp, "identifier"), fin.Identifier, files)
			if len(files) == 0 {
				p.Add(fp, "a field needs a document to sit on: upload a file with the envelope")
				item = -1
			}
			pages := 0
			if item >= 0 && item < len(docs) {
				pages = len(docs[item].Pages)
			}
			f, ok := envelope.CheckFieldInput(p, fp, fin.FieldInput, pages, true)
			if ok && !nr.Role.FillsFields() {
				p.Add(envelope.Join(fp, "type"), "a %s recipient fills no fields", nr.Role)
			}
			nr.Fields = append(nr.Fields, persistence.NewField{Field: f, Item: max(item, 0)})
		}
		var fields []envelope.Field
		for _, nf := range nr.Fields {
			fields = append(fields, nf.Field)
		}
		envelope.CheckExpectedRUT(p, envelope.Join(rp, "expectedRut"), nr.Recipient, e.AuthOptions, fields)
		recipients = append(recipients, nr)
	}
	var attachments []envelope.Attachment
	for i, ain := range in.Attachments {
		attachments = append(attachments, checkAttachment(p, envelope.Join("attachments", i), ain))
	}
	return persistence.NewEnvelope{Envelope: e, Items: docs, Recipients: recipients, Attachments: attachments}
}

// checkFormValues checks that form values are strings, numbers or booleans under sane keys.
func checkFormValues(p *envelope.Problems, path string, values map[string]any) {
	if len(values) > envelope.MaxFormValues {
		p.Add(path, "may hold at most %d values, got %d", envelope.MaxFormValues, len(values))
		return
	}
	for k, v := range values {
		kp := envelope.Join(path, k)
		if k == "" || len(k) > 255 {
			p.Add(kp, "keys must be 1 to 255 characters")
		}
		switch v.(type) {
		case string, float64, bool:
		default:
			p.Add(kp, "must be a string, a number or a boolean")
		}
	}
}

// actor is the audit actor of the request's caller.
func (s *Server) actor(r *http.Request) envelope.Actor {
	return envelope.MemberActor(member(r), s.clientIP(r), r.UserAgent())
}
