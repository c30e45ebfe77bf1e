package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"go.temporal.io/sdk/converter"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/workflows"
)

// rename changes recipient r's name in PostgreSQL, as the API's recipient update does.
func rename(t testing.TB, store *persistence.Store, r envelope.Recipient, name string) {
	t.Helper()
	r.Name = name
	if err := store.InTx(context.Background(), func(tx *persistence.Tx) error {
		_, err := tx.UpdateRecipient(context.Background(), r)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// One envelope goes through 10,000 recipient edits, each a change in PostgreSQL followed by a
// refresh signal, in bursts of ten, then its signers complete it. The workflow runs on Temporal's
// test environment (simulated time) with the real activities on PostgreSQL and the mail sink.
// The test environment does not count history events, so the test sets the history length to the
// least the real server would count (a signal and its workflow task: 4 events per edit); a run
// then continues as new at the production threshold, and the next run is started from the input
// it handed on, as the server would.
func TestTenThousandRecipientEdits(t *testing.T) {
	const edits = 10_000
	store := pgtest.New(t)
	sender, err := mail.NewSender(smtpURL(t), "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	acts := &activities.Activities{Store: store, Mail: sender, PublicURL: "http://sobre.test", MailHost: "sobre.test", Log: log, Seal: testSeal(t)}
	s := &stack{store: store}
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)

	in := workflows.Input{EnvelopeID: id, TeamID: 1}
	done, runs := 0, 0
	var inputs []int // each continuation's size, in bytes
	for {
		runs++
		if runs > 20 {
			t.Fatal("more than 20 runs")
		}
		var suite testsuite.WorkflowTestSuite
		suite.SetLogger(tlog.NewStructuredLogger(log))
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterWorkflow(workflows.EnvelopeWorkflow)
		env.RegisterActivity(acts)
		env.SetTestTimeout(5 * time.Minute) // of wall-clock time: every edit is a real transaction
		length := 0
		var tick func()
		tick = func() {
			if done == edits {
				s.finalEdit(t, env, id, rs)
				return
			}
			r := rs[done%2]
			rename(t, store, r, fmt.Sprintf("%s edit %d", r.Name, done))
			done++
			env.SignalWorkflow(workflows.SignalRefresh, nil)
			length += 4
			env.SetCurrentHistoryLength(length)
			gap := 50 * time.Millisecond
			if done%10 == 0 {
				gap = 10 * time.Minute
			}
			env.RegisterDelayedCallback(tick, gap)
		}
		env.RegisterDelayedCallback(tick, time.Minute)
		env.ExecuteWorkflow(workflows.EnvelopeWorkflow, in)
		err := env.GetWorkflowError()
		var can *workflow.ContinueAsNewError
		if err == nil {
			break
		}
		if !errors.As(err, &can) {
			t.Fatalf("run %d failed after %d edits: %v", runs, done, err)
		}
		inputs = append(inputs, can.Input.Size())
		var next workflows.Input
		if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
			t.Fatal(err)
		}
		if next.Continued == nil || next.Continued.Runs != runs {
			t.Fatalf("run %d handed on %+v", runs, next.Continued)
		}
		in = next
	}
	if done != edits {
		t.Fatalf("%d edits made, want %d", done, edits)
	}
	snap, err := store.LoadSnapshot(context.Background(), id)
	if err != nil || snap.Status != envelope.StatusCompleted {
		t.Fatalf("the envelope is %s (%v), want COMPLETED", snap.Status, err)
	}
	types, err := store.AuditTypes(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, typ := range types {
		if typ == "EMAIL_SENT" {
			sent++
		}
	}
	if sent != 2 {
		t.Errorf("%d signing requests recorded, want one per signer across every run", sent)
	}
	if runs < 4 {
		t.Errorf("%d runs: 10,000 edits should have continued as new at least 3 times", runs)
	}
	t.Logf("%d edits, %d runs, continuation inputs of %v bytes", edits, runs, inputs)
}

// finalEdit changes a signer's email (the last edit), checks that the current run took it in,
// and has both signers complete the envelope.
func (s *stack) finalEdit(t *testing.T, env *testsuite.TestWorkflowEnvironment, id string, rs []envelope.Recipient) {
	cur, err := s.store.RecipientForSigning(context.Background(), rs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	cur.Email = "final@acme.test"
	if err := s.store.InTx(context.Background(), func(tx *persistence.Tx) error {
		_, err := tx.UpdateRecipient(context.Background(), cur)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	env.SignalWorkflow(workflows.SignalRefresh, nil)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(workflows.QueryState)
		var st workflows.State
		if err != nil || v.Get(&st) != nil {
			t.Fatalf("query: %v", err)
		}
		if len(st.Recipients) != 2 || st.Recipients[1].Email != "final@acme.test" {
			t.Errorf("after the last edit the workflow sees %+v", st.Recipients)
		}
		for _, r := range rs {
			cur, err := s.store.RecipientForSigning(context.Background(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			cur.Name = r.Name // typed into the small signature field: the short first name
			s.sign(t, id, cur)
			env.UpdateWorkflow(workflows.UpdateComplete, fmt.Sprint("complete-", r.ID), &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { t.Errorf("complete %d refused: %v", r.ID, err) },
				OnAccept:   func() {},
				OnComplete: func(_ any, err error) {},
			}, workflows.CompleteRequest{RecipientID: r.ID})
		}
	}, time.Minute)
}
