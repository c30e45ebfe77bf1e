package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/workflows"
)

// stuckCheckEvery is how often the worker looks for stuck envelopes.
const stuckCheckEvery = 10 * time.Minute

// watchStuck looks for stuck envelopes (stuckFinder) when the worker starts and every
// stuckCheckEvery after, until ctx ends. It starts the run owed to a direct-link document
// (verdict.Owed) itself; for the others, the gauge sobre_envelopes_stuck says how many it found,
// and a warning names each (`sobre repair ENVELOPE_ID` repairs it). It runs on a ticker in
// every worker, not on a Temporal Schedule: the check watches Temporal's workflows, so it must
// not depend on one running, and each worker's gauge is current on its own metrics listener. A
// check that fails (PostgreSQL or Temporal away) is logged and leaves the gauge as it was.
func (p *process) watchStuck(ctx context.Context) error {
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "sobre_envelopes_stuck",
		Help: "PENDING envelopes whose workflow is closed or missing and that no run moves, at the last check (sobre repair --all-stuck repairs them)."})
	if err := p.registry.Register(gauge); err != nil {
		return fmt.Errorf("register sobre_envelopes_stuck: %w", err)
	}
	f := stuckFinder{store: p.store, flows: &workflows.Client{Temporal: p.temporal, TaskQueue: p.cfg.TaskQueue, CallTimeout: p.cfg.TemporalCallTimeout}}
	tick := time.NewTicker(stuckCheckEvery)
	defer tick.Stop()
	for {
		if left, err := f.tend(ctx, time.Now(), p.log); err != nil && ctx.Err() == nil {
			p.log.Error("stuck envelope check failed", "err", err)
		} else if err == nil {
			gauge.Set(float64(left))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// tend looks for stuck envelopes at now, starts the run owed to each direct-link document among
// them (verdict.Owed), warns of the others, and returns how many are left stuck.
func (f stuckFinder) tend(ctx context.Context, now time.Time, log *slog.Logger) (int, error) {
	stuck, err := f.stuck(ctx, now)
	if err != nil {
		return 0, err
	}
	left := 0
	for _, v := range stuck {
		if v.Owed {
			err := f.flows.Repair(ctx, v.ID)
			if err == nil {
				log.Info("started the workflow its direct link's submit could not", "envelope", v.ID)
				continue
			}
			log.Error("start the workflow of a direct-link document", "envelope", v.ID, "err", err)
		}
		left++
		log.Warn("stuck envelope: PENDING with no workflow moving it; run `sobre repair "+v.ID+"`", "envelope", v.ID, "workflow", v.Run)
	}
	return left, nil
}
