package workflows

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// fakeBackend plays the activities on an in-memory envelope, with the same rules as the
// PostgreSQL ones, so that the workflow's logic is tested with simulated time. The real
// activities are tested against PostgreSQL and a real Temporal server elsewhere.
type fakeBackend struct {
	mu       sync.Mutex
	snap     persistence.Snapshot
	mails    []envelope.Mailing
	sent     []int64
	finished []envelope.Status
	sealed   int // seals made, each before the envelope was finished COMPLETED
	expired  []int64
	loads    int
	nextIDs  []int64
	start    time.Time

	// Faults: MarkSent fails its first failMarkSent calls (a database outage); mailErr, when
	// set, decides each SendNotice attempt's error; sealErr, when set, each SealEnvelope
	// attempt's.
	failMarkSent int
	mailErr      func(n envelope.Mailing) error
	// mailedAt is when each of mails was sent, by the test's clock.
	mailedAt []time.Time
	// undeliverable lists the mails recorded undeliverable after their retries.
	undeliverable    []envelope.Mailing
	undeliverableWhy []string
	sealErr          func() error
	sealAttempts     int
}

// acts names the activities for the fake: their names and signatures are the worker's.
var acts *activities.Activities

func order(n int) *int { return &n }

func newBackend(so envelope.SigningOrder, recipients ...envelope.Recipient) *fakeBackend {
	meta := envelope.DefaultMeta("m")
	meta.SigningOrder = so
	for i := range recipients {
		recipients[i].SigningStatus, recipients[i].SendStatus = envelope.SigningStatusNotSigned, envelope.SendStatusNotSent
		if recipients[i].Email == "" {
			recipients[i].Email = "r@example.com"
		}
	}
	return &fakeBackend{snap: persistence.Snapshot{EnvelopeID: "envelope_test", Status: envelope.StatusDraft, Meta: meta, Recipients: recipients}}
}

// copy is the snapshot as the activities answer it (without the recipients' secrets).
func (b *fakeBackend) copy() envelope.Progress {
	return activities.SnapshotOf(b.snap)
}

func (b *fakeBackend) register(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(acts.LoadSnapshot, mock.Anything, mock.Anything).Return(func(ctx context.Context, id string) (envelope.Progress, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.loads++
		return b.copy(), nil
	})
	env.OnActivity(acts.MarkPending, mock.Anything, mock.Anything).Return(func(ctx context.Context, in envelope.Distribution) (envelope.Progress, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.snap.Status == envelope.StatusDraft {
			b.snap.Status = envelope.StatusPending
		}
		for i, r := range b.snap.Recipients {
			if in.ExpiresAt != nil && envelope.ParticipantOf(r).Pending() && r.ExpiresAt == nil {
				b.snap.Recipients[i].ExpiresAt = in.ExpiresAt
			}
		}
		return b.copy(), nil
	})
	env.OnActivity(acts.SendNotice, mock.Anything, mock.Anything).Return(func(ctx context.Context, n envelope.Mailing) error {
		return b.sendNotice(env, n)
	})
	// SendNotices as the activity does it: each notice tried, the outcome as NoticesError says.
	// A retry skips the notices an earlier attempt of the same activity sent, as the mail log's
	// claims make the real one do.
	sentBy := map[string]map[string]bool{}
	env.OnActivity(acts.SendNotices, mock.Anything, mock.Anything).Return(func(ctx context.Context, ns []envelope.Mailing) error {
		b.mu.Lock()
		id := activity.GetInfo(ctx).ActivityID
		if sentBy[id] == nil {
			sentBy[id] = map[string]bool{}
		}
		sent := sentBy[id]
		b.mu.Unlock()
		var errs []error
		for _, n := range ns {
			key := activities.MessageID(n, "")
			if sent[key] {
				continue
			}
			err := b.sendNotice(env, n)
			sent[key] = activities.NoticesError([]error{err}) == nil // sent, or refused and recorded
			errs = append(errs, err)
		}
		return activities.NoticesError(errs)
	})
	env.OnActivity(acts.MailUndeliverable, mock.Anything, mock.Anything, mock.Anything).Return(func(ctx context.Context, n envelope.Mailing, reason string) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.undeliverable = append(b.undeliverable, n)
		b.undeliverableWhy = append(b.undeliverableWhy, reason)
		return nil
	})
	b.registerStore(env)
}

