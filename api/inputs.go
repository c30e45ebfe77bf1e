package api

import (
	"encoding/json"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The input types are the JSON shapes requests carry. Pointers tell an absent member from a
// zero one, so that "required" can be checked and every problem reported with its path.

type recipientInput struct {
	ID           *int64   `json:"id"`
	Email        *string  `json:"email"`
	Name         *string  `json:"name"`
	Role         *string  `json:"role"`
	SigningOrder *int     `json:"signingOrder"`
	AccessAuth   []string `json:"accessAuth"`
	ActionAuth   []string `json:"actionAuth"`
	// ExpectedRut is beyond Documenso: the RUN the signer must prove.
	ExpectedRut nullableString `json:"expectedRut"`
	Fields      []fieldInput   `json:"fields"`
}

// nullableString is a member that may be absent, null or a string: an update leaves an absent
// one as it is, and clears a null (or empty) one.
type nullableString struct {
	Set   bool
	Value *string
}

func (n *nullableString) UnmarshalJSON(b []byte) error {
	n.Set, n.Value = true, nil
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	n.Value = &s
	return nil
}

// expectedRUT is the normal form of an expectedRut input: nil when null or empty. A RUT that
// does not parse is a problem at path.
func expectedRUT(p *envelope.Problems, path string, in nullableString) *string {
	if in.Value == nil || strings.TrimSpace(*in.Value) == "" {
		return nil
	}
	norm, err := envelope.NormalizeRUT(*in.Value)
	if err != nil {
		p.Add(path, "must be a RUN like 12.345.678-5: %v", err)
		return nil
	}
	return &norm
}

// fieldInput is a field of a request: a field of a recipient of a create also names its file
// (Identifier: its name or its index among the files).
type fieldInput struct {
	envelope.FieldInput
	Identifier any `json:"identifier"`
}

type attachmentInput struct {
	Label *string `json:"label"`
	Data  *string `json:"data"`
	Type  *string `json:"type"`
}

// checkRecipient validates the person members of a recipient input. full requires email, name
// and role (create); otherwise absent members are left alone (update).
func checkRecipient(p *envelope.Problems, path string, in recipientInput, full bool) {
	if in.Email == nil {
		if full {
			p.Add(envelope.Join(path, "email"), "is required (an email address or the empty string)")
		}
	} else if *in.Email != "" && !envelope.ValidEmail(*in.Email) {
		p.Add(envelope.Join(path, "email"), "must be an email address or the empty string, got %q", *in.Email)
	}
	if in.Name == nil {
		if full {
			p.Add(envelope.Join(path, "name"), "is required")
		}
	} else {
		envelope.CheckLength(p, envelope.Join(path, "name"), *in.Name, 0, envelope.MaxRecipientName)
	}
	if in.Role == nil {
		if full {
			p.Add(envelope.Join(path, "role"), "is required: one of %v", envelope.Roles())
		}
	} else if !envelope.OneOf(envelope.Role(*in.Role), envelope.Roles()) {
		p.Add(envelope.Join(path, "role"), "must be one of %v, got %q", envelope.Roles(), *in.Role)
	}
	if in.SigningOrder != nil && (*in.SigningOrder < 0 || *in.SigningOrder > 1000) {
		p.Add(envelope.Join(path, "signingOrder"), "must be between 0 and 1000, got %d", *in.SigningOrder)
	}
	envelope.CheckEnums(p, envelope.Join(path, "accessAuth"), toType[envelope.AccessAuth](in.AccessAuth), envelope.AccessAuths())
	envelope.CheckEnums(p, envelope.Join(path, "actionAuth"), toType[envelope.ActionAuth](in.ActionAuth), envelope.RecipientActionAuths())
	expectedRUT(p, envelope.Join(path, "expectedRut"), in.ExpectedRut)
	if in.Email != nil && *in.Email == "" && (len(in.AccessAuth) > 0 || len(in.ActionAuth) > 0) {
		p.Add(envelope.Join(path, "email"), "is required when the recipient has access or action authentication")
	}
}

// recipientFrom builds the domain recipient of a validated create input.
func recipientFrom(in recipientInput) envelope.Recipient {
	r := envelope.Recipient{
		Email:        strings.TrimSpace(deref(in.Email)),
		Name:         deref(in.Name),
		Role:         envelope.Role(deref(in.Role)),
		SigningOrder: in.SigningOrder,
	}
	r.AuthOptions.AccessAuth = dedupe(toType[envelope.AccessAuth](in.AccessAuth))
	r.AuthOptions.ActionAuth = dedupe(toType[envelope.ActionAuth](in.ActionAuth))
	r.ExpectedRUT = expectedRUT(&envelope.Problems{}, "", in.ExpectedRut) // checked by checkRecipient
	return r
}

// recipientPatch builds the store's change of one recipient from a validated update input.
func recipientPatch(in recipientInput) persistence.RecipientPatch {
	pt := persistence.RecipientPatch{ID: deref(in.ID), Email: in.Email, Name: in.Name, SigningOrder: in.SigningOrder}
	if in.Role != nil {
		role := envelope.Role(*in.Role)
		pt.Role = &role
	}
	if in.AccessAuth != nil {
		v := dedupe(toType[envelope.AccessAuth](in.AccessAuth))
		pt.AccessAuth = &v
	}
	if in.ActionAuth != nil {
		v := dedupe(toType[envelope.ActionAuth](in.ActionAuth))
		pt.ActionAuth = &v
	}
	if in.ExpectedRut.Set {
		v := expectedRUT(&envelope.Problems{}, "", in.ExpectedRut) // checked by checkRecipient
		pt.ExpectedRUT = envelope.Optional[string]{Set: true, Null: v == nil, Value: deref(v)}
	}
	return pt
}

// checkAttachmentData validates the attachment a create or update request holds at data, which
// is required.
func checkAttachmentData(p *envelope.Problems, in *attachmentInput) envelope.Attachment {
	if in == nil {
		p.Add("data", "is required: {label, data}")
		return envelope.Attachment{}
	}
	return checkAttachment(p, "data", *in)
}

// checkAttachment validates an attachment input.
func checkAttachment(p *envelope.Problems, path string, in attachmentInput) envelope.Attachment {
	var a envelope.Attachment
	if in.Label == nil {
		p.Add(envelope.Join(path, "label"), "is required")
	} else {
		envelope.CheckLength(p, envelope.Join(path, "label"), *in.Label, 1, envelope.MaxLabel)
		a.Label = *in.Label
	}
	if in.Data == nil {
		p.Add(envelope.Join(path, "data"), "is required: a URL")
	} else {
		envelope.CheckHTTPURL(p, envelope.Join(path, "data"), *in.Data)
		envelope.CheckLength(p, envelope.Join(path, "data"), *in.Data, 1, envelope.MaxAttachmentData)
		a.Data = *in.Data
	}
	a.Type = envelope.AttachmentTypeLink
	if in.Type != nil && *in.Type != string(envelope.AttachmentTypeLink) {
		p.Add(envelope.Join(path, "type"), `must be "link", got %q`, *in.Type)
	}
	return a
}

func toType[T ~string](in []string) []T {
	out := make([]T, len(in))
	for i, s := range in {
		out[i] = T(s)
	}
	return out
}

func dedupe[T comparable](in []T) []T {
	out := make([]T, 0, len(in))
	seen := map[T]bool{}
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
