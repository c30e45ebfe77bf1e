package worker

import (
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/workflows"
)

// Options are what the worker needs.
type Options struct {
	TaskQueue   string
	StopTimeout time.Duration // how long Stop waits for running activities
	Activities  *activities.Activities
	Log         *slog.Logger
}

// New returns a worker for the envelope task queue with the envelope workflow and its
// activities registered (when Activities is set). Start it with Start, stop it with Stop.
func New(c client.Client, o Options) (worker.Worker, error) {
	if o.TaskQueue == "" {
		return nil, fmt.Errorf("new worker: no task queue")
	}
	w := worker.New(c, o.TaskQueue, worker.Options{
		// The SDK's default of 2 pollers caps throughput near 30 envelopes per second on a
		// dev server (reference measurements); 4 keeps two cores busy.
		MaxConcurrentWorkflowTaskPollers: 4,
		MaxConcurrentActivityTaskPollers: 4,
		WorkerStopTimeout:                o.StopTimeout,
	})
	if o.Activities != nil {
		w.RegisterWorkflow(workflows.EnvelopeWorkflow)
		w.RegisterWorkflow(workflows.PurgeWorkflow)
		w.RegisterActivity(o.Activities)
	}
	return w, nil
}
