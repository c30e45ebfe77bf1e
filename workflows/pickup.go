package workflows

import (
	"slices"
	"strconv"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// A run started for an envelope that is PENDING already (the run before it ended abandoned,
// failed, or was terminated, and a redistribute, a signer's Update or `sobre repair` started a
// new one: Input.Pickup) holds nothing of what the runs before did. Since version
// "pickup-from-store" it reads that from PostgreSQL (envelope.Pickup) and goes on without mailing
// anything twice:
//
//   - requested: a recipient whose signing request the mail log holds as handed to the relay
//     (or refused by it, as the run that sent it counted it), and a SENT recipient who gets no request mail (RequestMailed), was sent their request. A
//     request only claimed in the mail log is queued again under its Message-ID, which the mail
//     log sends once; a recipient SENT only because they opened their link early still gets it.
//   - notified: a recipient whose expiry the store noted.
//   - resends number their Message-IDs after the highest resend in the mail log, so that a later
//     resend is never taken for one already sent.
//   - reminders restart from the last request in the mail log: the reminders sent since count
//     for the limits, their Message-ID sequence goes on from the highest sent, and the next is
//     due when it would have been (a reminder missed while no run was there goes out once, at
//     once).
//   - the owner's mails about code locks and refused RUNs are queued again, each under its own
//     Message-ID, which the mail log sends once: one whose event happened while no run was
//     there is sent, one sent before is not.

// resendSeq is the Message-ID sequence of the first resent request; resend n is resendSeq + n.
const resendSeq = 100

// leftAlone reports whether a run started to pick an envelope up (in.Pickup) finds it, as
// current, not PENDING: it changes nothing (a draft stays a draft), and its Updates are answered
// as the envelope's status says (acting).
func leftAlone(in Input, current envelope.Progress) bool {
	return in.Pickup && current.Status != envelope.StatusPending
}

// pickup reads what the runs before did (envelope.Pickup) and takes it over (takeOver). The
// run's team, unknown to a caller that starts it from an Update, is set with it.
func (r *run) pickup(ctx workflow.Context) error {
	var p envelope.Pickup
	if err := r.db(ctx, actLoadPickup, r.in.EnvelopeID).Get(ctx, &p); err != nil {
		return err
	}
	if r.in.TeamID == 0 && p.TeamID != 0 {
		r.in.TeamID = p.TeamID
		if err := workflow.UpsertTypedSearchAttributes(ctx, AttrTeamID.ValueSet(strconv.FormatInt(p.TeamID, 10))); err != nil {
			return err
		}
	}
	r.takeOver(p)
	workflow.GetLogger(ctx).Info("picked the envelope up from PostgreSQL", "envelope", r.in.EnvelopeID,
		"requested", len(r.requested), "notified", len(r.notified), "resends", r.resends, "reminders", len(r.reminders))
	return nil
}

// takeOver sets the run's record of what was done from p, as the comment above says.
func (r *run) takeOver(p envelope.Pickup) {
	m := r.snap.Meta
	r.notified = slices.Clone(p.Noted)
	for _, rec := range r.snap.Recipients {
		if lastRequest(p.Mailed, rec.ID) != nil || (rec.SendStatus == envelope.SendStatusSent && !envelope.RequestMailed(m, rec)) {
			r.requested = append(r.requested, rec.ID)
		}
	}
	for _, mailed := range p.Mailed {
		if mailed.Kind == envelope.MailSigningRequest && mailed.Seq > resendSeq && mailed.Seq < replacedLinkSeq {
			r.resends = max(r.resends, mailed.Seq-resendSeq)
		}
	}
	if m.DistributionMethod != envelope.DistributionEmail || m.ReminderSettings == nil {
		return
	}
	for _, rec := range r.snap.Recipients {
		if sent := lastRequest(p.Mailed, rec.ID); sent != nil && rec.Participant().Pending() {
			r.reminders = append(r.reminders, resumedReminders(m.ReminderSettings, rec.ID, *sent, p.Mailed))
		}
	}
}

// lastRequest is when recipient id's last signing request (first or resent, not a replaced
// link's) was claimed, or nil when the mail log holds none.
func lastRequest(mailed []envelope.Mailed, id int64) *time.Time {
	var last *time.Time
	for _, m := range mailed {
		if m.Kind == envelope.MailSigningRequest && m.RecipientID == id && m.Seq < replacedLinkSeq && (last == nil || m.At.After(*last)) {
			at := m.At
			last = &at
		}
	}
	return last
}

// resumedReminders are recipient id's reminders after their request sent at sentAt, as the
// mail log holds them: counted since sentAt, numbered after the highest ever sent, the next due
// after the last (or the first after the request).
func resumedReminders(s *envelope.ReminderSettings, id int64, sentAt time.Time, mailed []envelope.Mailed) reminder {
	rm := reminder{RecipientID: id, SentAt: sentAt}
	var lastAt time.Time
	for _, m := range mailed {
		if m.Kind != envelope.MailReminder || m.RecipientID != id {
			continue
		}
		rm.Sent = max(rm.Sent, m.Seq)
		if m.At.After(sentAt) {
			rm.Count++
			if m.At.After(lastAt) {
				lastAt = m.At
			}
		}
	}
	if rm.Count == 0 {
		rm.Next = envelope.FirstReminder(s, sentAt)
	} else {
		rm.Next = envelope.NextReminder(s, envelope.Reminding{SentAt: sentAt, Count: rm.Count}, lastAt)
	}
	return rm
}
