package envelope

import "time"

// DefaultExpiration is a recipient's time to act when documentMeta's envelopeExpirationPeriod
// sets none: three months.
var DefaultExpiration = Duration{Unit: UnitMonth, Amount: 3}

// Deadline is the deadline of a recipient sent the envelope at sentAt: sentAt plus documentMeta's
// envelopeExpirationPeriod (DefaultExpiration when it sets none), or nil when the period is
// disabled (the recipient never expires).
func Deadline(period *ExpirationPeriod, sentAt time.Time) *time.Time {
	if period != nil && period.Disabled {
		return nil
	}
	d := DefaultExpiration
	if period != nil {
		d = period.Duration
	}
	t := d.AddTo(sentAt)
	return &t
}

// AwaitsExpiry reports whether a participant's deadline is still to be acted on: they have one,
// must still act (Pending) and their expiry was not handled yet.
func AwaitsExpiry(p Participant, handled bool) bool {
	return p.ExpiresAt != nil && p.Pending() && !handled
}

// Overdue reports whether the participant's time to act ran out at now while they still had to
// act (Pending): their link shows it expired, and their expiry is noted once
// (DOCUMENT_RECIPIENT_EXPIRED, ownerRecipientExpired). Someone who signed or rejected in time,
// and a CC, is never overdue.
func (p Participant) Overdue(now time.Time) bool {
	return p.Pending() && p.Expired(now)
}
