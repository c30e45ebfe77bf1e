package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/internal/loadtest"
	"github.com/sobre-sign/sobre/internal/testpdf"
)

// Memory targets with 10,000 envelopes pending (issue: scale): a worker's and an API's RSS once
// they are all distributed and the processes have settled. The peaks are printed beside: they
// come from other moments (PDFium's compile as a process starts, the seals while signing), which
// the README's Load section accounts for.
const (
	workerTargetMB = 300
	apiTargetMB    = 100
)

// pending distributes -n envelopes and leaves them pending at once, prints the processes'
// memory, then signs every one to COMPLETED and checks them; each phase is timed.
func pending(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("pending", flag.ExitOnError)
	var cm common
	cm.register(fs)
	n := fs.Int("n", 10000, "envelopes")
	conc := fs.Int("c", 30, "envelopes sent or signed at once")
	settle := fs.Duration("settle", 30*time.Second, "wait after the last distribute before reading memory (past the 15 s after which an idle process closes its PDFium instances)")
	sign := fs.Bool("sign", true, "sign every envelope after the memory is read (false: leave them pending)")
	clients, procs, err := cm.parse(fs, args)
	if err != nil {
		return err
	}
	p := &loadtest.Pending{Lifecycles: loadtest.Lifecycles{Clients: clients, N: *n, Concurrency: *conc, Run: runID(),
		Domain: cm.domain, PDF: testpdf.Minimal("Contrato pendiente")}}
	fmt.Printf("pending: %d envelopes, %d at a time, through %d API process(es)\n", *n, *conc, len(clients))
	fmt.Printf("  memory at start:\n%s", loadtest.MemoryReport(procs))
	start := time.Now()
	errs := p.Send(ctx)
	sendPhase := loadtest.Phase{Name: "send (create with PDF, distribute)", Elapsed: time.Since(start), N: p.Sent()}
	fmt.Printf("  %s, %d errors\n", sendPhase, len(errs))
	printErrors(errs)
	time.Sleep(*settle)
	fmt.Printf("  memory with %d envelopes pending (%s after the last distribute):\n%s", p.Sent(), *settle, loadtest.MemoryReport(procs))
	over := overTarget(procs)
	for _, o := range over {
		fmt.Printf("  over target: %s\n", o)
	}
	if !*sign {
		fmt.Printf("  503 answers tried again: %d\n", loadtest.Busy.Load())
		if problems := len(errs) + len(over); problems > 0 {
			return fmt.Errorf("%d problems", problems)
		}
		return nil
	}
	start = time.Now()
	ids, signErrs := p.Sign(ctx)
	signPhase := loadtest.Phase{Name: "sign (approver, 2 signers, COMPLETED)", Elapsed: time.Since(start), N: len(ids)}
	fmt.Printf("  %s, %d errors\n", signPhase, len(signErrs))
	printErrors(signErrs)
	fmt.Printf("  memory at the end:\n%s", loadtest.MemoryReport(procs))
	start = time.Now()
	bad := loadtest.Verify(ctx, clients[0], ids, 8)
	printErrors(bad)
	fmt.Printf("  check: %d/%d COMPLETED with each of the %d actions recorded once (%.1f s)\n", len(ids)-len(bad), *n, loadtest.Signers, time.Since(start).Seconds())
	fmt.Printf("  503 answers tried again: %d\n", loadtest.Busy.Load())
	if problems := len(errs) + len(signErrs) + len(bad) + len(over); problems > 0 {
		return fmt.Errorf("%d problems", problems)
	}
	return nil
}

// overTarget lists the processes whose RSS is over their kind's target now.
func overTarget(procs []loadtest.Process) []string {
	var out []string
	for _, p := range procs {
		limit := apiTargetMB
		if strings.HasPrefix(p.Name, "worker") {
			limit = workerTargetMB
		}
		m, err := loadtest.ReadMemory(p.PID)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		if m.RSS > int64(limit)*1e6 {
			out = append(out, fmt.Sprintf("%s RSS %.0f MB, target %d MB", p.Name, float64(m.RSS)/1e6, limit))
		}
	}
	return out
}

// printErrors prints the first five errors and how many more there were.
func printErrors(errs []error) {
	for i, e := range errs {
		if i == 5 {
			fmt.Printf("  … %d more errors\n", len(errs)-5)
			return
		}
		fmt.Printf("  error: %v\n", e)
	}
}
