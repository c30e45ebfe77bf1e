package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

type useRecipientInput struct {
	ID           *int64  `json:"id"`
	Email        *string `json:"email"`
	Name         *string `json:"name"`
	SigningOrder *int    `json:"signingOrder"`
	// ExpectedRut (beyond Documenso) replaces the template recipient's; null clears it.
	ExpectedRut nullableString `json:"expectedRut"`
}

type usePayload struct {
	EnvelopeID         *string                   `json:"envelopeId"`
	ExternalID         *string                   `json:"externalId"`
	Recipients         []useRecipientInput       `json:"recipients"`
	DistributeDocument bool                      `json:"distributeDocument"`
	CustomDocumentData []envelope.CustomDocument `json:"customDocumentData"`
	FolderID           *string                   `json:"folderId"`
	PrefillFields      []envelope.Prefill        `json:"prefillFields"`
	Override           *struct {
		Title *string `json:"title"`
		envelope.MetaInput
	} `json:"override"`
	Attachments []attachmentInput `json:"attachments"`
	FormValues  map[string]any    `json:"formValues"`
}

// validateUsePayload checks what can be checked without the template.
func validateUsePayload(p *envelope.Problems, in *usePayload) {
	checkEnvelopeID(p, "envelopeId", deref(in.EnvelopeID))
	if in.ExternalID != nil {
		envelope.CheckLength(p, "externalId", *in.ExternalID, 0, envelope.MaxExternalID)
	}
	if in.FolderID != nil {
		envelope.CheckLength(p, "folderId", *in.FolderID, 1, 255)
	}
	for i, r := range in.Recipients {
		path := envelope.Join("recipients", i)
		if r.ID == nil {
			p.Add(envelope.Join(path, "id"), "is required: the template recipient's id")
		}
		if r.Email == nil {
			p.Add(envelope.Join(path, "email"), "is required (an email address or the empty string)")
		} else if *r.Email != "" && !envelope.ValidEmail(*r.Email) {
			p.Add(envelope.Join(path, "email"), "must be an email address or the empty string, got %q", *r.Email)
		}
		if r.Name != nil {
			envelope.CheckLength(p, envelope.Join(path, "name"), *r.Name, 0, envelope.MaxRecipientName)
		}
		if r.SigningOrder != nil && (*r.SigningOrder < 0 || *r.SigningOrder > 1000) {
			p.Add(envelope.Join(path, "signingOrder"), "must be between 0 and 1000, got %d", *r.SigningOrder)
		}
		expectedRUT(p, envelope.Join(path, "expectedRut"), r.ExpectedRut)
	}
	for i, f := range in.PrefillFields {
		if f.ID == nil {
			p.Add(envelope.Join(envelope.Join("prefillFields", i), "id"), "is required: the template field's id")
		}
	}
	checkFormValues(p, "formValues", in.FormValues)
	if in.Override != nil && in.Override.Title != nil {
		envelope.CheckLength(p, "override.title", *in.Override.Title, 1, envelope.MaxTitle)
	}
}