// sendNotice is the fake's SendNotice of n: mailErr decides its error; a request's or
// reminder's mark is recorded with the mail.
func (b *fakeBackend) sendNotice(env *testsuite.TestWorkflowEnvironment, n envelope.Mailing) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mailErr != nil {
		if err := b.mailErr(n); err != nil {
			return err
		}
	}
	// The store records a request's or reminder's mark with the mail, in one transaction.
	if n.Mark != nil {
		if err := b.markSent(*n.Mark); err != nil {
			return err
		}
	}
	b.mails = append(b.mails, n)
	b.mailedAt = append(b.mailedAt, env.Now())
	return nil
}

// registerStore registers the fake's store activities.
func (b *fakeBackend) registerStore(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(acts.MarkSent, mock.Anything, mock.Anything).Return(func(ctx context.Context, in envelope.Sent) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.markSent(in)
	})
	env.OnActivity(acts.CompleteRecipient, mock.Anything, mock.Anything).Return(func(ctx context.Context, in envelope.RecipientCompletion) (envelope.Progress, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.nextIDs = append(b.nextIDs, in.NextID)
		for i := range b.snap.Recipients {
			r := &b.snap.Recipients[i]
			if r.ID == in.RecipientID {
				// The store's decision: without fields to fill, the recipient becomes SIGNED.
				if _, err := envelope.Complete(*r, b.snap.Meta, b.snap.Recipients, nil, in.Now); err != nil {
					return envelope.Progress{}, err
				}
				r.SigningStatus = envelope.SigningStatusSigned
				if in.RequestID != "" {
					r.OutcomeRequest = &in.RequestID
				}
			}
			if in.NextSigner != nil && r.ID == in.NextID {
				r.Email, r.Name = in.NextSigner.Email, in.NextSigner.Name
			}
		}
		return b.copy(), nil
	})
	env.OnActivity(acts.RejectRecipient, mock.Anything, mock.Anything).Return(func(ctx context.Context, in envelope.RecipientRejection) (envelope.Progress, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, r := range b.snap.Recipients {
			if r.ID == in.RecipientID {
				if err := envelope.MayReject(envelope.ParticipantOf(r), in.External, in.Now); err != nil {
					return envelope.Progress{}, err
				}
				b.snap.Recipients[i].SigningStatus = envelope.SigningStatusRejected
				if in.RequestID != "" {
					b.snap.Recipients[i].OutcomeRequest = &in.RequestID
				}
			}
		}
		return b.copy(), nil
	})
	env.OnActivity(acts.SealEnvelope, mock.Anything, mock.Anything).Return(func(ctx context.Context, id string) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.finished) > 0 {
			return errors.New("sealed after the envelope was finished")
		}
		b.sealAttempts++
		if b.sealErr != nil {
			if err := b.sealErr(); err != nil {
				return err
			}
		}
		b.sealed++
		return nil
	})
	env.OnActivity(acts.FinishEnvelope, mock.Anything, mock.Anything).Return(func(ctx context.Context, in envelope.Ending) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		status, ends := in.Event().Ending()
		if !ends {
			return temporal.NewNonRetryableApplicationError("an event that ends nothing", "TEST", nil)
		}
		if status == envelope.StatusCompleted && b.sealed == 0 {
			return temporal.NewNonRetryableApplicationError("COMPLETED before the seal", "TEST", nil)
		}
		b.snap.Status = status
		b.finished = append(b.finished, status)
		return nil
	})
	env.OnActivity(acts.ExpireRecipients, mock.Anything, mock.Anything, mock.Anything).Return(func(ctx context.Context, id string, now time.Time) ([]envelope.ProgressRecipient, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		var out []envelope.ProgressRecipient
		for _, r := range b.snap.Recipients {
			if envelope.ParticipantOf(r).Overdue(now) && !slices.Contains(b.expired, r.ID) {
				b.expired = append(b.expired, r.ID)
				out = append(out, envelope.ProgressOf(r))
			}
		}
		return out, nil
	})
}

