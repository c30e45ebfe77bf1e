package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
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
}

// domainError turns a domain error into a non-retryable application error whose type is its
// code, so that the API can answer it as it is.
func domainError(err error) error {
	var de *envelope.Error
	if errors.As(err, &de) {
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

// MessageID is the Message-ID of a mailing: the same on every attempt,
// kind.envelope.recipient.seq@host, with .a<actor> before the @ when the notice is about a
// recipient (so the owner's mails about two signers differ).
func MessageID(n envelope.Mailing, host string) string {
	if host == "" {
		host = "sobre.localhost"
	}
	actor := ""
	if n.ActorID != 0 {
		actor = fmt.Sprintf(".a%d", n.ActorID)
	}
	return fmt.Sprintf("%s.%s.%d.%d%s@%s", n.Kind, strings.TrimPrefix(n.EnvelopeID, "envelope_"), n.RecipientID, n.Seq, actor, host)
}

// SendNotice renders and sends a notice once: a notice already recorded as sent is not sent
// again, so a retried activity never mails twice. It reads the envelope, the addresses and the
// recipient's signing link from PostgreSQL by id: the notice carries none of them.
func (a *Activities) SendNotice(ctx context.Context, n envelope.Mailing) error {
	snap, err := a.Store.LoadSnapshot(ctx, n.EnvelopeID)
	if err != nil {
		return domainError(err)
	}
	data := mail.Data{Title: snap.Title, OwnerName: snap.OwnerName, Reason: n.Reason}
	if data.OwnerName == "" {
		data.OwnerName = snap.OwnerEmail
	}
	to, toName := snap.OwnerEmail, snap.OwnerName
	if n.To != "" {
		to, toName = n.To, n.ToName
		data.RecipientName = n.ToName
	} else if n.RecipientID != 0 {
		r := snap.Recipient(n.RecipientID)
		if r == nil {
			a.Log.InfoContext(ctx, "notice for a recipient no longer in the envelope; not sent", "envelope", n.EnvelopeID, "kind", n.Kind)
			return nil
		}
		to, toName = r.Email, r.Name
		data.RecipientName, data.Role = r.Name, r.Role
		// The signing link is read here, from PostgreSQL: it never passes through the workflow.
		if r.Token == "" {
			// A store without the keyring reads no token: mail no link that leads nowhere.
			return fmt.Errorf("the signing link of recipient %d cannot be read: the store has no keyring (SOBRE_PAYLOAD_KEYS_FILE)", r.ID)
		}
		data.URL = a.PublicURL + "/sign/" + r.Token
	}
	if n.ActorID != 0 {
		if actor := snap.Recipient(n.ActorID); actor != nil {
			data.ActorName = actor.Name
			if data.ActorName == "" {
				data.ActorName = actor.Email
			}
		}
	}
	if n.Kind == envelope.MailSigningRequest {
		data.Subject, data.Message = deref(snap.Meta.Subject), deref(snap.Meta.Message)
	}
	if data.RecipientName == "" {
		data.RecipientName = to
	}
	if to == "" {
		return nil // a recipient without an email address gets their link from the caller
	}
	composed, err := mail.Compose(n.Kind, snap.Meta.Language, data)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), "MAIL_TEMPLATE", err)
	}
	id := MessageID(n, a.MailHost)
	state, err := a.Store.ClaimMail(ctx, id, n.EnvelopeID, string(n.Kind), to)
	if err != nil {
		return err
	}
	switch state {
	case persistence.MailSent:
		return nil
	case persistence.MailTransmitting:
		// An earlier attempt died while handing this mail to the relay: it may have been
		// delivered. Sending it again could deliver it twice, so it is left as it is.
		a.Log.WarnContext(ctx, "mail may or may not have been delivered by an attempt that died; not sending it again",
			"message_id", id, "envelope", n.EnvelopeID, "kind", n.Kind)
		return nil
	}
	msg := mail.Message{ID: id, To: to, ToName: toName, EnvelopeID: n.EnvelopeID, Composed: composed, ReplyTo: deref(snap.Meta.EmailReplyTo)}
	if n.Attach {
		files, err := a.Store.SealedFiles(ctx, n.EnvelopeID)
		if err == nil && len(files) == 0 {
			files, err = a.Store.ItemFiles(ctx, n.EnvelopeID) // an envelope completed before sealing existed
		}
		if err != nil {
			return err
		}
		for _, f := range files {
			msg.Attachments = append(msg.Attachments, mail.Attachment{Name: pdfName(f.Title), Data: f.Data})
		}
	}
	if err := a.Mail.Send(ctx, msg, func() error { return a.Store.MailTransmitting(ctx, id) }); err != nil {
		if mail.Undelivered(err) {
			if rerr := a.Store.MailNotTransmitted(ctx, id); rerr != nil {
				return errors.Join(err, rerr)
			}
		}
		return err
	}
	return a.Store.MailSent(ctx, id)
}

func pdfName(title string) string {
	if strings.HasSuffix(strings.ToLower(title), ".pdf") {
		return title
	}
	return title + ".pdf"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// HardDelete removes the envelope and everything of it.
func (a *Activities) HardDelete(ctx context.Context, envelopeID string) error {
	return domainError(a.Store.HardDelete(ctx, envelopeID))
}

// RenewDeadlines gives recipients sent the envelope again a new deadline and returns them.
func (a *Activities) RenewDeadlines(ctx context.Context, in envelope.Renewal) ([]envelope.ProgressRecipient, error) {
	list, err := a.Store.RenewDeadlines(ctx, in.EnvelopeID, in.RecipientIDs, in.ExpiresAt)
	return envelope.ProgressOfAll(list), domainError(err)
}
