package activities

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
	"github.com/sobre-sign/sobre/webhook"
)

// Activities are the envelope workflow's side effects. The worker registers a real one; the
// workflow calls its methods by name.
type Activities struct {
	Store     *persistence.Store
	Mail      *mail.Sender
	PublicURL string
	MailHost  string // the domain part of Message-IDs
	Log       *slog.Logger
	Seal      *seal.Signer // the certificate and key that seal completed envelopes
	// SealRefusals counts seals given up for good (NewSealRefusals); nil counts nothing.
	SealRefusals *prometheus.CounterVec
	SealTSA      TSAPolicy // how the seal treats an unavailable timestamp authority
	// ProofMaxAge is how old a signer's action proof may be when they complete
	// (envelope.DefaultProofMaxAge when 0).
	ProofMaxAge time.Duration
	// Webhooks makes the webhook attempts (AttemptWebhookCall).
	Webhooks *webhook.Sender
	// WebhookMetrics counts webhook attempts and calls given up (NewWebhookMetrics); nil counts
	// nothing.
	WebhookMetrics *WebhookMetrics
	// Bulk is what the bulk send's activities need (BulkSendRow).
	Bulk BulkSend
}

// domainError turns a domain error into a non-retryable application error whose type is its
// code and whose details are its issues, so that the API can answer it as it is.
func domainError(err error) error {
	var de *envelope.Error
	if errors.As(err, &de) {
		if len(de.Issues) > 0 {
			return temporal.NewNonRetryableApplicationError(de.Message, string(de.Code), nil, de.Issues)
		}
		return temporal.NewNonRetryableApplicationError(de.Message, string(de.Code), nil)
	}
	return err
}

// MarkPending moves the envelope to PENDING and returns its snapshot.
func (a *Activities) MarkPending(ctx context.Context, in envelope.Distribution) (envelope.Progress, error) {
	snap, err := a.Store.MarkPending(ctx, in.EnvelopeID, in.ExpiresAt)
	return SnapshotOf(snap), domainError(err)
}

// LoadSnapshot reads the envelope again (after the API changed its recipients).
func (a *Activities) LoadSnapshot(ctx context.Context, envelopeID string) (envelope.Progress, error) {
	snap, err := a.Store.LoadSnapshot(ctx, envelopeID)
	return SnapshotOf(snap), domainError(err)
}

// MarkSent records that a recipient was sent the envelope.
func (a *Activities) MarkSent(ctx context.Context, in envelope.Sent) error {
	return domainError(a.Store.MarkSent(ctx, in.EnvelopeID, in.RecipientID, in.EmailType, in.Mailed, in.Resending, in.ExpiresAt))
}

// CompleteRecipient records a recipient's completion and returns the new snapshot.
func (a *Activities) CompleteRecipient(ctx context.Context, in envelope.RecipientCompletion) (envelope.Progress, error) {
	snap, err := a.Store.CompleteRecipient(ctx, persistence.CompleteInput{RecipientCompletion: in, ProofMaxAge: a.ProofMaxAge})
	return SnapshotOf(snap), domainError(err)
}

// RejectRecipient records a recipient's rejection and returns the new snapshot.
func (a *Activities) RejectRecipient(ctx context.Context, in envelope.RecipientRejection) (envelope.Progress, error) {
	snap, err := a.Store.RejectRecipient(ctx, in)
	return SnapshotOf(snap), domainError(err)
}

// FinishEnvelope ends the envelope as its ending event says.
func (a *Activities) FinishEnvelope(ctx context.Context, in envelope.Ending) error {
	return domainError(a.Store.FinishEnvelope(ctx, in.Event(), in.Actor))
}

// ExpireRecipients records the recipients whose time ran out and returns them.
func (a *Activities) ExpireRecipients(ctx context.Context, envelopeID string, now time.Time) ([]envelope.ProgressRecipient, error) {
	list, err := a.Store.ExpireRecipients(ctx, envelopeID, now)
	return envelope.ProgressOfAll(list), domainError(err)
}

// HardDelete removes the envelope and everything of it.
func (a *Activities) HardDelete(ctx context.Context, envelopeID string) error {
	return domainError(a.Store.HardDelete(ctx, envelopeID))
}

// MarkRemoving records that a PENDING envelope is being deleted (persistence.Store.MarkRemoving).
func (a *Activities) MarkRemoving(ctx context.Context, envelopeID string) error {
	return domainError(a.Store.MarkRemoving(ctx, envelopeID))
}

// RenewDeadlines gives recipients sent the envelope again a new deadline and returns them.
func (a *Activities) RenewDeadlines(ctx context.Context, in envelope.Renewal) ([]envelope.ProgressRecipient, error) {
	list, err := a.Store.RenewDeadlines(ctx, in.EnvelopeID, in.RecipientIDs, in.ExpiresAt)
	return envelope.ProgressOfAll(list), domainError(err)
}
