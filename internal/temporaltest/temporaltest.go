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

	"github.com/sobre-sign/sobre/worker"
)

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

// Client dials the dev server; its metrics go to reg when not nil. It is closed with the test.
func Client(t testing.TB, reg prometheus.Registerer) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := worker.DialWithRetry(ctx, worker.ClientOptions{
		Address:   Address(t),
		Namespace: "default",
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Registry:  reg,
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
