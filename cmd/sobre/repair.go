package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/workflows"
)

const repairUsage = "repair: usage: sobre repair ENVELOPE_ID | sobre repair --all-stuck"

// repair runs `sobre repair ENVELOPE_ID` and `sobre repair --all-stuck`.
func repair(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New(repairUsage)
	}
	p, err := open(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer p.close()
	flows := &workflows.Client{Temporal: p.temporal, TaskQueue: cfg.TaskQueue, CallTimeout: cfg.TemporalCallTimeout}
	return repairWith(ctx, stuckFinder{store: p.store, flows: flows}, args[0], stdout)
}

// repairWith repairs envelope what, or every stuck envelope when what is --all-stuck: a stuck
// envelope (workflows.Stuck) gets a new run of its workflow, which picks it up from PostgreSQL;
// any other is left as it is. It prints one line per envelope saying what it found and did.
// Running it again changes nothing: a repaired envelope has a running workflow.
func repairWith(ctx context.Context, f stuckFinder, what string, stdout io.Writer) error {
	if what != "--all-stuck" {
		if len(what) == 0 || what[0] == '-' {
			return errors.New(repairUsage)
		}
		v, err := f.examine(ctx, what, time.Now())
		if err != nil {
			return fmt.Errorf("repair %s: %w", what, err)
		}
		return repairOne(ctx, f, v, stdout)
	}
	stuck, err := f.stuck(ctx, time.Now())
	if err != nil {
		return fmt.Errorf("repair --all-stuck: %w", err)
	}
	var failed error
	for _, v := range stuck {
		failed = errors.Join(failed, repairOne(ctx, f, v, stdout))
	}
	fmt.Fprintf(stdout, "%d stuck envelopes found\n", len(stuck))
	return failed
}

// repairOne starts a new run for v's envelope when it is stuck, and says so.
func repairOne(ctx context.Context, f stuckFinder, v verdict, stdout io.Writer) error {
	if !v.Stuck {
		fmt.Fprintf(stdout, "%s: %s, workflow %s: not stuck, nothing done\n", v.ID, v.Status, v.Run)
		return nil
	}
	if err := f.flows.Repair(ctx, v.ID); err != nil {
		return fmt.Errorf("repair %s: %w", v.ID, err)
	}
	fmt.Fprintf(stdout, "%s: %s, workflow %s: started a new run, which picked it up from PostgreSQL\n", v.ID, v.Status, v.Run)
	return nil
}
