package activities

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// MessageID is the Message-ID of a mailing: the same on every attempt,
// kind.envelope.recipient.seq@host, with .a<actor> before the @ when the notice is about a
// recipient (so the owner's mails about two signers differ).
func MessageID(n envelope.Mailing, host string) string {
	host = messageHost(host)
	actor := ""
	if n.ActorID != 0 {
		actor = fmt.Sprintf(".a%d", n.ActorID)
	}
	return fmt.Sprintf("%s.%s.%d.%d%s@%s", n.Kind, strings.TrimPrefix(n.EnvelopeID, "envelope_"), n.RecipientID, n.Seq, actor, host)
}

// messageHost is the domain part of Sobre's Message-IDs: host (Activities.MailHost), else
// sobre.localhost.
func messageHost(host string) string {
	if host == "" {
		return "sobre.localhost"
	}
	return host
}

// claimLease is how long an attempt's claim on a mail holds past the attempt's own deadline;
// defaultLease, outside an activity.
const (
	claimLease   = 30 * time.Second
	defaultLease = 2 * time.Minute
)

// claimant names the attempt running in ctx and how long its claim on a mail should hold: its
// time limit, and claimLease more. A call outside an activity is an attempt of its own.
func claimant(ctx context.Context) (owner string, lease time.Duration) {
	if !activity.IsActivity(ctx) {
		return "call/" + rand.Text(), defaultLease
	}
	info := activity.GetInfo(ctx)
	owner = fmt.Sprintf("%s/%s/%d", info.WorkflowExecution.RunID, info.ActivityID, info.Attempt)
	if info.IsLocalActivity {
		// A local activity's id and attempt start again when its workflow task is replayed by
		// another worker (the first cut off from Temporal, still sending): the two must not
		// share a claim.
		owner += "/" + rand.Text()
	}
	// The attempt's own time limit, not its deadline: the deadline is the server's clock read
	// with the worker's, and the lease runs on PostgreSQL's from the claim.
	if info.StartToCloseTimeout <= 0 {
		return owner, defaultLease
	}
	return owner, info.StartToCloseTimeout + claimLease
}

// claim claims mail c for the attempt running in ctx (claimant) and answers whether it is to
// send it now: a mail an earlier attempt sent or that the relay refused is not sent again; one
// whose claim another attempt holds is an error, retried later; one an ended attempt was handing
// to the relay may have been delivered, so it is taken as sent, unconfirmed (with mark, for a
// request or a reminder), and not sent again.
func (a *Activities) claim(ctx context.Context, c persistence.MailClaim, mark *envelope.Sent) (owner string, send bool, err error) {
	c.Owner, c.Lease = claimant(ctx)
	state, err := a.Store.ClaimMail(ctx, c)
	if err != nil {
		return c.Owner, false, err
	}
	switch state {
	case persistence.MailSent, persistence.MailFailed:
		return c.Owner, false, nil
	case persistence.MailNotDue:
		a.Log.InfoContext(ctx, "request no longer due (the envelope ended or the recipient acted); not sent",
			"envelope", c.EnvelopeID, "recipient", c.RecipientID, "kind", c.Kind)
		return c.Owner, false, nil
	case persistence.MailHeld:
		return c.Owner, false, fmt.Errorf("mail %s is being sent by another attempt; trying again later", c.MessageID)
	case persistence.MailTransmitting:
		a.Log.WarnContext(ctx, "mail may or may not have been delivered by an attempt that ended; taken as sent, not sent again",
			"message_id", c.MessageID, "envelope", c.EnvelopeID, "kind", c.Kind)
		return c.Owner, false, a.Store.MailSent(ctx, c.MessageID, mark, "unconfirmed: the attempt handing it to the relay ended")
	}
	return c.Owner, true, nil
}

// SendNotice renders and sends a notice once, and records it: for a request or a reminder
// (n.Mark), the recipient SENT and EMAIL_SENT in the transaction that records the mail sent.
//   - A notice recorded sent or refused is not sent again, so a retried activity never mails
//     twice; one whose claim another attempt holds is retried later (two overlapping attempts
//     send it once).
//   - A relay's refusal for good (5xx, at any stage) is recorded with its answer and ends the
//     activity with an error of type envelope.MailRefusedType; a refusal for now (4xx, even after the content) is retried.
//   - A mail an attempt was handing over when it ended may have been delivered: it is taken as
//     sent, unconfirmed, and not sent again.
//
// It reads the envelope, the addresses and the recipient's signing link from PostgreSQL by id:
// the notice carries none of them.
func (a *Activities) SendNotice(ctx context.Context, n envelope.Mailing) error {
	snap, err := a.Store.LoadSnapshot(ctx, n.EnvelopeID)
	if err != nil {
		return domainError(err)
	}
	return a.sendNotice(ctx, snap, n, func() ([]mail.Attachment, error) { return a.attachments(ctx, n.EnvelopeID) })
}