// mailsOf lists, sorted, the recipients (0: the owner) sent notices of kind.
func (b *fakeBackend) mailsOf(kind envelope.Mail) []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int64
	for _, n := range b.mails {
		if n.Kind == kind {
			out = append(out, n.RecipientID)
		}
	}
	slices.Sort(out) // notices sent together go out in parallel, in any order
	return out
}

// newEnv is a test environment whose activities b plays; the mocks of first, registered before
// b's, answer the calls they match.
func newEnv(t *testing.T, b *fakeBackend, first ...func(*testsuite.TestWorkflowEnvironment)) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(EnvelopeWorkflow)
	for _, f := range first {
		f(env)
	}
	b.register(env)
	b.start = env.Now()
	return env
}

// update sends an Update at delay and records its outcome.
func update(t *testing.T, env *testsuite.TestWorkflowEnvironment, delay time.Duration, name string, arg any, wantErr bool) {
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(name, name+time.Duration(delay).String(), &testsuite.TestUpdateCallback{
			OnReject: func(err error) {
				if !wantErr {
					t.Errorf("%s at %s rejected: %v", name, delay, err)
				}
			},
			OnAccept: func() {},
			OnComplete: func(_ interface{}, err error) {
				if (err != nil) != wantErr {
					t.Errorf("%s at %s: error %v, want error %v", name, delay, err, wantErr)
				}
			},
		}, arg)
	}, delay)
}

func rec(id int64, role envelope.Role, o *int) envelope.Recipient {
	return envelope.Recipient{ID: id, Role: role, SigningOrder: o, Name: "R"}
}

func TestSequentialWithApproverAndSharedOrder(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential,
		rec(1, envelope.RoleApprover, order(1)), rec(2, envelope.RoleSigner, order(2)), rec(3, envelope.RoleSigner, order(2)), rec(4, envelope.RoleCC, order(3)))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1}) {
			t.Errorf("before approval, signing requests to %v, want [1]", got)
		}
	}, time.Hour)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, true) // out of turn
	update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2, 3}) {
			t.Errorf("after approval, signing requests to %v, want [1 2 3]", got)
		}
	}, 4*time.Hour)
	update(t, env, 5*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 3}, false)
	update(t, env, 6*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 3}, true) // already signed
	update(t, env, 7*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: completed %v, error %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Errorf("finished %v", b.finished)
	}
	if got := b.mailsOf(envelope.MailDocumentCompleted); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		t.Errorf("completion mails to %v, want every recipient including the CC", got)
	}
	if got := b.mailsOf(envelope.MailOwnerCompleted); len(got) != 1 {
		t.Errorf("owner completion mails %v", got)
	}
	if got := b.mailsOf(envelope.MailDocumentPending); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("'waiting for others' mails to %v, want [1 3]", got)
	}
}

func TestParallelEveryoneAtOnce(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleViewer, nil), rec(3, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2, 3}) {
			t.Errorf("signing requests %v", got)
		}
	}, time.Minute)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 3}, false)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
}

func TestRemindersOverWeeks(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 2}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 3}}
	env := newEnv(t, b)
	update(t, env, 36*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false) // before their first reminder
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailReminder); len(got) != 1 {
			t.Errorf("after 2.5 days: %d reminders, want 1", len(got))
		}
	}, 60*time.Hour)
	env.RegisterDelayedCallback(func() {
		got := b.mailsOf(envelope.MailReminder)
		if len(got) != envelope.MaxReminders {
			t.Errorf("after 8 weeks: %d reminders, want %d (the cap)", len(got), envelope.MaxReminders)
		}
		for _, id := range got {
			if id != 1 {
				t.Errorf("reminder to %d, who has signed", id)
			}
		}
		var q State
		v, err := env.QueryWorkflow(QueryState)
		if err != nil || v.Get(&q) != nil {
			t.Fatalf("query: %v", err)
		}
		if !slices.Equal(q.MayActNow, []int64{1}) || q.Recipients[0].Reminders != envelope.MaxReminders || q.Recipients[0].NextReminderAt != nil {
			t.Errorf("state %+v", q)
		}
	}, 8*7*24*time.Hour)
	update(t, env, 9*7*24*time.Hour, UpdateCancel, CancelRequest{Reason: "done testing"}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil {
		t.Fatal(env.GetWorkflowError())
	}
}

