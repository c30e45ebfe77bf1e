package envelope

import (
	"encoding/json"
	"time"
)

// Duration is a calendar length: an amount of days, weeks, months or years.
type Duration struct {
	Unit   DurationUnit `json:"unit"`
	Amount int          `json:"amount"`
}

// AddTo returns t moved forward by d, in calendar terms (a month from 31 January is 3 March,
// as time.AddDate does).
func (d Duration) AddTo(t time.Time) time.Time {
	switch d.Unit {
	case UnitDay:
		return t.AddDate(0, 0, d.Amount)
	case UnitWeek:
		return t.AddDate(0, 0, 7*d.Amount)
	case UnitMonth:
		return t.AddDate(0, d.Amount, 0)
	case UnitYear:
		return t.AddDate(d.Amount, 0, 0)
	}
	return t
}

// ExpirationPeriod is how long recipients have to act after they are sent the envelope, or
// Disabled for no limit. Its JSON is {"unit", "amount"} or {"disabled": true}, as Documenso's.
type ExpirationPeriod struct {
	Duration
	Disabled bool
}

// MarshalJSON writes one of the two shapes.
func (p ExpirationPeriod) MarshalJSON() ([]byte, error) {
	if p.Disabled {
		return []byte(`{"disabled":true}`), nil
	}
	return json.Marshal(p.Duration)
}

