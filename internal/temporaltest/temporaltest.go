// Package temporaltest gives tests the real Temporal dev server that `make test` starts
// (SOBRE_TEST_TEMPORAL_ADDRESS), and a task queue of their own on it so that tests running at
// the same time never take each other's tasks.
package temporaltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// keys seal the payloads of every client of this test process: fresh for each process, as
// each test package runs its own workers on its own task queues.
var keys = func() *keyring.Ring {
	r, err := keyring.Parse([]byte(keyring.NewKeyLine("test1")))
	if err != nil {
		panic(err)
	}
	return r
}()

// Keys is the keyring of this process's Temporal clients (Client).
func Keys() *keyring.Ring { return keys }

// DataConverter is the data converter of this process's Temporal clients: what a replayer of
// their histories needs.
func DataConverter() converter.DataConverter { return payloadcodec.DataConverter(keys) }

// Address returns the dev server's host:port, or skips the test (fails it when services are
// required, as in `make test`).
func Address(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("SOBRE_TEST_TEMPORAL_ADDRESS")
	if addr == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_TEMPORAL_ADDRESS is not set")
		}
		t.Skip("SOBRE_TEST_TEMPORAL_ADDRESS not set: run `make test` for the real Temporal dev server")
	}
	return addr
}

// Client dials the dev server with this process's payload keys (Keys); its metrics go to reg
// when not nil. It is closed with the test.
func Client(t testing.TB, reg prometheus.Registerer) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := worker.DialWithRetry(ctx, worker.ClientOptions{
		Address:   Address(t),
		Namespace: "default",
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Registry:  reg,
		Keys:      keys,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TaskQueue returns a task queue name no other test uses.
func TaskQueue(t testing.TB) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b)
}

// History reads the whole history of workflow id (its latest run).
func History(t testing.TB, c client.Client, id string) *historypb.History {
	t.Helper()
	iter := c.GetWorkflowHistory(context.Background(), id, "", false, 0)
	hist := &historypb.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatalf("read the history of %s: %v", id, err)
		}
		hist.Events = append(hist.Events, ev)
	}
	return hist
}

// Replayer returns a replayer of EnvelopeWorkflow that reads the histories of this process's
// clients (their payloads sealed with Keys).
func Replayer(t testing.TB) sdkworker.WorkflowReplayer {
	t.Helper()
	dc := DataConverter()
	r, err := sdkworker.NewWorkflowReplayerWithOptions(sdkworker.WorkflowReplayerOptions{DataConverter: dc, FailureConverter: payloadcodec.FailureConverter(dc)})
	if err != nil {
		t.Fatal(err)
	}
	r.RegisterWorkflow(workflows.EnvelopeWorkflow)
	return r
}
