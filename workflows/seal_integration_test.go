package workflows_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	dto "github.com/prometheus/client_model/go"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/workflows"
)

// sealAttempt is how the seal of an envelope ended in its workflow's history: the task queue it
// ran on, its last attempt's number, and, when it failed, its failure's type and whether it was
// non-retryable.
type sealAttempt struct {
	queue        string
	attempt      int32
	failed       bool
	failure      string
	nonRetryable bool
}

// sealOutcome waits until the seal of envelope id has ended in its workflow's history (failed or
// completed) and reads how.
func (s *stack) sealOutcome(t *testing.T, ctx context.Context, id string) sealAttempt {
	t.Helper()
	for {
		var a sealAttempt
		var scheduled int64
		for _, ev := range s.history(t, id).Events {
			switch {
			case ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == "SealEnvelope":
				scheduled = ev.EventId
				a.queue = ev.GetActivityTaskScheduledEventAttributes().GetTaskQueue().GetName()
			case scheduled != 0 && ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId() == scheduled:
				a.attempt = ev.GetActivityTaskStartedEventAttributes().GetAttempt()
			case scheduled != 0 && ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId() == scheduled:
				info := ev.GetActivityTaskFailedEventAttributes().GetFailure().GetApplicationFailureInfo()
				a.failed, a.failure, a.nonRetryable = true, info.GetType(), info.GetNonRetryable()
				return a
			case scheduled != 0 && ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId() == scheduled:
				return a
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the seal of %s did not end: %v", id, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *stack) history(t *testing.T, id string) *historypb.History {
	t.Helper()
	iter := s.c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	hist := &historypb.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	return hist
}

// completeAll distributes draft id and completes each of its recipients.
func (s *stack) completeAll(t *testing.T, ctx context.Context, id string, rs []envelope.Recipient) {
	t.Helper()
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		s.sign(t, id, r)
		if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
			t.Fatalf("complete %d: %v", r.ID, err)
		}
	}
}

// tsaAnswering is a timestamp authority that answers every request with status.
func tsaAnswering(t *testing.T, status int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// On the real server, each way a seal fails ends as it should: a refusal (no seal configured,
// an audit log that does not verify) is given up at its first attempt; an unavailable TSA is
// retried for SOBRE_TSA_RETRY_FOR, then given up when a timestamp is required, or sealed
// without one when it is not. The seal runs on its own task queue; a seal given up leaves the
// envelope PENDING, its workflow waiting, and cancelling the workflow ends the wait.
func TestSealFailuresOnTheRealServer(t *testing.T) {
	tests := []struct {
		name    string
		tune    func(t *testing.T, a *activities.Activities)
		tamper  bool // the audit log is changed behind the store's back before distribution
		want    sealAttempt
		outages map[string]float64 // sobre_seal_tsa_unavailable_total by outcome
	}{
		{name: "no seal configured", tune: func(t *testing.T, a *activities.Activities) { a.Seal = nil },
			want: sealAttempt{attempt: 1, failed: true, failure: string(envelope.SealNotConfigured), nonRetryable: true}},
		{name: "an audit log that does not verify", tamper: true,
			want: sealAttempt{attempt: 1, failed: true, failure: string(envelope.SealChainBroken), nonRetryable: true}},
		{name: "the TSA down, a timestamp required", tune: func(t *testing.T, a *activities.Activities) {
			a.Seal.TSAURL = tsaAnswering(t, http.StatusServiceUnavailable)
			a.SealTSA.RetryFor = 3 * time.Second
		}, want: sealAttempt{attempt: 2, failed: true, failure: string(envelope.SealTSAUnavailable), nonRetryable: true},
			outages: map[string]float64{"retried": 1, "waiting": 1, "unstamped": 0}},
		{name: "the TSA down, a timestamp optional", tune: func(t *testing.T, a *activities.Activities) {
			a.Seal.TSAURL = tsaAnswering(t, http.StatusBadGateway)
			a.SealTSA.Optional = true
		}, want: sealAttempt{attempt: 1}, outages: map[string]float64{"retried": 0, "waiting": 0, "unstamped": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			store, url := pgtest.NewWithURL(t)
			outages, err := activities.NewTSAOutages(nil)
			if err != nil {
				t.Fatal(err)
			}
			s := newStackWith(t, store, func(a *activities.Activities) {
				a.SealTSA.Outages = outages
				if tt.tune != nil {
					tt.tune(t, a)
				}
			})
			id, rs := s.draft(t, envelope.SigningOrderParallel, false)
			if tt.tamper {
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				_, err = conn.Exec(ctx, `UPDATE audit_logs SET data = jsonb_set(data, '{title}', '"Otro"') WHERE envelope_id = $1 AND type = 'DOCUMENT_CREATED'`, id)
				conn.Close(ctx)
				if err != nil {
					t.Fatal(err)
				}
			}
			s.completeAll(t, ctx, id, rs)
			got := s.sealOutcome(t, ctx, id)
			tt.want.queue = workflows.SealQueue(s.queue)
			if got != tt.want {
				t.Fatalf("the seal ended %+v, want %+v", got, tt.want)
			}
			for outcome, want := range tt.outages {
				var m dto.Metric
				if err := outages.WithLabelValues(outcome).Write(&m); err != nil {
					t.Fatal(err)
				}
				if got := m.GetCounter().GetValue(); got != want {
					t.Errorf("sobre_seal_tsa_unavailable_total{outcome=%q} = %v, want %v", outcome, got, want)
				}
			}
			run := s.c.GetWorkflow(ctx, id, "")
			if !got.failed {
				if err := run.Get(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if snap, err := s.store.LoadSnapshot(ctx, id); err != nil || snap.Status != envelope.StatusCompleted {
					t.Fatalf("sealed without a timestamp, the envelope is %s (%v), want COMPLETED", snap.Status, err)
				}
				return
			}
			if snap, err := s.store.LoadSnapshot(ctx, id); err != nil || snap.Status != envelope.StatusPending {
				t.Fatalf("after the seal gave up the envelope is %s (%v), want PENDING", snap.Status, err)
			}
			if err := s.flows.Cancel(ctx, id, workflows.CancelRequest{}); envelope.ErrorCode(err) == "" {
				t.Errorf("a cancel while the seal waits: %v, want it refused (every signature is in)", err)
			}
			if err := s.c.CancelWorkflow(ctx, id, ""); err != nil {
				t.Fatal(err)
			}
			var canceled *temporal.CanceledError
			if err := run.Get(ctx, nil); !errors.As(err, &canceled) {
				t.Fatalf("the cancelled workflow ended with %v, want cancelled", err)
			}
		})
	}
}
