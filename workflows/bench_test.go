package workflows_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/workflows"
)

// The end-to-end envelope life cycle (create → distribute → two signers → COMPLETED) against a
// bare Temporal workflow with the same updates and as many no-op activities, in the same run on
// the same dev server. Run with `make bench`.

func noop(ctx context.Context) error { return nil }

// bareWorkflow mirrors EnvelopeWorkflow's message pattern: 2 local activities to start, then
// per update a local activity and regular ones, 3 updates, and the end's activities.
func bareWorkflow(ctx workflow.Context) error {
	local := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	regular := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	run := func(ctx workflow.Context, n int, localActs bool) error {
		for range n {
			var err error
			if localActs {
				err = workflow.ExecuteLocalActivity(local, noop).Get(ctx, nil)
			} else {
				err = workflow.ExecuteActivity(regular, noop).Get(ctx, nil)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	updates := 0
	for _, name := range []string{"distribute", "complete"} {
		if err := workflow.SetUpdateHandler(ctx, name, func(ctx workflow.Context) error {
			defer func() { updates++ }()
			if err := run(ctx, 1, true); err != nil {
				return err
			}
			return run(ctx, 1, false)
		}); err != nil {
			return err
		}
	}
	if err := run(ctx, 2, true); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return updates == 3 }); err != nil {
		return err
	}
	if err := run(ctx, 1, true); err != nil {
		return err
	}
	if err := run(ctx, 3, false); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) { l.mu.Lock(); l.d = append(l.d, d); l.mu.Unlock() }

func (l *latencies) report(b *testing.B) float64 {
	sort.Slice(l.d, func(i, j int) bool { return l.d[i] < l.d[j] })
	q := func(p float64) float64 {
		if len(l.d) == 0 {
			return 0
		}
		return float64(l.d[min(len(l.d)-1, int(p*float64(len(l.d))))].Milliseconds())
	}
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "lifecycles/s")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	return rate
}

func BenchmarkLifeCycle(b *testing.B) {
	var bareRate float64
	b.Run("bare-temporal", func(b *testing.B) {
		c := temporaltest.Client(b, nil)
		queue := temporaltest.TaskQueue(b)
		w := worker.New(c, queue, worker.Options{MaxConcurrentWorkflowTaskPollers: 4, MaxConcurrentActivityTaskPollers: 4})
		w.RegisterWorkflow(bareWorkflow)
		w.RegisterActivity(noop)
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		var n atomic.Int64
		var lat latencies
		b.SetParallelism(4)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				start := time.Now()
				id := fmt.Sprintf("bare-%s-%d", queue, n.Add(1))
				op := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: id, TaskQueue: queue,
					WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL}, bareWorkflow)
				h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: op,
					UpdateOptions: client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: "distribute", WaitForStage: client.WorkflowUpdateStageCompleted}})
				if err == nil {
					err = h.Get(ctx, nil)
				}
				for range 2 {
					if err != nil {
						break
					}
					var uh client.WorkflowUpdateHandle
					uh, err = c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: "complete", WaitForStage: client.WorkflowUpdateStageCompleted})
					if err == nil {
						err = uh.Get(ctx, nil)
					}
				}
				if err == nil {
					err = c.GetWorkflow(ctx, id, "").Get(ctx, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
				lat.add(time.Since(start))
			}
		})
		bareRate = lat.report(b)
	})
	var plainRate float64
	b.Run("sobre-envelope", func(b *testing.B) {
		plainRate = lifeCycles(b, newStack(b), bareRate, "x-bare")
	})
	// The outbox's own cost: 3 webhooks subscribed to every event, none delivered.
	b.Run("sobre-envelope-3-webhooks-outbox-only", func(b *testing.B) {
		s, _, _ := newWebhookStack(b, 3, envelope.WebhookEvents()...)
		lifeCycles(b, s, plainRate, "x-no-webhooks")
	})
	b.Run("sobre-envelope-3-webhooks", func(b *testing.B) {
		s, rx, start := newWebhookStack(b, 3, envelope.WebhookEvents()...)
		start()
		lifeCycles(b, s, plainRate, "x-no-webhooks")
		// Each life cycle sends 7 events (created, sent, 2 signed, 2 recipients completed,
		// completed) to each of the 3 endpoints: all of them must arrive.
		b.StopTimer()
		waitDelivered(b, rx, 7*3*b.N)
	})
}

// lifeCycles runs b.N envelope life cycles on s, 4 at a time, and reports their rate, latencies
// and the rate's ratio to base (named unit) when base is known.
func lifeCycles(b *testing.B, s *stack, base float64, unit string) float64 {
	var lat latencies
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			start := time.Now()
			id, rs := s.draft(b, envelope.SigningOrderParallel, false)
			if err := s.flows.Distribute(ctx, id, 1); err != nil {
				b.Fatal(err)
			}
			for _, r := range rs {
				s.sign(b, id, r)
				if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
				b.Fatal(err)
			}
			lat.add(time.Since(start))
		}
	})
	rate := lat.report(b)
	if base > 0 {
		b.ReportMetric(rate/base, unit)
	}
	return rate
}
