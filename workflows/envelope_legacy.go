package workflows

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// The first release's way of sending mail: each request and reminder sent while holding the
// workflow's lock, a failed mail failing the step. Workflows started before the change
// "mail-outside-lock" (workflow.GetVersion in EnvelopeWorkflow) replay through these functions,
// so their histories stay valid; new workflows never run them. They can be deleted once no
// workflow of that version is open.

// legacyOnResend sends the envelope again to the listed recipients who have not acted: a new deadline,
// a new request (with its own Message-ID) and reminders counted from now.
func (r *run) legacyOnResend(ctx workflow.Context, req ResendRequest) error {
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	defer r.mu.Unlock()
	if err := r.acting(); err != nil {
		return err
	}
	now := workflow.Now(ctx)
	in := envelope.Renewal{EnvelopeID: r.in.EnvelopeID, RecipientIDs: req.RecipientIDs, ExpiresAt: envelope.Deadline(r.snap.Meta.EnvelopeExpirationPeriod, now)}
	var renewed []envelope.ProgressRecipient
	if err := r.db(ctx, actRenewDeadlines, in).Get(ctx, &renewed); err != nil {
		return err
	}
	m := r.snap.Meta
	for _, rec := range renewed {
		r.resends++
		if envelope.ResendMailed(m, rec) {
			n := envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, Seq: 100 + r.resends}
			if err := workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, n).Get(ctx, nil); err != nil {
				return err
			}
			mi := envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, EmailType: envelope.RequestEmailType(rec.Role), Mailed: true, Resending: true}
			if err := r.db(ctx, actMarkSent, mi).Get(ctx, nil); err != nil {
				return err
			}
			if !slices.Contains(r.requested, rec.ID) {
				r.requested = append(r.requested, rec.ID)
			}
			r.reminders = slices.DeleteFunc(r.reminders, func(rm reminder) bool { return rm.RecipientID == rec.ID })
			if m.ReminderSettings != nil {
				r.reminders = append(r.reminders, reminder{RecipientID: rec.ID, SentAt: now, Next: envelope.FirstReminder(m.ReminderSettings, now)})
			}
		}
		r.notified = slices.DeleteFunc(r.notified, func(id int64) bool { return id == rec.ID })
	}
	var snap envelope.Progress
	if err := r.db(ctx, actLoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
		return err
	}
	r.snap = snap
	r.bump()
	return nil
}

// legacyStep acts on everything that changed: reloads recipients if asked, decides completion, sends
// what is due and, when the envelope ends, finishes it.
func (r *run) legacyStep(ctx workflow.Context) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	defer r.mu.Unlock()
	v := r.version
	if r.refresh {
		r.refresh = false
		var snap envelope.Progress
		if err := r.db(ctx, actLoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
			return err
		}
		r.noticeRemoved(snap)
		r.snap = snap
	}
	if r.end == nil && envelope.AllDone(r.snap.Participants()) {
		r.end = &ending{status: envelope.StatusCompleted, actor: envelope.SystemActor()}
	}
	if r.end == nil {
		if err := r.legacySendRequests(ctx); err != nil {
			return err
		}
	}
	if err := r.legacyFlush(ctx); err != nil {
		return err
	}
	if r.end != nil {
		if err := r.finish(ctx); err != nil {
			return err
		}
	}
	r.processed = v
	return nil
}

// legacySendRequests sends the envelope to each recipient who may act now and was not sent it yet.
func (r *run) legacySendRequests(ctx workflow.Context) error {
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
		mailed := envelope.RequestMailed(m, *rec)
		if mailed {
			n := envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: id}
			if err := workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, n).Get(ctx, nil); err != nil {
				return err
			}
		}
		in := envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: id, EmailType: envelope.RequestEmailType(rec.Role), Mailed: mailed}
		if err := r.db(ctx, actMarkSent, in).Get(ctx, nil); err != nil {
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

// legacyFlush sends the queued notices, in parallel.
func (r *run) legacyFlush(ctx workflow.Context) error {
	var futures []workflow.Future
	for _, o := range r.outbox {
		futures = append(futures, workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, o.Notice))
	}
	r.outbox = nil
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// legacyTimersDue sends the reminders that are due and handles expired recipients.
func (r *run) legacyTimersDue(ctx workflow.Context) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	defer r.mu.Unlock()
	now := workflow.Now(ctx)
	m := r.snap.Meta
	if expired := r.overdue(now); len(expired) > 0 {
		var list []envelope.ProgressRecipient
		if err := r.db(ctx, actExpireRecipients, r.in.EnvelopeID, now).Get(ctx, &list); err != nil {
			return err
		}
		r.notified = append(r.notified, expired...)
		r.noticeExpired(list, now)
	}
	active := envelope.MayActNow(m.SigningOrder, r.snap.Participants())
	for i := range r.reminders {
		rm := &r.reminders[i]
		if rm.Next.IsZero() || now.Before(rm.Next) {
			continue
		}
		if !envelope.RemindNow(m, envelope.Reminding{SentAt: rm.SentAt, Count: rm.Count}, r.participant(rm.RecipientID), slices.Contains(active, rm.RecipientID), now) {
			rm.Next = time.Time{}
			continue
		}
		rm.Count++
		n := envelope.Mailing{Kind: envelope.MailReminder, EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, Seq: rm.Count}
		if err := workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, n).Get(ctx, nil); err != nil {
			return err
		}
		in := envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, EmailType: envelope.EmailTypeReminder, Mailed: true, Resending: true}
		if err := r.db(ctx, actMarkSent, in).Get(ctx, nil); err != nil {
			return err
		}
		rm.Next = envelope.NextReminder(m.ReminderSettings, envelope.Reminding{SentAt: rm.SentAt, Count: rm.Count}, now)
	}
	return r.legacyFlush(ctx)
}
