package persistence

import "github.com/sobre-sign/sobre/envelope"

// TemplateRecipientUse is what a use of a template sets on one of the template's recipients;
// a nil member keeps the template's. Path is where the request named it, for problems.
type TemplateRecipientUse struct {
	Path         string
	Email        *string
	Name         *string
	SigningOrder *int
	// ExpectedRUT replaces the template recipient's when SetExpectedRUT (nil clears it).
	ExpectedRUT    *string
	SetExpectedRUT bool
}

// TemplatePrefillUse is a prefill of a template field; Path is where the request gave it.
type TemplatePrefillUse struct {
	Path    string
	Prefill envelope.Prefill
}

// TemplateDocument is the DOCUMENT a use of template tpl makes, before what the caller
// overrides: its type, source, title, visibility, authentication, form values and meta.
func TemplateDocument(tpl *envelope.Envelope) envelope.Envelope {
	return envelope.Envelope{
		Type: envelope.TypeDocument, Source: envelope.SourceTemplate, TemplateID: &tpl.LegacyID,
		Title: tpl.Title, Visibility: tpl.Visibility, TemplateType: envelope.TemplateTypePrivate,
		AuthOptions: tpl.AuthOptions, FormValues: tpl.FormValues, Meta: tpl.Meta,
	}
}

// TemplateRecipients are the recipients of a document made from template tpl, in the
// template's order, each with its fields: the template's recipient with what uses (by template
// recipient id) sets, and each field with its prefill (by template field id) applied under meta,
// the new document's. itemIndex gives each template item's index in the new document. Bad
// values go to p at their paths.
func TemplateRecipients(p *envelope.Problems, tpl *envelope.Envelope, meta envelope.Meta, itemIndex map[string]int,
	uses map[int64]TemplateRecipientUse, prefills map[int64]TemplatePrefillUse) []NewRecipient {
	out := make([]NewRecipient, 0, len(tpl.Recipients))
	for _, tr := range tpl.Recipients {
		rec := envelope.Recipient{Email: tr.Email, Name: tr.Name, Role: tr.Role, SigningOrder: tr.SigningOrder, AuthOptions: tr.AuthOptions,
			ExpectedRUT: tr.ExpectedRUT}
		u, used := uses[tr.ID]
		if used {
			if u.Email != nil {
				rec.Email = *u.Email
			}
			if u.Name != nil {
				rec.Name = *u.Name
			}
			if u.SigningOrder != nil {
				rec.SigningOrder = u.SigningOrder
			}
			if u.SetExpectedRUT {
				rec.ExpectedRUT = u.ExpectedRUT
			}
		}
		nr := NewRecipient{Recipient: rec}
		for _, f := range tpl.Fields {
			if f.RecipientID != tr.ID {
				continue
			}
			nf := f
			nf.ID, nf.EnvelopeItemID, nf.SecondaryID = 0, "", ""
			if pf, ok := prefills[f.ID]; ok {
				nf = envelope.ApplyPrefill(p, pf.Path, nf, pf.Prefill, meta)
			}
			nr.Fields = append(nr.Fields, NewField{Field: nf, Item: itemIndex[f.EnvelopeItemID]})
		}
		if used && u.SetExpectedRUT {
			// Checked against the template's auth and fields, as the recipient it becomes.
			asTemplate := rec
			asTemplate.ID = tr.ID
			envelope.CheckExpectedRUT(p, envelope.Join(u.Path, "expectedRut"), asTemplate, tpl.AuthOptions, tpl.Fields)
		}
		out = append(out, nr)
	}
	return out
}

// BulkDocument is the DOCUMENT row makes from template tpl (with its items' documents, in
// order), as POST /envelope/use makes one: the row's emails and names (an empty one keeps the
// template's), prefills and external id; the template's attachments. Bad values go to p.
func BulkDocument(p *envelope.Problems, tpl *envelope.Envelope, items []ItemDocument, row envelope.BulkRow) NewEnvelope {
	var ne NewEnvelope
	itemIndex := map[string]int{}
	for i, it := range items {
		itemIndex[it.ID] = i
		ne.Items = append(ne.Items, it.Document)
	}
	ne.Envelope = TemplateDocument(tpl)
	ne.Envelope.ExternalID = row.ExternalID
	uses := map[int64]TemplateRecipientUse{}
	for j, r := range row.Recipients {
		u := TemplateRecipientUse{Path: envelope.Join("recipients", j)}
		if r.Email != "" {
			u.Email = &r.Email
		}
		if r.Name != "" {
			u.Name = &r.Name
		}
		uses[r.ID] = u
	}
	prefills := map[int64]TemplatePrefillUse{}
	for j, pf := range row.PrefillFields {
		if pf.ID != nil {
			prefills[*pf.ID] = TemplatePrefillUse{Path: envelope.Join("prefillFields", j), Prefill: pf}
		}
	}
	ne.Recipients = TemplateRecipients(p, tpl, ne.Envelope.Meta, itemIndex, uses, prefills)
	ne.Attachments = append(ne.Attachments, tpl.Attachments...)
	return ne
}
