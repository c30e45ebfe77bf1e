package workflows

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// reminder tracks one recipient's reminders.
type reminder struct {
	RecipientID int64
	SentAt      time.Time
	Count       int       // reminders since the last request, for the limits
	Sent        int       // reminders ever sent to the recipient: their Message-ID sequence, never reset
	Next        time.Time // zero: no more
}

// restartReminders counts recipient id's reminders from a request sent again at now: the count
// for the limits starts over, the Message-ID sequence goes on.
func (r *run) restartReminders(m envelope.Meta, id int64, now time.Time) {
	sent := 0
	for _, rm := range r.reminders {
		if rm.RecipientID == id {
			sent = rm.Sent
		}
	}
	r.reminders = slices.DeleteFunc(r.reminders, func(rm reminder) bool { return rm.RecipientID == id })
	if m.ReminderSettings != nil {
		r.reminders = append(r.reminders, reminder{RecipientID: id, SentAt: now, Sent: sent, Next: envelope.FirstReminder(m.ReminderSettings, now)})
	}
}

// awaitsExpiry reports whether rec's deadline is still to be acted on.
func (r *run) awaitsExpiry(rec envelope.ProgressRecipient) bool {
	return envelope.AwaitsExpiry(rec.Participant(), slices.Contains(r.notified, rec.ID))
}

// overdue lists the recipients whose time to act ran out at now (envelope's Overdue) and whose
// expiry was not handled yet.
func (r *run) overdue(now time.Time) []int64 {
	var out []int64
	for _, rec := range r.snap.Recipients {
		if rec.Participant().Overdue(now) && !slices.Contains(r.notified, rec.ID) {
			out = append(out, rec.ID)
		}
	}
	return out
}

// noticeExpired queues the mails of each recipient's expiry the store noted at now.
func (r *run) noticeExpired(noted []envelope.ProgressRecipient, now time.Time) {
	for _, rec := range noted {
		r.queueNotices(envelope.RecipientExpiredEvent(r.snap.EventRecipient(rec.ID), now))
	}
}

// nextDeadline is the earliest reminder or expiry to act on, or zero.
func (r *run) nextDeadline() time.Time {
	var next time.Time
	earlier := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, rm := range r.reminders {
		earlier(rm.Next)
	}
	for _, rec := range r.snap.Recipients {
		if r.awaitsExpiry(rec) {
			earlier(*rec.ExpiresAt)
		}
	}
	return next
}

// timersDue handles expired recipients and queues the reminders that are due under the lock,
// then sends the mails outside it.
func (r *run) timersDue(ctx workflow.Context) error {
	err := r.locked(ctx, func() error {
		if err := r.expire(ctx); err != nil {
			return err
		}
		r.remind(ctx)
		return nil
	})
	if err != nil {
		return err
	}
	r.flush(ctx)
	return nil
}

// expire records the recipients whose deadline passed and queues the owner's mails about them.
func (r *run) expire(ctx workflow.Context) error {
	now := workflow.Now(ctx)
	expired := r.overdue(now)
	if len(expired) == 0 {
		return nil
	}
	var list []envelope.ProgressRecipient
	if err := r.db(ctx, actExpireRecipients, r.in.EnvelopeID, now).Get(ctx, &list); err != nil {
		return err
	}
	r.notified = append(r.notified, expired...)
	r.noticeExpired(list, now)
	return nil
}

// remind queues each reminder that is due, or stops the recipient's reminders when
// envelope.RemindNow says so.
func (r *run) remind(ctx workflow.Context) {
	now := workflow.Now(ctx)
	m := r.snap.Meta
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
		rm.Sent++
		r.queue(envelope.Mailing{Kind: envelope.MailReminder, EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, Seq: rm.Sent},
			&envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, EmailType: envelope.EmailTypeReminder, Mailed: true, Resending: true})
		rm.Next = envelope.NextReminder(m.ReminderSettings, envelope.Reminding{SentAt: rm.SentAt, Count: rm.Count}, now)
	}
}
