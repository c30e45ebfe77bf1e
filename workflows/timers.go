package workflows

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
)

// reminder tracks one recipient's reminders.
type reminder struct {
	RecipientID int64
	SentAt      time.Time
	Count       int       // reminders since the last request, for the limits
	Sent        int       // reminders ever sent to the recipient: their Message-ID sequence, never reset
	Next        time.Time // zero: no more
}

// expiry is the deadline of a recipient sent the envelope at now, or nil for none.
func (r *run) expiry(now time.Time) *time.Time {
	p := r.snap.Meta.EnvelopeExpirationPeriod
	if p != nil && p.Disabled {
		return nil
	}
	d := DefaultExpiration
	if p != nil {
		d = p.Duration
	}
	t := d.AddTo(now)
	return &t
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
		if rec.ExpiresAt != nil && rec.Role != envelope.RoleCC && rec.SigningStatus == envelope.SigningStatusNotSigned && !slices.Contains(r.notified, rec.ID) {
			earlier(*rec.ExpiresAt)
		}
	}
	return next
}

// timersDue queues the reminders that are due and handles expired recipients, then sends the
// mails outside the lock.
func (r *run) timersDue(ctx workflow.Context) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	now := workflow.Now(ctx)
	m := r.snap.Meta
	var expired []int64
	for _, rec := range r.snap.Recipients {
		if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) && rec.Role != envelope.RoleCC &&
			rec.SigningStatus == envelope.SigningStatusNotSigned && !slices.Contains(r.notified, rec.ID) {
			expired = append(expired, rec.ID)
		}
	}
	if len(expired) > 0 {
		var list []activities.Recipient
		if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.ExpireRecipients, r.in.EnvelopeID, now).Get(ctx, &list); err != nil {
			r.mu.Unlock()
			return err
		}
		r.notified = append(r.notified, expired...)
		for _, rec := range list {
			if m.EmailSettings.OwnerRecipientExpired {
				r.queue(activities.Notice{Kind: mail.OwnerExpired, EnvelopeID: r.in.EnvelopeID, ActorID: rec.ID}, nil)
			}
		}
	}
	active := envelope.MayActNow(m.SigningOrder, r.snap.Participants())
	for i := range r.reminders {
		rm := &r.reminders[i]
		if rm.Next.IsZero() || now.Before(rm.Next) {
			continue
		}
		rec := r.snap.Recipient(rm.RecipientID)
		stop := rec == nil || rec.SigningStatus != envelope.SigningStatusNotSigned || !slices.Contains(active, rm.RecipientID) ||
			(rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt)) || rm.Count >= MaxReminders || now.Sub(rm.SentAt) > ReminderHorizon ||
			m.DistributionMethod != envelope.DistributionEmail || m.ReminderSettings == nil
		if stop {
			rm.Next = time.Time{}
			continue
		}
		rm.Count++
		rm.Sent++
		r.queue(activities.Notice{Kind: mail.Reminder, EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, Seq: rm.Sent},
			&activities.MarkSentInput{EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, EmailType: "REMINDER", Mailed: true, Resending: true})
		rm.Next = m.ReminderSettings.RepeatEvery.AddTo(now)
		if rm.Count >= MaxReminders || rm.Next.Sub(rm.SentAt) > ReminderHorizon {
			rm.Next = time.Time{}
		}
	}
	r.mu.Unlock()
	r.flush(ctx)
	return nil
}
