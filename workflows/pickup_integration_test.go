package workflows_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/smtptest"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/workflows"
)

// On the real dev server: an envelope whose workflow an operator terminated mid-way is picked up
// by the next signer's completion (a new run, Update-With-Start), completes, and sends no mail
// twice; the new run's history replays through today's code (SOBRE_RECORD_HISTORY=1 records it).
func TestPickupRunOnTheRealServerReplays(t *testing.T) {
	relay := &smtptest.Relay{}
	s := newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderSequential, true)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: rs[0].ID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the signers' requests", func() bool {
		return relay.AcceptedTo(requestID(id, rs[1].ID)) == 1 && relay.AcceptedTo(requestID(id, rs[2].ID)) == 1
	})
	if err := s.c.TerminateWorkflow(ctx, id, "", "killed by an operator"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs[1:] {
		s.sign(t, id, r)
		if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
			t.Fatalf("complete %d after the workflow was terminated: %v", r.ID, err)
		}
	}
	waitFor(t, "the envelope completed", func() bool {
		snap, err := s.store.LoadSnapshot(ctx, id)
		return err == nil && snap.Status == envelope.StatusCompleted
	})
	if err := s.c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range relay.Accepted() {
		if seen[m]++; seen[m] == 2 {
			t.Errorf("mail %s sent twice", m)
		}
	}
	hist := temporaltest.History(t, s.c, id)
	if err := temporaltest.Replayer(t).ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("today's code does not replay the pickup run: %v", err)
	}
	if os.Getenv("SOBRE_RECORD_HISTORY") != "" {
		writeHistory(t, hist, "pickup-after-terminate-v5.json")
	}
}