// useTemplate answers POST /envelope/use: a DOCUMENT made from a TEMPLATE envelope, with the
// caller's recipients, prefilled values, overrides and replacement files; distributed at once
// when asked. The template is never changed.
func (s *Server) useTemplate(w http.ResponseWriter, r *http.Request) {
	var in usePayload
	files, err := readMultipart(r, &in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	validateUsePayload(&p, &in)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	tpl, err := s.store.GetEnvelope(r.Context(), scope(r), *in.EnvelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if tpl.Type != envelope.TypeTemplate {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "Envelope %s is a %s, not a TEMPLATE", tpl.ID, tpl.Type))
		return
	}
	ne, err := s.documentFromTemplate(r, &p, tpl, &in, files)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.CreateFromTemplate(r.Context(), s.editor(r), s.editChecks(), ne, in.DistributeDocument)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.DistributeDocument {
		if err := s.flows.Distribute(r.Context(), e.ID, e.TeamID); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": e.ID, "recipients": s.distributeRecipientsView(e)})
}

// documentFromTemplate builds the new document: the template's items (or their replacements),
// recipients (with the caller's emails, names and orders), fields (with prefills), meta (with
// overrides) and attachments. Input problems go to p; missing files or items are errors.
func (s *Server) documentFromTemplate(r *http.Request, p *envelope.Problems, tpl *envelope.Envelope, in *usePayload, files []uploadedFile) (persistence.NewEnvelope, error) {
	var ne persistence.NewEnvelope
	items, err := s.store.ItemDocuments(r.Context(), tpl.ID)
	if err != nil {
		return ne, err
	}
	itemIDs := make([]string, len(items))
	for i, it := range items {
		itemIDs[i] = it.ID
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	matches, err := envelope.MatchFiles(p, in.CustomDocumentData, names, itemIDs)
	if err != nil {
		return ne, err
	}
	replacements, err := s.inspectFiles(r.Context(), p, files)
	if err != nil {
		return ne, err
	}
	itemIndex := map[string]int{}
	for i, it := range items {
		itemIndex[it.ID] = i
		doc := it.Document
		if fi, ok := matches[it.ID]; ok && fi < len(replacements) && replacements[fi].Pages != nil {
			if !envelope.SameLayout(pageLayout(it.Pages), pageLayout(replacements[fi].Pages)) {
				p.Add(envelope.Join("customDocumentData", customIndex(in.CustomDocumentData, it.ID)),
					"the file for item %s must keep the template's page layout (%d pages of the same sizes), since fields keep their places", it.ID, len(it.Pages))
			}
			doc = replacements[fi]
		}
		ne.Items = append(ne.Items, doc)
	}

	e := persistence.TemplateDocument(tpl)
	e.ExternalID, e.FolderID = in.ExternalID, in.FolderID
	if in.FormValues != nil {
		e.FormValues = in.FormValues
	}
	if o := in.Override; o != nil {
		if o.Title != nil {
			e.Title = *o.Title
		}
		o.MetaInput.Apply(p, "override", &e.Meta)
	}
	ne.Envelope = e

	uses := map[int64]persistence.TemplateRecipientUse{}
	for i, rin := range in.Recipients {
		if rin.ID == nil {
			continue
		}
		path := envelope.Join("recipients", i)
		if tpl.Recipient(*rin.ID) == nil {
			p.Add(envelope.Join(path, "id"), "recipient %d is not in template %s", *rin.ID, tpl.ID)
			continue
		}
		if first, twice := uses[*rin.ID]; twice {
			path = first.Path // the last values, named where they were first given
		}
		u := persistence.TemplateRecipientUse{Path: path, Email: rin.Email, Name: rin.Name, SigningOrder: rin.SigningOrder, SetExpectedRUT: rin.ExpectedRut.Set}
		if rin.ExpectedRut.Set {
			u.ExpectedRUT = expectedRUT(&envelope.Problems{}, "", rin.ExpectedRut) // checked by validateUsePayload
		}
		uses[*rin.ID] = u
	}
	prefills := map[int64]persistence.TemplatePrefillUse{}
	for i, pf := range in.PrefillFields {
		if pf.ID == nil {
			continue
		}
		path := envelope.Join("prefillFields", i)
		found := false
		for _, f := range tpl.Fields {
			found = found || f.ID == *pf.ID
		}
		if !found {
			p.Add(envelope.Join(path, "id"), "field %d is not in template %s", *pf.ID, tpl.ID)
			continue
		}
		if first, twice := prefills[*pf.ID]; twice {
			path = first.Path // the last value, named where it was first given
		}
		prefills[*pf.ID] = persistence.TemplatePrefillUse{Path: path, Prefill: pf}
	}
	ne.Recipients = persistence.TemplateRecipients(p, tpl, ne.Envelope.Meta, itemIndex, uses, prefills)
	ne.Attachments = append(ne.Attachments, tpl.Attachments...)
	for i, ain := range in.Attachments {
		ne.Attachments = append(ne.Attachments, checkAttachment(p, envelope.Join("attachments", i), ain))
	}
	return ne, nil
}

func pageLayout(pages []persistence.PageSize) [][2]float64 {
	out := make([][2]float64, len(pages))
	for i, pg := range pages {
		out[i] = [2]float64{pg.Width, pg.Height}
	}
	return out
}

func customIndex(list []envelope.CustomDocument, itemID string) int {
	for i, c := range list {
		if c.EnvelopeItemID == itemID {
			return i
		}
	}
	return 0
}
