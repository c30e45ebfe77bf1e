package workflows

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
)

// A database that refuses writes for minutes delays the envelope; it does not fail its workflow.
func TestDatabaseOutageIsWaitedOut(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	// About four minutes of retries: the requests' records fail 8 times each (the test
	// environment caps a retry policy without a maximum at 10 attempts).
	b.failMarkSent = 16
	env := newEnv(t, b)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("finished %v", b.finished)
	}
	slices.Sort(b.sent)
	if !slices.Equal(b.sent, []int64{1, 2}) {
		t.Fatalf("recorded as sent: %v (undeliverable: %v)", b.sent, b.undeliverableWhy)
	}
}

// A mail the relay refuses for good is recorded by SendNotice and not retried; the envelope goes
// on and completes.
func TestMailRefusedForGoodDoesNotFailTheEnvelope(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	b.mailErr = func(n envelope.Mailing) error {
		if n.Kind == envelope.MailSigningRequest && n.RecipientID == 1 {
			return temporal.NewNonRetryableApplicationError("550 no such mailbox", envelope.MailRefusedType, nil)
		}
		return nil
	}
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("finished %v", b.finished)
	}
	if slices.Contains(b.sent, 1) {
		t.Error("a request that was never sent was recorded as sent")
	}
	if len(b.undeliverable) != 0 {
		t.Errorf("a refusal SendNotice recorded was recorded again as undeliverable: %v", b.undeliverable)
	}
}

// In sequential order, a first signer whose request the relay keeps refusing for now (4xx, for
// days) still signs by the link they were given, and the second signer's request goes out at
// once: no step of the envelope waits for a mail. The mail that never went out is recorded
// undeliverable once its retries end, and the workflow ends only then.
func TestAMailThatKeepsFailingDelaysNothing(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)))
	b.mailErr = func(n envelope.Mailing) error {
		if n.Kind == envelope.MailSigningRequest && n.RecipientID == 1 {
			return errors.New("451 4.3.0 try again later")
		}
		return nil
	}
	env := newEnv(t, b)
	update(t, env, time.Minute, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("finished %v", b.finished)
	}
	var secondAt time.Time
	for i, n := range b.mails {
		if n.Kind == envelope.MailSigningRequest && n.RecipientID == 2 {
			secondAt = b.mailedAt[i]
			break
		}
	}
	if secondAt.IsZero() || secondAt.Sub(b.start) > 2*time.Minute {
		t.Errorf("the second request went out %v after the start, want right after the first signer signed (1 min)", secondAt.Sub(b.start))
	}
	if len(b.undeliverable) != 1 || b.undeliverable[0].RecipientID != 1 || b.undeliverable[0].Mark == nil {
		t.Errorf("recorded undeliverable: %+v, want the first request, with its mark", b.undeliverable)
	}
	if slices.Contains(b.sent, 1) {
		t.Error("a request that never went out was recorded as sent")
	}
}

// While the relay keeps failing a mail (nine attempts over eight and a half minutes), recipients
// still complete at once: mails are sent outside the workflow's lock.
func TestSlowRelayDoesNotHoldCompletions(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	failures := 0
	b.mailErr = func(n envelope.Mailing) error {
		if n.Kind == envelope.MailSigningRequest && n.RecipientID == 2 && failures < 9 {
			failures++
			return errors.New("421 try again later")
		}
		return nil
	}
	env := newEnv(t, b)
	var completedAt time.Time
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateComplete, "c1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("rejected: %v", err) },
			OnAccept: func() {},
			OnComplete: func(_ interface{}, err error) {
				if err != nil {
					t.Errorf("complete: %v", err)
				}
				completedAt = env.Now()
			},
		}, CompleteRequest{RecipientID: 1})
	}, 2*time.Minute)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if waited := completedAt.Sub(b.start); waited > 3*time.Minute {
		t.Fatalf("the completion sent at 2 min was answered at %s: it waited for the relay", waited)
	}
	if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("signing requests %v after %d failures", got, failures)
	}
}

// Reminders after a redistribute keep counting their Message-ID sequence, so none is mistaken
// for one already sent.
func TestRemindersAfterRedistributeAreNew(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}}
	env := newEnv(t, b)
	env.OnActivity(acts.RenewDeadlines, mock.Anything, mock.Anything).Return([]envelope.ProgressRecipient{envelope.ProgressOf(b.snap.Recipients[0])}, nil)
	update(t, env, 60*time.Hour, UpdateResend, ResendRequest{RecipientIDs: []int64{1}}, false)
	update(t, env, 120*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	ids := map[string]bool{}
	reminders := 0
	for _, n := range b.mails {
		if n.Kind == envelope.MailReminder {
			reminders++
		}
		id := activities.MessageID(n, "x")
		if ids[id] {
			t.Errorf("Message-ID %s used twice", id)
		}
		ids[id] = true
	}
	if reminders < 3 {
		t.Fatalf("%d reminders, want reminders before and after the redistribute", reminders)
	}
}

// A cancel and a rejection arriving together: one of them ends the envelope, the other is
// refused, and the envelope is finished once.
func TestCancelAndRejectTogether(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	outcomes := map[string]error{}
	for _, u := range []struct {
		name string
		arg  any
	}{{UpdateReject, RejectRequest{RecipientID: 1, Reason: "no"}}, {UpdateCancel, CancelRequest{Reason: "stop"}}} {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(u.name, u.name, &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { outcomes[u.name] = err },
				OnAccept:   func() {},
				OnComplete: func(_ interface{}, err error) { outcomes[u.name] = err },
			}, u.arg)
		}, time.Hour)
	}
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if len(b.finished) != 1 {
		t.Fatalf("finished %v, want exactly once", b.finished)
	}
	won := map[envelope.Status]string{envelope.StatusRejected: UpdateReject, envelope.StatusCancelled: UpdateCancel}[b.finished[0]]
	for name, err := range outcomes {
		if (name == won) != (err == nil) {
			t.Errorf("%s: %v (the envelope ended %s)", name, err, b.finished[0])
		}
	}
}

// A recipient removed while PENDING is told once, even when another event reloads the envelope
// before the refresh signal arrives.
func TestRemovedRecipientToldWhenAnotherEventReloadsFirst(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil), rec(3, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		b.snap.Recipients = slices.DeleteFunc(b.snap.Recipients, func(r envelope.Recipient) bool { return r.ID == 3 })
		b.mu.Unlock()
	}, time.Hour)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalRefresh, nil) }, 3*time.Hour)
	update(t, env, 4*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if got := b.mailsOf(envelope.MailRecipientRemoved); !slices.Equal(got, []int64{3}) {
		t.Fatalf("removed mails to %v, want [3] once", got)
	}
}
