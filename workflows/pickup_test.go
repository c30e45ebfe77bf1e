package workflows

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
)

// A run that picks up a PENDING envelope goes on from what the mail log and the store hold:
// nobody sent their request gets it again, the expiry noted is not noted again, reminders and
// resends number their Message-IDs after the ones sent, and whoever was not sent yet is.
func TestPickupGoesOnFromTheMailLog(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil), rec(3, envelope.RoleSigner, nil))
	b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 2}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 2}}
	env := newEnv(t, b)
	now := b.start
	past, later := now.Add(-time.Hour), now.Add(30*24*time.Hour)
	b.snap.Status = envelope.StatusPending
	b.snap.Recipients[0].SendStatus, b.snap.Recipients[0].ExpiresAt = envelope.SendStatusSent, &later
	b.snap.Recipients[1].SendStatus, b.snap.Recipients[1].ExpiresAt, b.snap.Recipients[1].ExpirationNotifiedAt = envelope.SendStatusSent, &past, &past
	b.snap.Recipients[2].ExpiresAt = &later // not sent yet: its run was lost first
	b.expired = []int64{2}
	day := 24 * time.Hour
	pickup := envelope.Pickup{TeamID: 7, Noted: []int64{2}, Mailed: []envelope.Mailed{
		{Kind: envelope.MailSigningRequest, RecipientID: 1, Seq: 0, At: now.Add(-5 * day)},
		{Kind: envelope.MailReminder, RecipientID: 1, Seq: 1, At: now.Add(-3 * day)},
		{Kind: envelope.MailSigningRequest, RecipientID: 1, Seq: resendSeq + 2, At: now.Add(-2*day - time.Hour)},
		{Kind: envelope.MailReminder, RecipientID: 1, Seq: 2, At: now.Add(-time.Hour)},
		{Kind: envelope.MailSigningRequest, RecipientID: 2, Seq: 0, At: now.Add(-5 * day)},
	}}
	env.OnActivity(acts.LoadPickup, mock.Anything, mock.Anything).Return(pickup, nil)
	env.OnActivity(acts.RenewDeadlines, mock.Anything, mock.Anything).Return([]envelope.ProgressRecipient{envelope.ProgressOf(b.snap.Recipients[0])}, nil)
	update(t, env, 3*day, UpdateResend, ResendRequest{RecipientIDs: []int64{1}}, false)
	update(t, env, 3*day+12*time.Hour, UpdateCancel, CancelRequest{Reason: "done"}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test", Pickup: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range b.mails {
		if n.Kind == envelope.MailSigningRequest || n.Kind == envelope.MailReminder || n.Kind == envelope.MailOwnerExpired {
			got = append(got, activities.MessageID(n, "h"))
		}
	}
	slices.Sort(got)
	want := []string{
		"reminder.test.1.3@h",          // due 2 days after the last reminder (1 h before pickup)
		"reminder.test.3.1@h",          // two days after that request
		"signing_request.test.1.103@h", // the resend after the two before
		"signing_request.test.3.0@h",   // the request its lost run did not send
	}
	if !slices.Equal(got, want) {
		t.Errorf("mails %q, want %q", got, want)
	}
	if !slices.Equal(b.expired, []int64{2}) {
		t.Errorf("expired %v: the expiry noted before was noted again", b.expired)
	}
}

// A pickup run of an envelope that is not PENDING changes nothing: a draft is not distributed,
// and an Update is answered as its status says.
func TestPickupLeavesADraftAlone(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	env.OnActivity(acts.MarkPending, mock.Anything, mock.Anything).Return(func(context.Context, envelope.Distribution) (envelope.Progress, error) {
		t.Error("a pickup run marked a draft PENDING")
		return b.copy(), nil
	})
	update(t, env, 0, UpdateComplete, CompleteRequest{RecipientID: 1}, true)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test", Pickup: true})
	if err := env.GetWorkflowError(); err != nil || len(b.mails) != 0 || b.snap.Status != envelope.StatusDraft {
		t.Fatalf("error %v, mails %v, status %s", err, b.mails, b.snap.Status)
	}
}
