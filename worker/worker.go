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
	// StickyCacheSize is how many workflows the process keeps in memory between their tasks
	// (Temporal's sticky cache, one for every worker of the process, sized before the first
	// starts); 0 leaves the SDK's default.
	StickyCacheSize int
}

// DefaultSealConcurrency is how many seals a worker runs at once unless told
// (SOBRE_SEAL_CONCURRENCY). A seal's drawing waits for one of the process's PDFium instances,
// which bound its CPU; between drawings it reads and writes PostgreSQL and asks the TSA, so 4
// keep two cores busy where 2 left the seal's queue the life cycle's longest wait
// (docs/performance.md); more buy little and hold more documents in memory at once.
const DefaultSealConcurrency = 4

// WebhookConcurrency is how many webhook attempts a worker makes at once, on the webhook
// deliveries' own task queue (workflows.WebhookQueue): an attempt mostly waits on its endpoint
// (up to 15 s), so slow endpoints fill these slots, never the envelope queue's.
const WebhookConcurrency = 50

// New returns a worker for the envelope task queue with the envelope workflow and its
// activities registered (when Activities is set), and, beside it, one for the seal's task queue
// (workflows.SealQueue) running at most SealConcurrency seals at once, and one for the webhook
// deliveries' task queue (workflows.WebhookQueue: their workflows, the purge of old calls and
// their activities, at most WebhookConcurrency at once). Start it with Start, stop it with Stop:
// all start and stop together.
func New(c client.Client, o Options) (worker.Worker, error) {
	if o.TaskQueue == "" {
		return nil, fmt.Errorf("new worker: no task queue")
	}
	if o.StickyCacheSize > 0 {
		worker.SetStickyWorkflowCacheSize(o.StickyCacheSize)
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
	w.RegisterWorkflow(workflows.BulkSendWorkflow)
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
	hooks := worker.New(c, workflows.WebhookQueue(o.TaskQueue), worker.Options{
		MaxConcurrentActivityExecutionSize: WebhookConcurrency,
		WorkerStopTimeout:                  o.StopTimeout,
	})
	hooks.RegisterWorkflow(workflows.WebhookWorkflow)
	hooks.RegisterWorkflow(workflows.WebhookPurgeWorkflow)
	hooks.RegisterActivity(o.Activities)
	return &group{Worker: w, beside: []named{{"seal", seals}, {"webhook", hooks}}}, nil
}

// group is the envelope worker and the workers beside it, started and stopped together.
// Registrations go to the envelope worker.
type group struct {
	worker.Worker
	beside []named
}

// named is a worker beside the envelope worker, named for errors.
type named struct {
	name string
	w    worker.Worker
}

// Start starts every worker; when one fails, those started are stopped.
func (g *group) Start() error {
	if err := g.Worker.Start(); err != nil {
		return err
	}
	for i, b := range g.beside {
		if err := b.w.Start(); err != nil {
			for _, started := range g.beside[:i] {
				started.w.Stop()
			}
			g.Worker.Stop()
			return fmt.Errorf("start the %s worker: %w", b.name, err)
		}
	}
	return nil
}

// Run starts every worker and stops them when interruptCh delivers.
func (g *group) Run(interruptCh <-chan any) error {
	if err := g.Start(); err != nil {
		return err
	}
	<-interruptCh
	g.Stop()
	return nil
}

// Stop stops every worker, waiting for their running activities (each within its stop timeout).
func (g *group) Stop() {
	for _, b := range g.beside {
		b.w.Stop()
	}
	g.Worker.Stop()
}