// UnmarshalJSON reads one of the two shapes.
func (p *ExpirationPeriod) UnmarshalJSON(b []byte) error {
	var raw struct {
		Unit     DurationUnit `json:"unit"`
		Amount   int          `json:"amount"`
		Disabled bool         `json:"disabled"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = ExpirationPeriod{Duration: Duration{Unit: raw.Unit, Amount: raw.Amount}, Disabled: raw.Disabled}
	return nil
}

// ReminderSettings say when recipients who have not acted are reminded: first sendAfter their
// signing request, then every repeatEvery.
type ReminderSettings struct {
	SendAfter   Duration `json:"sendAfter"`
	RepeatEvery Duration `json:"repeatEvery"`
}

// EmailSettings switch each kind of mail on or off. Every one is on by default.
type EmailSettings struct {
	RecipientSigningRequest bool `json:"recipientSigningRequest"`
	RecipientRemoved        bool `json:"recipientRemoved"`
	RecipientSigned         bool `json:"recipientSigned"`
	DocumentPending         bool `json:"documentPending"`
	DocumentCompleted       bool `json:"documentCompleted"`
	DocumentDeleted         bool `json:"documentDeleted"`
	OwnerDocumentCompleted  bool `json:"ownerDocumentCompleted"`
	OwnerRecipientExpired   bool `json:"ownerRecipientExpired"`
	OwnerDocumentCreated    bool `json:"ownerDocumentCreated"`
}

// DefaultEmailSettings has every mail on.
func DefaultEmailSettings() EmailSettings {
	return EmailSettings{true, true, true, true, true, true, true, true, true}
}

// Meta is an envelope's documentMeta: how it is distributed, signed and mailed.
type Meta struct {
	ID                       string             `json:"id"`
	SigningOrder             SigningOrder       `json:"signingOrder"`
	DistributionMethod       DistributionMethod `json:"distributionMethod"`
	Subject                  *string            `json:"subject"`
	Message                  *string            `json:"message"`
	Timezone                 *string            `json:"timezone"`
	DateFormat               *string            `json:"dateFormat"`
	RedirectURL              *string            `json:"redirectUrl"`
	TypedSignatureEnabled    bool               `json:"typedSignatureEnabled"`
	UploadSignatureEnabled   bool               `json:"uploadSignatureEnabled"`
	DrawSignatureEnabled     bool               `json:"drawSignatureEnabled"`
	AllowDictateNextSigner   bool               `json:"allowDictateNextSigner"`
	Language                 Language           `json:"language"`
	EmailSettings            EmailSettings      `json:"emailSettings"`
	EmailID                  *string            `json:"emailId"`
	EmailReplyTo             *string            `json:"emailReplyTo"`
	EnvelopeExpirationPeriod *ExpirationPeriod  `json:"envelopeExpirationPeriod"`
	ReminderSettings         *ReminderSettings  `json:"reminderSettings"`
}

// Default values of documentMeta, as Documenso's.
const (
	DefaultDateFormat = "yyyy-MM-dd hh:mm a"
	DefaultTimezone   = "Etc/UTC"
)

// DefaultMeta returns the documentMeta of a new envelope before the caller's values apply.
func DefaultMeta(id string) Meta {
	df, tz := DefaultDateFormat, DefaultTimezone
	return Meta{
		ID:                     id,
		SigningOrder:           SigningOrderParallel,
		DistributionMethod:     DistributionEmail,
		Timezone:               &tz,
		DateFormat:             &df,
		TypedSignatureEnabled:  true,
		UploadSignatureEnabled: true,
		DrawSignatureEnabled:   true,
		Language:               LanguageEnglish,
		EmailSettings:          DefaultEmailSettings(),
	}
}

// AuthOptions are an envelope's authentication defaults for every recipient.
type AuthOptions struct {
	GlobalAccessAuth []AccessAuth `json:"globalAccessAuth"`
	GlobalActionAuth []ActionAuth `json:"globalActionAuth"`
}

// RecipientAuthOptions are one recipient's authentication requirements.
type RecipientAuthOptions struct {
	AccessAuth []AccessAuth `json:"accessAuth"`
	ActionAuth []ActionAuth `json:"actionAuth"`
}

// Item is one PDF of an envelope.
type Item struct {
	ID             string `json:"id"`
	EnvelopeID     string `json:"envelopeId"`
	DocumentDataID string `json:"documentDataId"`
	Title          string `json:"title"`
	Order          int    `json:"order"`
}

// Recipient is a person involved in an envelope.
type Recipient struct {
	ID                   int64                `json:"id"`
	EnvelopeID           string               `json:"envelopeId"`
	Email                string               `json:"email"`
	Name                 string               `json:"name"`
	Role                 Role                 `json:"role"`
	Token                string               `json:"token"`
	ReadStatus           ReadStatus           `json:"readStatus"`
	SigningStatus        SigningStatus        `json:"signingStatus"`
	SendStatus           SendStatus           `json:"sendStatus"`
	SigningOrder         *int                 `json:"signingOrder"`
	SentAt               *time.Time           `json:"-"`
	SignedAt             *time.Time           `json:"signedAt"`
	Expired              *time.Time           `json:"expired"`
	ExpiresAt            *time.Time           `json:"expiresAt"`
	ExpirationNotifiedAt *time.Time           `json:"expirationNotifiedAt"`
	DocumentDeletedAt    *time.Time           `json:"documentDeletedAt"`
	RejectionReason      *string              `json:"rejectionReason"`
	AuthOptions          RecipientAuthOptions `json:"authOptions"`
	// ExpectedRUT is the RUN the signer must prove (Clave Única, FAO_HASH), in RUT's normal
	// form; nil when any RUN may sign (beyond Documenso).
	ExpectedRUT *string `json:"expectedRut"`
	// LinkVersion counts the replacements of the recipient's signing link (see
	// ReplacesLink); never shown.
	LinkVersion int `json:"-"`
	// DeliveryError is the relay's answer to the last mail to the recipient that it refused for
	// good, until a later mail to them is sent; nil when none (beyond Documenso).
	DeliveryError *string `json:"deliveryError"`
	// OutcomeRequest names the request that recorded the recipient's completion or rejection
	// (RecipientCompletion's or RecipientRejection's RequestID); nil when none named one; never
	// shown.
	OutcomeRequest *string `json:"-"`
}

// Field is an element on a page that one recipient fills.
type Field struct {
	ID             int64      `json:"id"`
	SecondaryID    string     `json:"secondaryId"`
	EnvelopeID     string     `json:"envelopeId"`
	EnvelopeItemID string     `json:"envelopeItemId"`
	Type           FieldType  `json:"type"`
	RecipientID    int64      `json:"recipientId"`
	Page           int        `json:"page"`
	PositionX      float64    `json:"positionX"`
	PositionY      float64    `json:"positionY"`
	Width          float64    `json:"width"`
	Height         float64    `json:"height"`
	CustomText     string     `json:"customText"`
	Inserted       bool       `json:"inserted"`
	FieldMeta      *FieldMeta `json:"fieldMeta"`
	// FilledBy is who last filled or cleared the value: the public id of the signing session
	// whose browser did, "sender" for the sender's values, "link" for a caller of the signing
	// link without a session, "" when nobody touched it; never shown.
	FilledBy string `json:"-"`
	// PrefilledBy is the ASSISTANT whose value the field holds (MayFillField), nil when the
	// value is its own recipient's, the sender's or none; never shown.
	PrefilledBy *int64 `json:"-"`
}

// Attachment is a link shown with the envelope.
type Attachment struct {
	ID    string         `json:"id"`
	Type  AttachmentType `json:"type"`
	Label string         `json:"label"`
	Data  string         `json:"data"`
}

// TeamRef and UserRef are the short forms of an envelope's team and owner.
type TeamRef struct {
	ID  int64  `json:"id"`
	URL string `json:"url"`
}

// UserRef is the short form of a user.
type UserRef struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Envelope is the whole envelope as the API shows it. Summary reads leave Meta, Fields and Items
// empty.
type Envelope struct {
	ID                string         `json:"id"`
	SecondaryID       string         `json:"secondaryId"`
	InternalVersion   int            `json:"internalVersion"`
	Type              Type           `json:"type"`
	Status            Status         `json:"status"`
	Source            Source         `json:"source"`
	Visibility        Visibility     `json:"visibility"`
	TemplateType      TemplateType   `json:"templateType"`
	ExternalID        *string        `json:"externalId"`
	CreatedAt         time.Time      `json:"createdAt"`
	UpdatedAt         time.Time      `json:"updatedAt"`
	CompletedAt       *time.Time     `json:"completedAt"`
	DeletedAt         *time.Time     `json:"deletedAt"`
	Title             string         `json:"title"`
	AuthOptions       AuthOptions    `json:"authOptions"`
	FormValues        map[string]any `json:"formValues"`
	PublicTitle       string         `json:"publicTitle"`
	PublicDescription string         `json:"publicDescription"`
	UserID            int64          `json:"userId"`
	TeamID            int64          `json:"teamId"`
	FolderID          *string        `json:"folderId"`
	TemplateID        *int64         `json:"templateId"`

	LegacyID    int64        `json:"-"` // the number in secondaryId: documentId or templateId
	Meta        Meta         `json:"-"`
	Recipients  []Recipient  `json:"-"`
	Fields      []Field      `json:"-"`
	Items       []Item       `json:"-"`
	Attachments []Attachment `json:"-"`
	Team        TeamRef      `json:"-"`
	User        UserRef      `json:"-"`
	DirectLink  *DirectLink  `json:"-"` // a template's direct link, in whole reads; nil for none
}

// DocumentID is the envelope's legacy number when it is a document, else nil.
func (e *Envelope) DocumentID() *int64 {
	if e.Type == TypeDocument {
		return &e.LegacyID
	}
	return nil
}

// LegacyTemplateID is the envelope's legacy number when it is a template, else nil.
func (e *Envelope) LegacyTemplateID() *int64 {
	if e.Type == TypeTemplate {
		return &e.LegacyID
	}
	return nil
}

// AuditEntry is one line of an envelope's audit log.
type AuditEntry struct {
	ID         string         `json:"id"`
	CreatedAt  time.Time      `json:"createdAt"`
	EnvelopeID string         `json:"envelopeId"`
	Type       string         `json:"type"`
	Data       map[string]any `json:"data"`
	Name       *string        `json:"name"`
	Email      *string        `json:"email"`
	UserID     *int64         `json:"userId"`
	UserAgent  *string        `json:"userAgent"`
	IPAddress  *string        `json:"ipAddress"`
}
