package worker_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/worker"
)

// exportedMetrics is the list of metric names, other than Sobre's own, that the dashboard may
// query (deploy/check.sh reads it too).
const exportedMetrics = "../deploy/grafana/exported-metrics.txt"

// failOnce fails its first attempt, so that the SDK counts a failed execution, then succeeds.
func failOnce(ctx context.Context) error {
	if activity.GetInfo(ctx).Attempt == 1 {
		return errors.New("first attempt fails")
	}
	return nil
}

// exercise runs a regular and a local activity, each failing once, so that every kind of task
// and its failure counter is reported; it fails when asked to, for temporal_workflow_failed.
func exercise(ctx workflow.Context, fail bool) error {
	retry := &temporal.RetryPolicy{InitialInterval: 10 * time.Millisecond, MaximumAttempts: 3}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second, RetryPolicy: retry})
	if err := workflow.ExecuteActivity(ctx, failOnce).Get(ctx, nil); err != nil {
		return err
	}
	local := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second, RetryPolicy: retry})
	if err := workflow.ExecuteLocalActivity(local, failOnce).Get(local, nil); err != nil {
		return err
	}
	if fail {
		return temporal.NewNonRetryableApplicationError("asked to fail", "test", nil)
	}
	return nil
}

// Every temporal_* name that deploy/grafana/exported-metrics.txt lists (and so the dashboard
// may query) is one the Temporal SDK reports, under that exact name, through worker.Dial's
// exporter, once a worker made by worker.New has run workflows and activities on the real dev
// server.
func TestSDKMetricNames(t *testing.T) {
	want := listedMetrics(t, "temporal_")
	reg := prometheus.NewRegistry()
	c, queue := startWorker(t, reg, func(w sdkworker.Worker) {
		w.RegisterWorkflow(exercise)
		w.RegisterActivity(failOnce)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, fail := range []bool{false, true} {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, exercise, fail)
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Get(ctx, nil); (err != nil) != fail {
			t.Fatalf("workflow (fail=%v) ended with %v", fail, err)
		}
	}
	// A call that fails, for temporal_request_failure.
	if _, err := c.DescribeWorkflowExecution(ctx, "no-such-workflow-"+queue, ""); err == nil {
		t.Fatal("describing a workflow that does not exist succeeded")
	}

	// The worker reports a workflow's end just after the server has it, so the last names may
	// trail run.Get by a moment.
	var missing []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		missing = missingFrom(t, reg, want)
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s lists metrics the SDK did not report: %v (reported: %v)", exportedMetrics, missing, gathered(t, reg))
	}
}

// startWorker starts a worker made by worker.New on a task queue of its own on the dev server,
// its client's metrics in reg, with what register registers; it is stopped with the test.
func startWorker(t *testing.T, reg *prometheus.Registry, register func(sdkworker.Worker)) (client.Client, string) {
	t.Helper()
	c := temporaltest.Client(t, reg)
	queue := temporaltest.TaskQueue(t)
	w, err := worker.New(c, worker.Options{TaskQueue: queue, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return c, queue
}

// listedMetrics returns the names in exportedMetrics that start with prefix.
func listedMetrics(t *testing.T, prefix string) []string {
	t.Helper()
	f, err := os.Open(exportedMetrics)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, prefix) {
			names = append(names, line)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("%s lists no %s metric", exportedMetrics, prefix)
	}
	return names
}

// missingFrom returns the names in want that reg does not have.
func missingFrom(t *testing.T, reg *prometheus.Registry, want []string) []string {
	t.Helper()
	have := map[string]bool{}
	for _, name := range gathered(t, reg) {
		have[name] = true
	}
	var missing []string
	for _, name := range want {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	return missing
}

// gathered returns the names of the metric families in reg, sorted.
func gathered(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	sort.Strings(names)
	return names
}
