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
	// SealConcurrency is how many seals the worker runs at once, on the seal's own task queue
	// (workflows.SealQueue); 0 is DefaultSealConcurrency.
	SealConcurrency int
}

// DefaultSealConcurrency is how many seals a worker runs at once unless told
// (SOBRE_SEAL_CONCURRENCY): a seal keeps a core busy for seconds to minutes.
const DefaultSealConcurrency = 2

// New returns a worker for the envelope task queue with the envelope workflow and its
// activities registered (when Activities is set), and, beside it, one for the seal's task queue
// (workflows.SealQueue) running at most SealConcurrency seals at once. Start it with Start, stop
// it with Stop: both start and stop together.
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
	if o.Activities == nil {
		return w, nil
	}
	w.RegisterWorkflow(workflows.EnvelopeWorkflow)
	w.RegisterWorkflow(workflows.PurgeWorkflow)
	// Workflows that started before the seal had its queue seal on this one.
	w.RegisterActivity(o.Activities)
	concurrency := o.SealConcurrency
	if concurrency <= 0 {
		concurrency = DefaultSealConcurrency
	}
	seals := worker.New(c, workflows.SealQueue(o.TaskQueue), worker.Options{
		DisableWorkflowWorker:              true,
		MaxConcurrentActivityExecutionSize: concurrency,
		WorkerStopTimeout:                  o.StopTimeout,
	})
	seals.RegisterActivity(o.Activities.SealEnvelope) // registered under its name, as the workflow calls it
	return &pair{Worker: w, seals: seals}, nil
}

// pair is the envelope worker and the seal worker beside it, started and stopped together.
// Registrations go to the envelope worker.
type pair struct {
	worker.Worker
	seals worker.Worker
}

// Start starts both workers; when the second fails, the first is stopped.
func (p *pair) Start() error {
	if err := p.Worker.Start(); err != nil {
		return err
	}
	if err := p.seals.Start(); err != nil {
		p.Worker.Stop()
		return fmt.Errorf("start the seal worker: %w", err)
	}
	return nil
}

// Run starts both workers and stops them when interruptCh delivers.
func (p *pair) Run(interruptCh <-chan any) error {
	if err := p.Start(); err != nil {
		return err
	}
	<-interruptCh
	p.Stop()
	return nil
}

// Stop stops both workers, waiting for their running activities (each within its stop timeout).
func (p *pair) Stop() {
	p.seals.Stop()
	p.Worker.Stop()
}
