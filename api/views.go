package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// The view types are the JSON shapes of the API, as Documenso's SDK parses them. Converters named
// after them turn domain values into views; nothing else is written to a response.

// isoTime formats t as Documenso does: UTC, milliseconds, "Z".
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func isoTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := isoTime(*t)
	return &s
}

type envelopeSummaryView struct {
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
	Recipients        []recipientView       `json:"recipients"`
}

type envelopeView struct {
	envelopeSummaryView
	DocumentMeta  envelope.Meta         `json:"documentMeta"`
	Fields        []fieldView           `json:"fields"`
	EnvelopeItems []envelope.Item       `json:"envelopeItems"`
	DirectLink    *directLinkView       `json:"directLink"`
	Attachments   []envelope.Attachment `json:"attachments"`
}

type directLinkView struct {
	ID                        string `json:"id"`
	Token                     string `json:"token"`
	Enabled                   bool   `json:"enabled"`
	DirectTemplateRecipientID int64  `json:"directTemplateRecipientId"`
}

type recipientView struct {
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
	Fields               []fieldView                   `json:"fields,omitzero"`
	DocumentID           legacyID                      `json:"documentId,omitzero"`
	TemplateID           legacyID                      `json:"templateId,omitzero"`
}

type fieldView struct {
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
	DocumentID     legacyID            `json:"documentId,omitzero"`
	TemplateID     legacyID            `json:"templateId,omitzero"`
}

// legacyID is a documentId or templateId member: absent from list views, a number or null in
// single reads and writes.
type legacyID struct {
	set bool
	id  *int64
}

func legacyIDs(e *envelope.Envelope) (doc, tpl legacyID) {
	return legacyID{set: true, id: e.DocumentID()}, legacyID{set: true, id: e.LegacyTemplateID()}
}

func (l legacyID) IsZero() bool { return !l.set }

func (l legacyID) MarshalJSON() ([]byte, error) {
	if l.id == nil {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatInt(*l.id, 10)), nil
}

func newEnvelopeSummaryView(e *envelope.Envelope, maskTokens bool) envelopeSummaryView {
	v := envelopeSummaryView{
		ID: e.ID, SecondaryID: e.SecondaryID, InternalVersion: e.InternalVersion, Type: e.Type, Status: e.Status,
		Source: e.Source, Visibility: e.Visibility, TemplateType: e.TemplateType, ExternalID: e.ExternalID,
		CreatedAt: isoTime(e.CreatedAt), UpdatedAt: isoTime(e.UpdatedAt), CompletedAt: isoTimePtr(e.CompletedAt),
		DeletedAt: isoTimePtr(e.DeletedAt), Title: e.Title, AuthOptions: e.AuthOptions, FormValues: e.FormValues,
		PublicTitle: e.PublicTitle, PublicDescription: e.PublicDescription, UserID: e.UserID, TeamID: e.TeamID,
		FolderID: e.FolderID, TemplateID: e.TemplateID, User: e.User, Team: e.Team,
		Recipients: make([]recipientView, 0, len(e.Recipients)),
	}
	for _, r := range e.Recipients {
		rv := newRecipientView(r)
		if maskTokens {
			rv.Token = ""
		}
		v.Recipients = append(v.Recipients, rv)
	}
	return v
}

// tokensHidden reports whether the caller of r gets the recipients' signing tokens of e masked
// (the empty string, as Documenso masks them): everyone but those who may manage e
// (envelope.MayManage) does.
func tokensHidden(r *http.Request, e *envelope.Envelope) bool { return mayManage(r, e.Owned()) != nil }

// newEnvelopeView is the whole envelope, with its signing tokens masked when maskTokens.
func newEnvelopeView(e *envelope.Envelope, maskTokens bool) envelopeView {
	v := envelopeView{
		envelopeSummaryView: newEnvelopeSummaryView(e, maskTokens),
		DocumentMeta:        e.Meta,
		Fields:              make([]fieldView, 0, len(e.Fields)),
		EnvelopeItems:       e.Items,
		Attachments:         e.Attachments,
	}
	for _, f := range e.Fields {
		v.Fields = append(v.Fields, newFieldView(f))
	}
	return v
}

func newRecipientView(r envelope.Recipient) recipientView {
	return recipientView{
		ID: r.ID, EnvelopeID: r.EnvelopeID, Email: r.Email, Name: r.Name, Role: r.Role, Token: r.Token,
		ReadStatus: r.ReadStatus, SigningStatus: r.SigningStatus, SendStatus: r.SendStatus,
		SigningOrder: r.SigningOrder, SignedAt: isoTimePtr(r.SignedAt), Expired: isoTimePtr(r.Expired),
		ExpiresAt: isoTimePtr(r.ExpiresAt), ExpirationNotifiedAt: isoTimePtr(r.ExpirationNotifiedAt),
		DocumentDeletedAt: isoTimePtr(r.DocumentDeletedAt), RejectionReason: r.RejectionReason,
		AuthOptions: r.AuthOptions, ExpectedRut: r.ExpectedRUT, DeliveryError: r.DeliveryError,
	}
}

// newRecipientDetailView is a recipient with its fields and the envelope's legacy ids, as single
// reads and writes of recipients answer; its signing token masked when maskToken.
func newRecipientDetailView(e *envelope.Envelope, r envelope.Recipient, maskToken bool) recipientView {
	v := newRecipientView(r)
	if maskToken {
		v.Token = ""
	}
	v.Fields = []fieldView{}
	for _, f := range e.Fields {
		if f.RecipientID == r.ID {
			v.Fields = append(v.Fields, newFieldDetailView(e, f))
		}
	}
	v.DocumentID, v.TemplateID = legacyIDs(e)
	return v
}

func newFieldView(f envelope.Field) fieldView {
	return fieldView{
		ID: f.ID, SecondaryID: f.SecondaryID, EnvelopeID: f.EnvelopeID, EnvelopeItemID: f.EnvelopeItemID,
		Type: f.Type, RecipientID: f.RecipientID, Page: f.Page, PositionX: f.PositionX, PositionY: f.PositionY,
		Width: f.Width, Height: f.Height, CustomText: f.CustomText, Inserted: f.Inserted,
		FieldMeta: envelope.ResponseMeta(f.Type, f.FieldMeta),
	}
}

func newFieldDetailView(e *envelope.Envelope, f envelope.Field) fieldView {
	v := newFieldView(f)
	v.DocumentID, v.TemplateID = legacyIDs(e)
	return v
}
