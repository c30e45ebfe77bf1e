package view

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// ISOTime formats t as Documenso does: UTC, milliseconds, "Z".
func ISOTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// ISOTimePtr is ISOTime of *t, or nil when t is nil.
func ISOTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ISOTime(*t)
	return &s
}

// EnvelopeSummary is an envelope as lists show it: without its fields, items and meta.
type EnvelopeSummary struct {
	ID                string                `json:"id"`
	SecondaryID       string                `json:"secondaryId"`
	InternalVersion   int                   `json:"internalVersion"`
	Type              envelope.Type         `json:"type"`
	Status            envelope.Status       `json:"status"`
	Source            envelope.Source       `json:"source"`
	Visibility        envelope.Visibility   `json:"visibility"`
	TemplateType      envelope.TemplateType `json:"templateType"`
	ExternalID        *string               `json:"externalId"`
	CreatedAt         string                `json:"createdAt"`
	UpdatedAt         string                `json:"updatedAt"`
	CompletedAt       *string               `json:"completedAt"`
	DeletedAt         *string               `json:"deletedAt"`
	Title             string                `json:"title"`
	AuthOptions       envelope.AuthOptions  `json:"authOptions"`
	FormValues        map[string]any        `json:"formValues"`
	PublicTitle       string                `json:"publicTitle"`
	PublicDescription string                `json:"publicDescription"`
	UserID            int64                 `json:"userId"`
	TeamID            int64                 `json:"teamId"`
	FolderID          *string               `json:"folderId"`
	TemplateID        *int64                `json:"templateId"`
	User              envelope.UserRef      `json:"user"`
	Team              envelope.TeamRef      `json:"team"`
	Recipients        []Recipient           `json:"recipients"`
}

// Envelope is the whole envelope, as GET /envelope/{id} answers it.
type Envelope struct {
	EnvelopeSummary
	DocumentMeta  envelope.Meta         `json:"documentMeta"`
	Fields        []Field               `json:"fields"`
	EnvelopeItems []envelope.Item       `json:"envelopeItems"`
	DirectLink    *DirectLink           `json:"directLink"`
	Attachments   []envelope.Attachment `json:"attachments"`
}

// DirectLink is a template's direct link.
type DirectLink struct {
	ID                        string `json:"id"`
	Token                     string `json:"token"`
	Enabled                   bool   `json:"enabled"`
	DirectTemplateRecipientID int64  `json:"directTemplateRecipientId"`
}

// Recipient is a recipient; Fields, DocumentID and TemplateID only in single reads and writes.
type Recipient struct {
	ID                   int64                         `json:"id"`
	EnvelopeID           string                        `json:"envelopeId"`
	Email                string                        `json:"email"`
	Name                 string                        `json:"name"`
	Role                 envelope.Role                 `json:"role"`
	Token                string                        `json:"token"`
	ReadStatus           envelope.ReadStatus           `json:"readStatus"`
	SigningStatus        envelope.SigningStatus        `json:"signingStatus"`
	SendStatus           envelope.SendStatus           `json:"sendStatus"`
	SigningOrder         *int                          `json:"signingOrder"`
	SignedAt             *string                       `json:"signedAt"`
	Expired              *string                       `json:"expired"`
	ExpiresAt            *string                       `json:"expiresAt"`
	ExpirationNotifiedAt *string                       `json:"expirationNotifiedAt"`
	DocumentDeletedAt    *string                       `json:"documentDeletedAt"`
	RejectionReason      *string                       `json:"rejectionReason"`
	AuthOptions          envelope.RecipientAuthOptions `json:"authOptions"`
	ExpectedRut          *string                       `json:"expectedRut"`   // beyond Documenso
	DeliveryError        *string                       `json:"deliveryError"` // beyond Documenso
	Fields               []Field                       `json:"fields,omitzero"`
	DocumentID           LegacyID                      `json:"documentId,omitzero"`
	TemplateID           LegacyID                      `json:"templateId,omitzero"`
}

// Field is a field; DocumentID and TemplateID only in single reads and writes.
type Field struct {
	ID             int64               `json:"id"`
	SecondaryID    string              `json:"secondaryId"`
	EnvelopeID     string              `json:"envelopeId"`
	EnvelopeItemID string              `json:"envelopeItemId"`
	Type           envelope.FieldType  `json:"type"`
	RecipientID    int64               `json:"recipientId"`
	Page           int                 `json:"page"`
	PositionX      float64             `json:"positionX"`
	PositionY      float64             `json:"positionY"`
	Width          float64             `json:"width"`
	Height         float64             `json:"height"`
	CustomText     string              `json:"customText"`
	Inserted       bool                `json:"inserted"`
	FieldMeta      *envelope.FieldMeta `json:"fieldMeta"`
	DocumentID     LegacyID            `json:"documentId,omitzero"`
	TemplateID     LegacyID            `json:"templateId,omitzero"`
}

// LegacyID is a documentId or templateId member: absent from list views, a number or null in
// single reads and writes.
type LegacyID struct {
	set bool
	id  *int64
}

// LegacyIDs are e's documentId and templateId members.
func LegacyIDs(e *envelope.Envelope) (doc, tpl LegacyID) {
	return LegacyID{set: true, id: e.DocumentID()}, LegacyID{set: true, id: e.LegacyTemplateID()}
}

// IsZero reports whether l is absent (omitzero).
func (l LegacyID) IsZero() bool { return !l.set }

// MarshalJSON writes l as a number or null.
func (l LegacyID) MarshalJSON() ([]byte, error) {
	if l.id == nil {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatInt(*l.id, 10)), nil
}