// sendNotice is SendNotice of n on snap, the envelope as read for this attempt; attach reads the
// envelope's PDFs when n attaches them.
func (a *Activities) sendNotice(ctx context.Context, snap persistence.Snapshot, n envelope.Mailing, attach func() ([]mail.Attachment, error)) error {
	if requestAfterEnd(snap, n) {
		a.Log.InfoContext(ctx, "request for an envelope that is no longer pending; not sent", "envelope", n.EnvelopeID, "kind", n.Kind)
		return nil
	}
	if unsent, err := a.noticeToUnsent(ctx, snap, n); err != nil || unsent {
		if unsent {
			a.Log.InfoContext(ctx, "cancellation for a recipient never sent the envelope; not sent", "envelope", n.EnvelopeID, "recipient", n.RecipientID)
		}
		return err
	}
	msg, skip, err := a.compose(ctx, snap, n)
	if err != nil {
		return err
	}
	if skip {
		if m := n.Mark; m != nil && snap.Recipient(n.RecipientID) != nil {
			// A recipient without an address gets the link from the caller: the request counts
			// as sent, as a mailed one does.
			return domainError(a.Store.MarkSent(ctx, m.EnvelopeID, m.RecipientID, m.EmailType, m.Mailed, m.Resending, m.ExpiresAt))
		}
		return nil
	}
	c := persistence.MailClaim{MessageID: msg.ID, EnvelopeID: n.EnvelopeID, Kind: string(n.Kind), To: msg.To}
	if (n.Kind == envelope.MailSigningRequest || n.Kind == envelope.MailReminder) && n.To == "" {
		c.RecipientID = n.RecipientID // handed over only while due, a replaced link's request too
	}
	owner, send, err := a.claim(ctx, c, n.Mark)
	if err != nil || !send {
		return err
	}
	if n.Attach {
		if msg.Attachments, err = attach(); err != nil {
			return err
		}
	}
	if err := a.Mail.Send(ctx, msg, func() error { return a.Store.MailTransmitting(ctx, msg.ID, owner) }); err != nil {
		return a.notSent(ctx, n, msg.ID, owner, err)
	}
	return a.Store.MailSent(ctx, msg.ID, n.Mark, "")
}

// notSent handles a Send that failed: a refusal for good is recorded and not retried; a mail the
// relay did not take is given back for the next attempt; anything else (the mail may have been
// delivered) is retried, and the next attempt finds it transmitting once the lease has passed.
func (a *Activities) notSent(ctx context.Context, n envelope.Mailing, id, owner string, sendErr error) error {
	if errors.Is(sendErr, persistence.ErrClaimLost) {
		return sendErr
	}
	if ref, ok := mail.Refused(sendErr); ok && ref.Permanent() {
		if err := a.Store.MailRefused(ctx, refusalOf(n, id, ref.Answer)); err != nil {
			return errors.Join(sendErr, err)
		}
		a.Log.WarnContext(ctx, "mail refused by the relay; recorded, not sent again", "message_id", id, "envelope", n.EnvelopeID, "kind", n.Kind, "answer", ref.Answer)
		return temporal.NewNonRetryableApplicationError("the relay refused the mail: "+ref.Answer, envelope.MailRefusedType, nil)
	}
	if mail.Undelivered(sendErr) {
		// Given back even when ctx has ended (the send failed for that): its next attempt then
		// need not wait for the claim to lapse.
		if err := a.Store.MailNotTransmitted(context.WithoutCancel(ctx), id, owner); err != nil {
			return errors.Join(sendErr, err)
		}
	}
	return sendErr
}

// requestAfterEnd reports whether n is a request or a reminder for an envelope that ended
// (cancelled, rejected, deleted) while it was still being retried: it would ask to sign what can
// no longer be signed, and is not sent.
func requestAfterEnd(snap persistence.Snapshot, n envelope.Mailing) bool {
	return (n.Kind == envelope.MailSigningRequest || n.Kind == envelope.MailReminder) && snap.Status != envelope.StatusPending
}

