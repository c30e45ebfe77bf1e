package envelope

import "time"

// Limits of reminders, as Documenso's: at most MaxReminders after a request, and none later
// than ReminderHorizon after it.
const (
	MaxReminders    = 5
	ReminderHorizon = 30 * 24 * time.Hour
)

// Reminding is one recipient's reminders since their last signing request.
type Reminding struct {
	SentAt time.Time // when the request was sent
	Count  int       // reminders sent since
}

// FirstReminder is when the first reminder of a request sent at sentAt is due: reminderSettings'
// sendAfter later, or zero (no reminders) when the envelope has no reminderSettings.
func FirstReminder(s *ReminderSettings, sentAt time.Time) time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.SendAfter.AddTo(sentAt)
}

// RemindNow reports whether a reminder due at now is sent. It is only while the envelope is sent
// by email with reminderSettings, to a recipient still in it who has not acted, may act now
// (their turn) and is not out of time, fewer than MaxReminders times and within ReminderHorizon
// of the request. Otherwise the recipient's reminders stop for good (until a new request). p is
// the recipient (nil: no longer in the envelope); mayActNow, whether MayActNow lists them.
func RemindNow(m Meta, r Reminding, p *Participant, mayActNow bool, now time.Time) bool {
	return m.DistributionMethod == DistributionEmail && m.ReminderSettings != nil &&
		p != nil && p.Status == SigningStatusNotSigned && mayActNow && !p.Expired(now) &&
		r.Count < MaxReminders && now.Sub(r.SentAt) <= ReminderHorizon
}

// NextReminder is when the reminder after the one sent at now is due (r counts that one):
// reminderSettings' repeatEvery later, or zero (no more) once MaxReminders were sent or when it
// would fall beyond ReminderHorizon after the request.
func NextReminder(s *ReminderSettings, r Reminding, now time.Time) time.Time {
	if s == nil || r.Count >= MaxReminders {
		return time.Time{}
	}
	next := s.RepeatEvery.AddTo(now)
	if next.Sub(r.SentAt) > ReminderHorizon {
		return time.Time{}
	}
	return next
}
