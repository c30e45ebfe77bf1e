package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/sobre-sign/sobre/internal/loadtest"
	"github.com/sobre-sign/sobre/internal/testpdf"
)

// sustained prepares envelopes to read and sign in, searches step by step for the highest rate
// of the mixed traffic (loadtest.MixKind) that holds (loadtest.Holds), then runs it for
// -duration and prints its latencies, errors and the processes' memory at start and end.
func sustained(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sustained", flag.ExitOnError)
	var cm common
	cm.register(fs)
	prepare := fs.Int("prepare", 300, "envelopes distributed beforehand (read, and signed in)")
	conc := fs.Int("c", 30, "envelopes prepared at once")
	step := fs.Duration("step", 15*time.Second, "length of each step of the search")
	start := fs.Int("start", 2, "first rate of the search, requests per second")
	factor := fs.Float64("factor", 1.4, "each step's rate over the one before")
	limit := fs.Int("max", 400, "highest rate tried")
	confirm := fs.Duration("confirm", time.Minute, "length of the run that confirms a rate the search found")
	duration := fs.Duration("duration", 5*time.Minute, "length of the run at the rate found")
	clients, procs, err := cm.parse(fs, args)
	if err != nil {
		return err
	}
	began := time.Now()
	mix, err := loadtest.PrepareMix(ctx, loadtest.Lifecycles{Clients: clients, N: *prepare, Concurrency: *conc, Run: runID(),
		Domain: cm.domain, PDF: testpdf.Minimal("Contrato sostenido")}, cm.key)
	if err != nil {
		return err
	}
	fmt.Printf("sustained: %d envelopes prepared in %.1f s; mix of every 10 requests: 5 gets, 2 lists, 2 creates with a PDF, 1 signing action\n",
		*prepare, time.Since(began).Seconds())
	rates := loadtest.StepRates(*start, *factor, *limit)
	best := -1
	for i, rate := range rates {
		m, byKind := attack(mix, rate, *step)
		holds := loadtest.Holds(m.Latencies.P99, errorCount(m))
		fmt.Printf("  step %4d/s for %s: %s, holds: %v\n    by kind: %s\n", rate, *step, summary(m), holds, kinds(byKind))
		if !holds {
			break
		}
		best = i
	}
	// A short step can hold at a rate the processes cannot keep up, their queues still filling:
	// each rate found is confirmed over a longer run, stepping down until one holds, each after a
	// pause in which what the run before left queued drains.
	for ; best >= 0; best-- {
		time.Sleep(*step)
		m, byKind := attack(mix, rates[best], *confirm)
		holds := loadtest.Holds(m.Latencies.P99, errorCount(m))
		fmt.Printf("  confirm %4d/s for %s: %s, holds: %v\n    by kind: %s\n", rates[best], *confirm, summary(m), holds, kinds(byKind))
		if holds {
			break
		}
	}
	rate := *start
	if best >= 0 {
		rate = rates[best]
	} else {
		fmt.Printf("  no rate held p99 < %s with no error; running at %d/s anyway\n", loadtest.LatencyTarget, rate)
	}
	fmt.Printf("  run: %d/s for %s\n  memory at start:\n%s", rate, *duration, loadtest.MemoryReport(procs))
	m, byKind := attack(mix, rate, *duration)
	fmt.Printf("  memory at end:\n%s", loadtest.MemoryReport(procs))
	fmt.Printf("  sustained %d/s for %s: %s, holds: %v\n    by kind: %s\n", rate, *duration, summary(m), loadtest.Holds(m.Latencies.P99, errorCount(m)), kinds(byKind))
	return nil
}

// attack sends mix at rate requests per second for d and returns vegeta's metrics, over all
// and by kind of request.
func attack(mix *loadtest.Mix, rate int, d time.Duration) (*vegeta.Metrics, map[loadtest.Kind]*vegeta.Metrics) {
	a := vegeta.NewAttacker(vegeta.Timeout(30*time.Second), vegeta.KeepAlive(true), vegeta.Connections(100))
	var m vegeta.Metrics
	byKind := map[loadtest.Kind]*vegeta.Metrics{}
	for res := range a.Attack(mix.Targeter(), vegeta.Rate{Freq: rate, Per: time.Second}, d, fmt.Sprintf("%d/s", rate)) {
		m.Add(res)
		k := loadtest.KindOf(res.Method, res.URL)
		if byKind[k] == nil {
			byKind[k] = &vegeta.Metrics{}
		}
		byKind[k].Add(res)
	}
	m.Close()
	for _, km := range byKind {
		km.Close()
	}
	return &m, byKind
}

// kinds is the p50/p99 of each kind of request, for a summary.
func kinds(byKind map[loadtest.Kind]*vegeta.Metrics) string {
	var parts []string
	for _, k := range []loadtest.Kind{loadtest.GetEnvelope, loadtest.ListEnvelopes, loadtest.CreateEnvelope, loadtest.FillField} {
		if km := byKind[k]; km != nil {
			parts = append(parts, fmt.Sprintf("%s p50 %.1f p99 %.1f ms", k, ms(km.Latencies.P50), ms(km.Latencies.P99)))
		}
	}
	return strings.Join(parts, "; ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// errorCount is how many requests failed: an error or a status other than 2xx.
func errorCount(m *vegeta.Metrics) int {
	return int(math.Round(float64(m.Requests) * (1 - m.Success)))
}

func summary(m *vegeta.Metrics) string {
	codes := make([]string, 0, len(m.StatusCodes))
	for c, n := range m.StatusCodes {
		codes = append(codes, fmt.Sprintf("%s×%d", c, n))
	}
	sort.Strings(codes)
	s := fmt.Sprintf("%d requests, p50 %.1f ms, p99 %.1f ms, %d errors %v", m.Requests, ms(m.Latencies.P50), ms(m.Latencies.P99), errorCount(m), codes)
	if len(m.Errors) > 0 {
		s += fmt.Sprintf(" (first: %s)", m.Errors[0])
	}
	return s
}