// Once everyone whose turn it is has expired, the envelope stays PENDING and its run ends
// (abandoned.go): at the deadline, not later, with the owner told once.
func TestExpiryKeepsTheEnvelopePendingAndEndsTheRun(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	b.snap.Meta.EnvelopeExpirationPeriod = &envelope.ExpirationPeriod{Duration: envelope.Duration{Unit: envelope.UnitWeek, Amount: 1}}
	b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 2}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 2}}
	env := newEnv(t, b)
	update(t, env, 24*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil || !env.IsWorkflowCompleted() {
		t.Fatalf("the run of an abandoned envelope: completed %v, error %v", env.IsWorkflowCompleted(), err)
	}
	if !slices.Equal(b.expired, []int64{2}) || len(b.finished) != 0 || b.snap.Status != envelope.StatusPending {
		t.Errorf("expired %v, finished %v, status %s: want [2], none, PENDING", b.expired, b.finished, b.snap.Status)
	}
	if got := b.mailsOf(envelope.MailOwnerExpired); len(got) != 1 {
		t.Errorf("owner expiry mails %v, want one", got)
	}
	if ran := env.Now().Sub(b.start); ran != 7*24*time.Hour {
		t.Errorf("the run ended after %s, want at the deadline (168h)", ran)
	}
}

// A run whose envelope still has someone in time never ends on its own: a signer without a
// deadline keeps it waiting while the other's expiry is noted.
func TestARunWithSomeoneInTimeDoesNotEnd(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	b.snap.Meta.EnvelopeExpirationPeriod = &envelope.ExpirationPeriod{Disabled: true} // recipient 2 never expires
	env := newEnv(t, b)
	week := b.start.Add(7 * 24 * time.Hour)
	b.snap.Recipients[0].ExpiresAt = &week
	update(t, env, 30*24*time.Hour, UpdateCancel, CancelRequest{Reason: "still open after a month"}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCancelled}) || !slices.Equal(b.expired, []int64{1}) {
		t.Fatalf("error %v, finished %v, expired %v", env.GetWorkflowError(), b.finished, b.expired)
	}
}

func TestRejectionMidwayEndsTheEnvelope(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)), rec(3, envelope.RoleSigner, order(3)))
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, 2*time.Hour, UpdateReject, RejectRequest{RecipientID: 2, Reason: "wrong amount"}, false)
	update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 3}, true)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusRejected}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
	if got := b.mailsOf(envelope.MailRejectionConfirmed); !slices.Equal(got, []int64{2}) {
		t.Errorf("rejection confirmation to %v", got)
	}
	if got := b.mailsOf(envelope.MailOwnerRejected); len(got) != 1 {
		t.Errorf("owner rejection notices %v", got)
	}
	if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("signing requests %v: recipient 3 was never reached", got)
	}
}

func TestCancel(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleCC, nil))
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateCancel, CancelRequest{Reason: "wrong file"}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCancelled}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
	if got := b.mailsOf(envelope.MailEnvelopeCancelled); !slices.Equal(got, []int64{1}) {
		t.Errorf("cancel mails to %v, want the signer only", got)
	}
}

