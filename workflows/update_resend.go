package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

func (r *run) validateResend(ctx workflow.Context, req ResendRequest) error {
	if ready, err := r.checked(req); !ready {
		return err
	}
	for _, id := range req.RecipientIDs {
		if r.snap.Recipient(id) == nil {
			return appError(envelope.NotFound(fmt.Sprintf("Recipient %d", id)))
		}
	}
	return nil
}

// onResend sends the envelope again to the listed recipients who have not acted: a new deadline,
// a new request (with its own Message-ID) and reminders counted from now. The mails go out from
// the main loop, outside the lock.
func (r *run) onResend(ctx workflow.Context, req ResendRequest) error {
	if r.legacy {
		return r.legacyOnResend(ctx, req)
	}
	start := workflow.Now(ctx)
	if err := r.act(ctx, func() (int, error) { return r.resend(ctx, req) }); err != nil {
		return err
	}
	r.waitMailed(ctx, start)
	return nil
}

// resend renews the recipients' deadlines and queues their requests; the caller holds the lock.
// It returns the version to wait for.
func (r *run) resend(ctx workflow.Context, req ResendRequest) (int, error) {
	if err := r.acting(); err != nil {
		return 0, err
	}
	now := workflow.Now(ctx)
	m := r.snap.Meta
	in := envelope.Renewal{EnvelopeID: r.in.EnvelopeID, RecipientIDs: req.RecipientIDs, ExpiresAt: envelope.Deadline(m.EnvelopeExpirationPeriod, now)}
	var renewed []envelope.ProgressRecipient
	if err := r.db(ctx, actRenewDeadlines, in).Get(ctx, &renewed); err != nil {
		return 0, err
	}
	for _, rec := range renewed {
		r.resends++
		if envelope.ResendMailed(m, rec) {
			n := envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, Seq: resendSeq + r.resends}
			r.queue(n, &envelope.Sent{EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, EmailType: envelope.RequestEmailType(rec.Role), Mailed: true, Resending: true})
			if !slices.Contains(r.requested, rec.ID) {
				r.requested = append(r.requested, rec.ID)
			}
			r.restartReminders(m, rec.ID, now)
		}
		r.notified = slices.DeleteFunc(r.notified, func(id int64) bool { return id == rec.ID })
	}
	var snap envelope.Progress
	if err := r.db(ctx, actLoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
		return 0, err
	}
	// The requests just queued mail each renewed recipient's current link, replaced or not.
	if r.snap.LinkVersions == nil {
		r.snap.LinkVersions = map[int64]int{}
	}
	for _, rec := range renewed {
		r.snap.LinkVersions[rec.ID] = snap.LinkVersions[rec.ID]
	}
	r.replaceSnapshot(snap)
	r.bump()
	return r.version, nil
}
