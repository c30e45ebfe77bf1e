package workflows_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/workflows"
)

// storeOutage plays PostgreSQL refusing connections to CompleteRecipient for a while, from its
// first call.
type storeOutage struct {
	lasts    time.Duration
	mu       sync.Mutex
	began    time.Time
	attempts int // refused
}

func (o *storeOutage) register(w sdkworker.Registry, a *activities.Activities) {
	w.RegisterActivityWithOptions(func(ctx context.Context, in envelope.RecipientCompletion) (envelope.Progress, error) {
		o.mu.Lock()
		if o.began.IsZero() {
			o.began = time.Now()
		}
		down := time.Since(o.began) < o.lasts
		if down {
			o.attempts++
		}
		o.mu.Unlock()
		if down {
			return envelope.Progress{}, errors.New("failed to connect to `host=127.0.0.1 user=sobre database=sobre`: dial error (dial tcp 127.0.0.1:5432: connect: connection refused)")
		}
		return a.CompleteRecipient(ctx, in)
	}, activity.RegisterOptions{Name: "CompleteRecipient", DisableAlreadyRegisteredCheck: true})
}

// On the real dev server, a completion whose store call fails past its local attempts (the
// database refuses it for 10 s) is retried as a regular activity: the completion is recorded once
// the database answers, the envelope completes, and the retries added no event (one
// CompleteRecipient activity in the history, started at its last attempt). Every timer the run
// started fired or was cancelled. The history replays through today's code.
func TestStoreOutageOnTheRealServer(t *testing.T) {
	outage := &storeOutage{lasts: 10 * time.Second}
	s := newStack(t, outage.register)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	for _, r := range rs {
		s.sign(t, id, r)
		if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
			t.Fatalf("complete %d: %v", r.ID, err)
		}
	}
	took := time.Since(began)
	if err := s.c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if snap, err := s.store.LoadSnapshot(ctx, id); err != nil || snap.Status != envelope.StatusCompleted {
		t.Fatalf("the envelope is %s (%v)", snap.Status, err)
	}

	hist := temporaltest.History(t, s.c, id)
	count := map[enumspb.EventType]int{}
	var handovers, lastAttempt int
	for _, ev := range hist.Events {
		count[ev.GetEventType()]++
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "CompleteRecipient" {
			handovers++
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
			lastAttempt = max(lastAttempt, int(a.GetAttempt()))
		}
	}
	started, fired, canceled := count[enumspb.EVENT_TYPE_TIMER_STARTED], count[enumspb.EVENT_TYPE_TIMER_FIRED], count[enumspb.EVENT_TYPE_TIMER_CANCELED]
	t.Logf("%d refused attempts in %s; the completions took %s; %d events (%d workflow tasks, %d markers), timers %d started, %d fired, %d cancelled",
		outage.attempts, outage.lasts, took.Round(time.Millisecond), len(hist.Events), count[enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED],
		count[enumspb.EVENT_TYPE_MARKER_RECORDED], started, fired, canceled)
	if took < outage.lasts {
		t.Fatalf("the completions took %s, less than the outage: it was not met", took)
	}
	if handovers != 1 || lastAttempt < 2 || outage.attempts < 4 {
		t.Fatalf("%d CompleteRecipient activities, last started at attempt %d, %d refused attempts: want one activity that retried", handovers, lastAttempt, outage.attempts)
	}
	if len(hist.Events) >= 2_000 {
		t.Fatalf("%d events", len(hist.Events))
	}
	if started == 0 || started != fired+canceled {
		t.Fatalf("timers: %d started, %d fired, %d cancelled: some left running", started, fired, canceled)
	}
	if err := temporaltest.Replayer(t).ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("today's code does not replay the history it just wrote: %v", err)
	}
	if os.Getenv("SOBRE_RECORD_HISTORY") != "" {
		writeHistory(t, hist, "store-outage-handover-v5.json")
	}
}
