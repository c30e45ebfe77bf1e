package workflows

import (
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// outgoing is a queued mail and, for a request or reminder, the MarkSent that records it once
// sent. Mails go out after the workflow's lock is released, so a slow relay never holds up a
// recipient's completion.
type outgoing struct {
	Notice envelope.Mailing
	Mark   *envelope.Sent
	// Ref numbers a mail being delivered (deliver), so that its coroutine finds it again.
	Ref int `json:",omitempty"`
}

// queue adds a mail to the outbox; mark, when set, is recorded once it is sent.
func (r *run) queue(n envelope.Mailing, mark *envelope.Sent) {
	r.outbox = append(r.outbox, outgoing{Notice: n, Mark: mark})
}

// replacedLinkSeq numbers the signing request that mails a replaced link (plus the link's
// version), apart from first requests (0) and resends (100 on).
const replacedLinkSeq = 10_000

// noticeReplacedLinks queues the signing request again, with its new link, for each recipient
// whose link was replaced since (its email or authentication changed: envelope.ReplacesLink)
// and who is mailed it (envelope.ReplacedLinkMailed). The old link only says it was replaced.
func (r *run) noticeReplacedLinks(snap envelope.Progress) {
	for _, rec := range snap.Recipients {
		v := snap.LinkVersions[rec.ID]
		if v <= r.snap.LinkVersions[rec.ID] || !envelope.ReplacedLinkMailed(snap.Meta, rec, slices.Contains(r.requested, rec.ID)) {
			continue
		}
		r.queue(envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, Seq: replacedLinkSeq + v}, nil)
	}
}

// noticeRemoved queues the "removed" mail for each recipient no longer in snap who is told
// (envelope.RemovedMailed).
func (r *run) noticeRemoved(snap envelope.Progress) {
	for _, old := range r.snap.Recipients {
		if snap.Recipient(old.ID) != nil || !envelope.RemovedMailed(snap.Meta, old, slices.Contains(r.requested, old.ID)) {
			continue
		}
		r.queue(envelope.Mailing{Kind: envelope.MailRecipientRemoved, EnvelopeID: r.in.EnvelopeID, RecipientID: old.ID, To: old.Email, ToName: old.Name}, nil)
	}
}

// queueNotices queues the mails event ev sends (envelope.Notices: its kind's notification plan,
// read from the event), with the event's reason.
func (r *run) queueNotices(ev envelope.Event) {
	for _, n := range envelope.Notices(ev, r.snap.Meta, r.snap.Recipients) {
		r.queue(envelope.Mailing{Kind: n.Mail, EnvelopeID: r.in.EnvelopeID, RecipientID: n.RecipientID, ActorID: n.About,
			Reason: ev.Reason, Attach: n.Attach}, nil)
	}
}

// noticeIdentityMismatches queues the owner's mail for each RUN refused to a recipient whose
// expected RUN it was not (one per RUN: the count in the snapshot numbers them).
func (r *run) noticeIdentityMismatches() {
	for _, m := range r.snap.IdentityMismatches {
		if m.RUNs <= r.mismatches[m.RecipientID] {
			continue
		}
		if r.mismatches == nil {
			r.mismatches = map[int64]int{}
		}
		r.mismatches[m.RecipientID] = m.RUNs
		r.queue(envelope.Mailing{Kind: envelope.MailOwnerIdentity, EnvelopeID: r.in.EnvelopeID, ActorID: m.RecipientID, Seq: m.RUNs}, nil)
	}
}

// noticeCodeLocks queues the owner's mail for each locked access-code entry in the snapshot that
// was not mailed about yet: one per lock (its number is the mail's sequence, so a second lock
// after a redistribute is mailed too, and a retried mail is sent once).
func (r *run) noticeCodeLocks() {
	for _, l := range r.snap.CodeLocks {
		if slices.Contains(r.codeLocks, l) {
			continue
		}
		r.codeLocks = append(r.codeLocks, l)
		r.queue(envelope.Mailing{Kind: envelope.MailOwnerCodeLocked, EnvelopeID: r.in.EnvelopeID, ActorID: l.RecipientID, Seq: l.Lock}, nil)
	}
}