// NewEnvelopeSummary is e as lists show it, its signing tokens masked when maskTokens.
func NewEnvelopeSummary(e *envelope.Envelope, maskTokens bool) EnvelopeSummary {
	v := EnvelopeSummary{
		ID: e.ID, SecondaryID: e.SecondaryID, InternalVersion: e.InternalVersion, Type: e.Type, Status: e.Status,
		Source: e.Source, Visibility: e.Visibility, TemplateType: e.TemplateType, ExternalID: e.ExternalID,
		CreatedAt: ISOTime(e.CreatedAt), UpdatedAt: ISOTime(e.UpdatedAt), CompletedAt: ISOTimePtr(e.CompletedAt),
		DeletedAt: ISOTimePtr(e.DeletedAt), Title: e.Title, AuthOptions: e.AuthOptions, FormValues: e.FormValues,
		PublicTitle: e.PublicTitle, PublicDescription: e.PublicDescription, UserID: e.UserID, TeamID: e.TeamID,
		FolderID: e.FolderID, TemplateID: e.TemplateID, User: e.User, Team: e.Team,
		Recipients: make([]Recipient, 0, len(e.Recipients)),
	}
	for _, r := range e.Recipients {
		rv := NewRecipient(r)
		if maskTokens {
			rv.Token = ""
		}
		v.Recipients = append(v.Recipients, rv)
	}
	return v
}

// NewEnvelope is the whole envelope, with its signing tokens masked when maskTokens. Each
// recipient carries its own fields, as the SPEC's envelope reads show them.
func NewEnvelope(e *envelope.Envelope, maskTokens bool) Envelope {
	v := Envelope{
		EnvelopeSummary: NewEnvelopeSummary(e, maskTokens),
		DocumentMeta:    e.Meta,
		Fields:          make([]Field, 0, len(e.Fields)),
		EnvelopeItems:   e.Items,
		Attachments:     e.Attachments,
		DirectLink:      newDirectLink(e.DirectLink),
	}
	for i := range v.Recipients {
		v.Recipients[i].Fields = []Field{}
	}
	for _, f := range e.Fields {
		fv := NewField(f)
		v.Fields = append(v.Fields, fv)
		for i := range v.Recipients {
			if v.Recipients[i].ID == f.RecipientID {
				v.Recipients[i].Fields = append(v.Recipients[i].Fields, fv)
			}
		}
	}
	return v
}

// NewRecipient is r with its signing token; callers mask it where the caller may not see it.
func NewRecipient(r envelope.Recipient) Recipient {
	return Recipient{
		ID: r.ID, EnvelopeID: r.EnvelopeID, Email: r.Email, Name: r.Name, Role: r.Role, Token: r.Token,
		ReadStatus: r.ReadStatus, SigningStatus: r.SigningStatus, SendStatus: r.SendStatus,
		SigningOrder: r.SigningOrder, SignedAt: ISOTimePtr(r.SignedAt), Expired: ISOTimePtr(r.Expired),
		ExpiresAt: ISOTimePtr(r.ExpiresAt), ExpirationNotifiedAt: ISOTimePtr(r.ExpirationNotifiedAt),
		DocumentDeletedAt: ISOTimePtr(r.DocumentDeletedAt), RejectionReason: r.RejectionReason,
		AuthOptions: r.AuthOptions, ExpectedRut: r.ExpectedRUT, DeliveryError: r.DeliveryError,
	}
}

// NewRecipientDetail is a recipient with its fields and the envelope's legacy ids, as single
// reads and writes of recipients answer; its signing token masked when maskToken.
func NewRecipientDetail(e *envelope.Envelope, r envelope.Recipient, maskToken bool) Recipient {
	v := NewRecipient(r)
	if maskToken {
		v.Token = ""
	}
	v.Fields = []Field{}
	for _, f := range e.Fields {
		if f.RecipientID == r.ID {
			v.Fields = append(v.Fields, NewFieldDetail(e, f))
		}
	}
	v.DocumentID, v.TemplateID = LegacyIDs(e)
	return v
}

// NewField is f as lists show it.
func NewField(f envelope.Field) Field {
	return Field{
		ID: f.ID, SecondaryID: f.SecondaryID, EnvelopeID: f.EnvelopeID, EnvelopeItemID: f.EnvelopeItemID,
		Type: f.Type, RecipientID: f.RecipientID, Page: f.Page, PositionX: f.PositionX, PositionY: f.PositionY,
		Width: f.Width, Height: f.Height, CustomText: f.CustomText, Inserted: f.Inserted,
		FieldMeta: envelope.ResponseMeta(f.Type, f.FieldMeta),
	}
}

// NewFieldDetail is f with e's legacy ids, as single reads and writes answer.
func NewFieldDetail(e *envelope.Envelope, f envelope.Field) Field {
	v := NewField(f)
	v.DocumentID, v.TemplateID = LegacyIDs(e)
	return v
}

// WebhookBody is the body of a webhook's request: {event, payload, createdAt, webhookEndpoint}, as
// Documenso sends it, where payload is the envelope when the event happened (NewEnvelope with
// its tokens masked, as the store keeps it) and createdAt the event's time.
type WebhookBody struct {
	Event           envelope.WebhookEvent `json:"event"`
	Payload         json.RawMessage       `json:"payload"`
	CreatedAt       string                `json:"createdAt"`
	WebhookEndpoint string                `json:"webhookEndpoint"`
}

// NewWebhookBody is the body of event, which happened at at with payload, sent to endpoint.
func NewWebhookBody(event envelope.WebhookEvent, payload []byte, at time.Time, endpoint string) WebhookBody {
	return WebhookBody{Event: event, Payload: payload, CreatedAt: ISOTime(at), WebhookEndpoint: endpoint}
}
