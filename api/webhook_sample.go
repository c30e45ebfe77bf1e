package api

import (
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// sampleEnvelopeID is the id of the envelope a webhook test shows: no envelope has it.
const sampleEnvelopeID = "envelope_sample"

// sampleEnvelope is the envelope a test of event shows (POST /webhook/test): one that does not
// exist, of member m's team and owned by m, titled "Sample document", with one signer, "Sample
// Signer" <signer@example.com>, without files or fields, as event leaves an envelope at now:
//
//   - DOCUMENT_CREATED: a DRAFT document, not sent;
//   - DOCUMENT_SENT, DOCUMENT_REMINDER_SENT: PENDING, sent; DOCUMENT_OPENED: PENDING, opened;
//   - DOCUMENT_SIGNED, DOCUMENT_RECIPIENT_COMPLETED: PENDING, the signer signed;
//   - DOCUMENT_COMPLETED: COMPLETED, the signer signed;
//   - DOCUMENT_REJECTED: REJECTED, the signer rejected it; DOCUMENT_CANCELLED: CANCELLED, sent;
//   - RECIPIENT_EXPIRED: PENDING, sent, the signer's deadline passed;
//   - TEMPLATE_CREATED, TEMPLATE_UPDATED, TEMPLATE_DELETED: a template, DRAFT;
//   - TEMPLATE_USED: the document made from a template, DRAFT.
func sampleEnvelope(event envelope.WebhookEvent, m envelope.Member, now time.Time) *envelope.Envelope {
	e := &envelope.Envelope{
		ID: sampleEnvelopeID, SecondaryID: "document_0", InternalVersion: 2, Type: envelope.TypeDocument,
		Status: envelope.StatusPending, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
		TemplateType: envelope.TemplateTypePrivate,
		CreatedAt:    now, UpdatedAt: now, Title: "Sample document",
		AuthOptions: envelope.AuthOptions{GlobalAccessAuth: []envelope.AccessAuth{}, GlobalActionAuth: []envelope.ActionAuth{}},
		UserID:      m.UserID, TeamID: m.TeamID, Meta: envelope.DefaultMeta("sample"),
		Items: []envelope.Item{}, Attachments: []envelope.Attachment{},
		Team: envelope.TeamRef{ID: m.TeamID, URL: m.TeamURL},
		User: envelope.UserRef{ID: m.UserID, Name: m.UserName, Email: m.UserEmail},
	}
	signer := envelope.Recipient{
		ID: 1, EnvelopeID: e.ID, Email: "signer@example.com", Name: "Sample Signer", Role: envelope.RoleSigner,
		ReadStatus: envelope.ReadStatusNotOpened, SigningStatus: envelope.SigningStatusNotSigned, SendStatus: envelope.SendStatusSent,
		AuthOptions: envelope.RecipientAuthOptions{AccessAuth: []envelope.AccessAuth{}, ActionAuth: []envelope.ActionAuth{}},
	}
	switch event {
	case envelope.WebhookDocumentCreated, envelope.WebhookTemplateUsed:
		e.Status, signer.SendStatus = envelope.StatusDraft, envelope.SendStatusNotSent
		if event == envelope.WebhookTemplateUsed {
			e.Source = envelope.SourceTemplate
		}
	case envelope.WebhookTemplateCreated, envelope.WebhookTemplateUpdated, envelope.WebhookTemplateDeleted:
		e.Type, e.SecondaryID = envelope.TypeTemplate, "template_0"
		e.Status, signer.SendStatus = envelope.StatusDraft, envelope.SendStatusNotSent
	case envelope.WebhookDocumentOpened:
		signer.ReadStatus = envelope.ReadStatusOpened
	case envelope.WebhookDocumentSigned, envelope.WebhookDocumentRecipientCompleted, envelope.WebhookDocumentCompleted:
		signer.ReadStatus, signer.SigningStatus, signer.SignedAt = envelope.ReadStatusOpened, envelope.SigningStatusSigned, &now
		if event == envelope.WebhookDocumentCompleted {
			e.Status, e.CompletedAt = envelope.StatusCompleted, &now
		}
	case envelope.WebhookDocumentRejected:
		reason := "Sample rejection"
		e.Status, signer.ReadStatus, signer.SigningStatus, signer.RejectionReason = envelope.StatusRejected, envelope.ReadStatusOpened, envelope.SigningStatusRejected, &reason
	case envelope.WebhookDocumentCancelled:
		e.Status = envelope.StatusCancelled
	case envelope.WebhookRecipientExpired:
		signer.Expired, signer.ExpiresAt = &now, &now
	}
	e.Recipients = []envelope.Recipient{signer}
	return e
}