// sendRequests queues the envelope's request to each recipient who may act now and was not sent
// it yet; one sent by link (no mail) is marked sent at once. A recipient added while PENDING gets
// its deadline now.
func (r *run) sendRequests(ctx workflow.Context) error {
	m := r.snap.Meta
	if m.DistributionMethod != envelope.DistributionEmail {
		return nil // recipients get their links from the caller; they become SENT when they open them
	}
	now := workflow.Now(ctx)
	for _, id := range envelope.MayActNow(m.SigningOrder, r.snap.Participants()) {
		rec := r.snap.Recipient(id)
		if rec == nil || slices.Contains(r.requested, id) || rec.Participant().Expired(now) {
			continue
		}
		mark := &envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: id, EmailType: envelope.RequestEmailType(rec.Role)}
		if rec.ExpiresAt == nil {
			if mark.ExpiresAt = envelope.Deadline(m.EnvelopeExpirationPeriod, now); mark.ExpiresAt != nil {
				rec.ExpiresAt = mark.ExpiresAt
			}
		}
		mailed := envelope.RequestMailed(m, *rec)
		if mailed {
			mark.Mailed = true
			r.queue(envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: id}, mark)
		} else if err := r.db(ctx, actMarkSent, *mark).Get(ctx, nil); err != nil {
			return err
		}
		rec.SendStatus = envelope.SendStatusSent
		r.requested = append(r.requested, id)
		if mailed && m.ReminderSettings != nil {
			r.reminders = append(r.reminders, reminder{RecipientID: id, SentAt: now, Next: envelope.FirstReminder(m.ReminderSettings, now)})
		}
	}
	return nil
}

// flush sends the queued mails. In a run of currentShape they go out together, in one activity
// (deliverAll); in a run that delivers asynchronously (r.async) each goes out on its own
// (deliver). Either way flush returns at once: the envelope's progress never waits for a
// mail. Otherwise (runs started before "async-mail") it sends them in parallel, waits, then
// records the requests and reminders among them as sent; a mail that cannot be sent within its
// activity's retries is logged and given up: it never fails the envelope.
func (r *run) flush(ctx workflow.Context) {
	if r.current && len(r.outbox) > 0 {
		r.deliverAll(ctx, r.outbox)
		r.outbox = nil
		return
	}
	if r.async {
		for _, o := range r.outbox {
			r.deliver(ctx, o)
		}
		r.outbox = nil
		return
	}
	out := r.outbox
	r.outbox = nil
	futures := make([]workflow.Future, len(out))
	for i, o := range out {
		futures[i] = workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, o.Notice)
	}
	log := workflow.GetLogger(ctx)
	for i, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			log.Error("mail not sent; giving up on it", "kind", out[i].Notice.Kind, "recipient", out[i].Notice.RecipientID, "err", err)
			continue
		}
		if m := out[i].Mark; m != nil {
			if err := workflow.ExecuteLocalActivity(localCtx(ctx), actMarkSent, *m).Get(ctx, nil); err != nil {
				log.Error("mail sent but not recorded", "kind", out[i].Notice.Kind, "recipient", out[i].Notice.RecipientID, "err", err)
			}
		}
	}
}

// firstRequest reports whether o is a recipient's first signing request (not a resend, nor a
// replaced link).
func firstRequest(o outgoing) bool {
	return o.Notice.Kind == envelope.MailSigningRequest && o.Mark != nil && !o.Mark.Resending
}

// requestsDelivered reports whether no recipient's first request is being delivered.
func (r *run) requestsDelivered() bool { return !slices.ContainsFunc(r.delivering, firstRequest) }
