package workflows

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// bulkBackend is a bulk send's rows in memory: how often each row's activity ran, how many of
// its attempts fail before one passes (a database away), the rows that are bad, and the
// finishes.
type bulkBackend struct {
	mu       sync.Mutex
	attempts map[int]int
	flaky    map[int]int
	bad      map[int]bool
	done     map[int]envelope.BulkRowStatus
	finished []string
}

func newBulkBackend() *bulkBackend {
	return &bulkBackend{attempts: map[int]int{}, flaky: map[int]int{}, bad: map[int]bool{}, done: map[int]envelope.BulkRowStatus{}}
}

func (b *bulkBackend) register(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterWorkflow(BulkSendWorkflow)
	env.RegisterActivityWithOptions(func(_ context.Context, ref envelope.BulkRowRef) (envelope.BulkRowStatus, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.attempts[ref.Index]++
		if b.flaky[ref.Index] > 0 {
			b.flaky[ref.Index]--
			return "", errors.New("database away")
		}
		if _, twice := b.done[ref.Index]; twice {
			return "", errors.New("row done twice")
		}
		st := envelope.BulkRowSent
		if b.bad[ref.Index] {
			st = envelope.BulkRowFailed
		}
		b.done[ref.Index] = st
		return st, nil
	}, activity.RegisterOptions{Name: actBulkSendRow})
	env.RegisterActivityWithOptions(func(_ context.Context, jobID string) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.finished = append(b.finished, jobID)
		return nil
	}, activity.RegisterOptions{Name: actFinishBulkSend})
}

// runBulk runs a job's workflow to its end, one run after another as it continues as new, and
// returns the number of runs.
func runBulk(t *testing.T, b *bulkBackend, in BulkSendInput) int {
	t.Helper()
	for runs := 1; ; runs++ {
		var suite testsuite.WorkflowTestSuite
		suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		env := suite.NewTestWorkflowEnvironment()
		b.register(env)
		env.ExecuteWorkflow(BulkSendWorkflow, in)
		err := env.GetWorkflowError()
		var next *workflow.ContinueAsNewError
		if !errors.As(err, &next) {
			if err != nil {
				t.Fatalf("run %d: %v", runs, err)
			}
			return runs
		}
		in = BulkSendInput{}
		if err := converter.GetDefaultDataConverter().FromPayloads(next.Input, &in); err != nil {
			t.Fatal(err)
		}
		if runs > 20 {
			t.Fatal("more than 20 runs")
		}
	}
}

// A job walks every row once; rows whose attempts fail are
// retried until they pass, a bad row is recorded and the others go on; a long job continues as
// new every BulkRowsPerRun rows, from the row where it stopped; the job is finished once.
func TestBulkSendWorkflowWalksEveryRowOnce(t *testing.T) {
	const total = 2*BulkRowsPerRun + 37
	b := newBulkBackend()
	b.flaky[3], b.flaky[BulkRowsPerRun], b.flaky[total-1] = 2, 1, 3
	b.bad[5], b.bad[6], b.bad[total-2] = true, true, true
	runs := runBulk(t, b, BulkSendInput{JobID: "bulk_1", TeamID: 7, Total: total})
	if runs != 3 {
		t.Errorf("%d runs, want 3", runs)
	}
	if len(b.done) != total {
		t.Fatalf("%d rows done, want %d", len(b.done), total)
	}
	failed := 0
	for i := range total {
		if b.done[i] == envelope.BulkRowFailed {
			failed++
		}
		if want := 1 + map[int]int{3: 2, BulkRowsPerRun: 1, total - 1: 3}[i]; b.attempts[i] != want {
			t.Errorf("row %d: %d attempts, want %d", i, b.attempts[i], want)
		}
	}
	if failed != 3 {
		t.Errorf("%d rows failed, want 3", failed)
	}
	if len(b.finished) != 1 || b.finished[0] != "bulk_1" {
		t.Errorf("finished %v, want once", b.finished)
	}
}

// A job of one row is one run.
func TestBulkSendWorkflowOneRow(t *testing.T) {
	b := newBulkBackend()
	if runs := runBulk(t, b, BulkSendInput{JobID: "bulk_2", Total: 1}); runs != 1 || len(b.done) != 1 || len(b.finished) != 1 {
		t.Errorf("runs %d, done %d, finished %d; want 1 each", runs, len(b.done), len(b.finished))
	}
}
