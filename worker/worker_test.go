package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/worker"
)

func greet(ctx context.Context, name string) (string, error) { return "hola " + name, nil }

func greeting(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, greet, name).Get(ctx, &out)
	return out, err
}

// A worker made by worker.New runs a workflow and its activity on the real dev server, and the
// SDK's metrics reach the Prometheus registry.
func TestWorkerRunsAWorkflow(t *testing.T) {
	reg := prometheus.NewRegistry()
	c, queue := startWorker(t, reg, func(w sdkworker.Worker) {
		w.RegisterWorkflow(greeting)
		w.RegisterActivity(greet)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "greeting-" + queue, TaskQueue: queue}, greeting, "Ana")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got != "hola Ana" {
		t.Errorf("workflow result %q, want %q", got, "hola Ana")
	}

	// The worker counts a workflow as completed just after the server has its result, so the
	// metric may trail run.Get by a moment.
	var families []*dto.MetricFamily
	var joined string
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		if families, err = reg.Gather(); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range families {
			names = append(names, f.GetName())
		}
		joined = strings.Join(names, " ")
		if strings.Contains(joined, "temporal_workflow_completed") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"temporal_workflow_completed", "temporal_activity_execution_latency"} {
		if !strings.Contains(joined, want) {
			t.Errorf("registry lacks %s; has %s", want, joined)
		}
	}
	checked := 0
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "temporal_activity_execution_latency") {
			checked++
			subSecond := 0
			for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
				if b.GetUpperBound() > 0 && b.GetUpperBound() < 1 {
					subSecond++
				}
			}
			if subSecond < 5 {
				t.Errorf("%s has %d buckets under a second; its quantiles would mean nothing", f.GetName(), subSecond)
			}
		}
	}
	if checked == 0 {
		t.Error("no temporal_activity_execution_latency histogram to check")
	}
	if err := worker.CheckHealth(ctx, c); err != nil {
		t.Errorf("CheckHealth: %v", err)
	}
}