func TestDictateNextSigner(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)), rec(3, envelope.RoleSigner, order(3)))
	b.snap.Meta.AllowDictateNextSigner = true
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1, NextSigner: &envelope.NextSigner{Email: "new@example.com", Name: "Nuevo"}}, false)
	env.RegisterDelayedCallback(func() {
		if !slices.Equal(b.nextIDs, []int64{2}) || b.snap.Recipients[1].Email != "new@example.com" {
			t.Errorf("next ids %v, recipient 2 %+v", b.nextIDs, b.snap.Recipients[1])
		}
	}, 2*time.Hour)
	update(t, env, 3*time.Hour, UpdateCancel, CancelRequest{}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil {
		t.Fatal(env.GetWorkflowError())
	}
}

func TestRecipientsChangedWhilePending(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		r := rec(2, envelope.RoleSigner, nil)
		r.Email, r.SigningStatus, r.SendStatus = "added@example.com", envelope.SigningStatusNotSigned, envelope.SendStatusNotSent
		b.snap.Recipients = append(b.snap.Recipients, r)
		b.mu.Unlock()
		env.SignalWorkflow(SignalRefresh, nil)
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("signing requests %v, want the added recipient too", got)
		}
	}, 2*time.Hour)
	update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, 4*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
}

func TestDistributionNoneMailsNoRecipient(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	b.snap.Meta.DistributionMethod = envelope.DistributionNone
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil {
		t.Fatal(env.GetWorkflowError())
	}
	for _, n := range b.mails {
		if n.RecipientID != 0 {
			t.Errorf("mail %s to recipient %d under NONE", n.Kind, n.RecipientID)
		}
	}
	if got := b.mailsOf(envelope.MailOwnerCompleted); len(got) != 1 {
		t.Errorf("owner mails still go: %v", got)
	}
}

func TestRemovedRecipientIsToldAndEarlyOpenerStillMailed(t *testing.T) {
	b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)), rec(3, envelope.RoleSigner, order(3)))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		b.snap.Recipients[1].SendStatus = envelope.SendStatusSent                     // recipient 2 opened their link early
		b.snap.Recipients = append(b.snap.Recipients[:0:0], b.snap.Recipients[1:]...) // recipient 1 removed
		b.mu.Unlock()
		env.SignalWorkflow(SignalRefresh, nil)
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		if got := b.mailsOf(envelope.MailRecipientRemoved); !slices.Equal(got, []int64{1}) {
			t.Errorf("removed mails %v, want [1]", got)
		}
		if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("signing requests %v: recipient 2 opened early but must still get theirs", got)
		}
	}, 2*time.Hour)
	update(t, env, 3*time.Hour, UpdateCancel, CancelRequest{}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil {
		t.Fatal(env.GetWorkflowError())
	}
}

// A seal that keeps failing for a reason that may pass (the database, say) gives up after its
// retries (the activity gives up as SEAL_FAILED on its eighth attempt), tells the owner, and
// tries again by itself an hour later.
func TestFailingSealRetriesHourly(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	b.sealErr = func() error {
		switch {
		case b.sealAttempts < 8:
			return errors.New("connection refused: the database is down")
		case b.sealAttempts == 8:
			return temporal.NewNonRetryableApplicationError("connection refused: the database is down", string(envelope.SealFailed), nil)
		}
		return nil
	}
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
	if b.sealAttempts != 9 {
		t.Errorf("%d seal attempts, want 8 (one batch of retries) and 1 after the hour", b.sealAttempts)
	}
	if got := b.mailsOf(envelope.MailOwnerSealFailed); !slices.Equal(got, []int64{0}) {
		t.Errorf("seal-failure mails to %v, want the owner once", got)
	}
}

// markSent records in as the store does: the recipient SENT; MarkSent fails its first
// failMarkSent calls. The caller holds b.mu.
func (b *fakeBackend) markSent(in envelope.Sent) error {
	if b.failMarkSent > 0 {
		b.failMarkSent--
		return errors.New("connection refused: the database is down")
	}
	for i := range b.snap.Recipients {
		if b.snap.Recipients[i].ID == in.RecipientID {
			b.snap.Recipients[i].SendStatus = envelope.SendStatusSent
		}
	}
	if in.EmailType != envelope.EmailTypeReminder {
		b.sent = append(b.sent, in.RecipientID)
	}
	return nil
}