// noticeToUnsent reports whether n tells a recipient the envelope is cancelled (its owner
// cancelled or deleted it, or another recipient rejected it) who was never sent it: the store
// has them NOT_SENT and no request to them was handed to the relay (persistence.RequestHandedOver).
// Their request was still being delivered when the envelope ended, and it is not handed over
// after (persistence.Store.MailTransmitting), so there is nothing to call off.
func (a *Activities) noticeToUnsent(ctx context.Context, snap persistence.Snapshot, n envelope.Mailing) (bool, error) {
	if n.Kind != envelope.MailEnvelopeCancelled {
		return false, nil
	}
	r := snap.Recipient(n.RecipientID)
	if r == nil || r.SendStatus == envelope.SendStatusSent {
		return false, nil
	}
	handed, err := a.Store.RequestHandedOver(ctx, n.EnvelopeID, n.RecipientID)
	return !handed, err
}

// compose builds the message of notice n from snap, the envelope as PostgreSQL holds it. skip is
// true when there is nothing to send: the recipient left the envelope, or has no address.
func (a *Activities) compose(ctx context.Context, snap persistence.Snapshot, n envelope.Mailing) (msg mail.Message, skip bool, err error) {
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
			return msg, true, nil
		}
		to, toName = r.Email, r.Name
		data.RecipientName, data.Role = r.Name, r.Role
		// The signing link is read here, from PostgreSQL: it never passes through the workflow.
		if r.Token == "" {
			// A store without the keyring reads no token: mail no link that leads nowhere.
			return msg, false, fmt.Errorf("the signing link of recipient %d cannot be read: the store has no keyring (SOBRE_PAYLOAD_KEYS_FILE)", r.ID)
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
		return msg, true, nil // a recipient without an email address gets their link from the caller
	}
	composed, err := mail.Compose(n.Kind, snap.Meta.Language, data)
	if err != nil {
		return msg, false, temporal.NewNonRetryableApplicationError(err.Error(), "MAIL_TEMPLATE", err)
	}
	return mail.Message{ID: MessageID(n, a.MailHost), To: to, ToName: toName, EnvelopeID: n.EnvelopeID, Composed: composed,
		ReplyTo: deref(snap.Meta.EmailReplyTo)}, false, nil
}

// attachments are the envelope's sealed PDFs, or its PDFs as uploaded for an envelope completed
// before sealing existed.
func (a *Activities) attachments(ctx context.Context, envelopeID string) ([]mail.Attachment, error) {
	files, err := a.Store.SealedFiles(ctx, envelopeID)
	if err == nil && len(files) == 0 {
		files, err = a.Store.ItemFiles(ctx, envelopeID)
	}
	if err != nil {
		return nil, err
	}
	out := make([]mail.Attachment, 0, len(files))
	for _, f := range files {
		out = append(out, mail.Attachment{Name: pdfName(f.Title), Data: f.Data})
	}
	return out, nil
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

// MailUndeliverable records a mail the relay never took within its activity's retries as
// failed, with why (reason): like a refusal, on the recipient and in the audit log.
//
// A notice that would not be sent now is not recorded: a request for an envelope that ended, one
// for a recipient who left it or who has no address (SendNotices gives up on all the notices of
// its step together, sent or not).
func (a *Activities) MailUndeliverable(ctx context.Context, n envelope.Mailing, reason string) error {
	snap, err := a.Store.LoadSnapshot(ctx, n.EnvelopeID)
	if err != nil {
		return domainError(err)
	}
	if requestAfterEnd(snap, n) {
		return nil
	}
	if _, skip, err := a.compose(ctx, snap, n); err == nil && skip {
		return nil
	}
	answer := mail.BoundedAnswer("not delivered: " + reason)
	return domainError(a.Store.MailRefused(ctx, refusalOf(n, MessageID(n, a.MailHost), answer)))
}

// refusalOf is notice n, whose Message-ID is id, refused with answer: named as EMAIL_SENT would
// name it for a request or a reminder, and on no recipient when it was for someone no longer one.
func refusalOf(n envelope.Mailing, id, answer string) persistence.MailRefusal {
	refusal := persistence.MailRefusal{MessageID: id, EnvelopeID: n.EnvelopeID, RecipientID: n.RecipientID, EmailType: string(n.Kind), Answer: answer, Kind: string(n.Kind)}
	if m := n.Mark; m != nil {
		refusal.EmailType, refusal.Resending = m.EmailType, m.Resending
	}
	if n.To != "" {
		refusal.RecipientID = 0
	}
	return refusal
}
