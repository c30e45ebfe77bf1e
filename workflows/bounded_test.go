package workflows

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// The Update validators refuse requests beyond their bounds before anything reaches the
// history: the handlers never run.
func TestValidatorsRefuseUnboundedRequests(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	renewed := 0
	env.OnActivity(acts.RenewDeadlines, mock.Anything, mock.Anything).Return(func(any, any) ([]envelope.Recipient, error) {
		renewed++
		return nil, nil
	})
	ua, long := strings.Repeat("x", 1<<20), strings.Repeat("r", envelope.MaxReason+1)
	name := strings.Repeat("n", envelope.MaxActorName+1)
	cases := []struct {
		name string
		arg  any
		want string
	}{
		{UpdateResend, ResendRequest{RecipientIDs: slices.Repeat([]int64{1}, envelope.MaxResendRecipients+1)}, "recipients: must list at most 100"},
		{UpdateComplete, CompleteRequest{RecipientID: 1, Actor: envelope.Actor{UserAgent: &ua}}, "actor.userAgent: must be at most 512 bytes"},
		{UpdateReject, RejectRequest{RecipientID: 1, Reason: long}, "reason: must be at most 2000 characters"},
		{UpdateReject, RejectRequest{RecipientID: 1, Reason: "no", OnBehalfOf: &envelope.Actor{Name: &name}}, "onBehalfOf.name: must be at most 255 characters"},
		{UpdateCancel, CancelRequest{Reason: long}, "reason: must be at most 2000 characters"},
	}
	for i, c := range cases {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(c.name, c.name+string(rune('a'+i)), &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { cases[i].want = checkRefusal(t, c.name, err, c.want) },
				OnAccept:   func() { t.Errorf("%s accepted", c.name) },
				OnComplete: func(any, error) {},
			}, c.arg)
		}, time.Duration(i+1)*time.Minute)
	}
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.want != "" {
			t.Errorf("%s was not refused", c.name)
		}
	}
	if renewed != 0 || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("renewed %d times, finished %v", renewed, b.finished)
	}
}

func checkRefusal(t *testing.T, name string, err error, want string) string {
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s refused with %v, want %q", name, err, want)
	}
	return ""
}

// A burst of refresh signals (200 in two seconds) reads the envelope again a few times, not
// once per signal, and the change it announced is acted on.
func TestRefreshSignalsAreCoalesced(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	var before int
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		before = b.loads
		r := rec(2, envelope.RoleSigner, nil)
		r.Email, r.SigningStatus, r.SendStatus = "added@example.com", envelope.SigningStatusNotSigned, envelope.SendStatusNotSent
		b.snap.Recipients = append(b.snap.Recipients, r)
		b.mu.Unlock()
	}, time.Hour)
	for i := range 200 {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalRefresh, nil) }, time.Hour+time.Duration(i)*10*time.Millisecond)
	}
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		reloads := b.loads - before
		b.mu.Unlock()
		if reloads < 1 || reloads > 3 {
			t.Errorf("200 refresh signals in 2 s read the envelope %d times, want 1 to 3", reloads)
		}
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("signing requests %v, want the added recipient's too", got)
		}
	}, 2*time.Hour)
	update(t, env, 3*time.Hour, UpdateCancel, CancelRequest{}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
}

// continued runs the workflow from in until it ends or continues as new, and returns the next
// run's input (nil when it ended).
func continued(t *testing.T, env *testsuite.TestWorkflowEnvironment, in Input) *Input {
	t.Helper()
	env.ExecuteWorkflow(EnvelopeWorkflow, in)
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		if err != nil {
			t.Fatalf("run failed: %v", err)
		}
		return nil
	}
	var next Input
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	return &next
}

// When Temporal suggests it, a run waits for its Update handlers, then continues as new with its
// state: the next run sends no request twice, keeps counting reminders, and completes.
func TestContinueAsNewCarriesTheState(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)))
	b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}}
	env := newEnv(t, b)
	update(t, env, 50*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false) // after 2 reminders to 1
	env.RegisterDelayedCallback(func() { env.SetContinueAsNewSuggested(true) }, 60*time.Hour)
	next := continued(t, env, Input{EnvelopeID: "envelope_test"})
	if next == nil || next.Continued == nil {
		t.Fatal("the run did not continue as new")
	}
	c := next.Continued
	if !slices.Equal(c.Requested, []int64{1, 2}) || len(c.Reminders) != 2 || c.Reminders[0].Sent != 2 || c.Runs != 1 || c.Snapshot.Status != envelope.StatusPending {
		t.Fatalf("continuation %+v", c)
	}
	requests := len(b.mailsOf(envelope.MailSigningRequest))

	env2 := newEnv(t, b)
	update(t, env2, 100*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false) // after reminders to 2, due from the first run's request
	if again := continued(t, env2, *next); again != nil {
		t.Fatal("the second run continued as new without a suggestion")
	}
	if got := len(b.mailsOf(envelope.MailSigningRequest)); got != requests {
		t.Errorf("signing requests went from %d to %d in the next run: sent twice", requests, got)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("finished %v", b.finished)
	}
	seen := map[int]bool{}
	for _, n := range b.mails {
		if n.Kind == envelope.MailReminder && n.RecipientID == 2 {
			if seen[n.Seq] {
				t.Errorf("reminder %d to recipient 2 sent twice", n.Seq)
			}
			seen[n.Seq] = true
		}
	}
	if len(seen) < 2 {
		t.Errorf("reminders to recipient 2: %v, want the 2 the carried schedule makes due", seen)
	}
}
