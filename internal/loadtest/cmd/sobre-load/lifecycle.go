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

// lifecycle runs -n life cycles, -c at a time, across the -api processes, prints their rate and
// latencies, then checks every envelope (COMPLETED, each signature once) and the mail sink (no
// mail twice, every recipient's completion mail there). The last line, "rate N", is for scripts.
func lifecycle(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("lifecycle", flag.ExitOnError)
	var cm common
	cm.register(fs)
	n := fs.Int("n", 200, "envelopes")
	conc := fs.Int("c", 30, "life cycles at once")
	label := fs.String("label", "", "what this run is (printed)")
	clients, _, err := cm.parse(fs, args)
	if err != nil {
		return err
	}
	sink := loadtest.Mailpit{Base: cm.mailpit, HTTP: httpClient}
	if err := sink.DeleteAll(ctx); err != nil {
		return err
	}
	run := runID()
	res := loadtest.Lifecycles{Clients: clients, N: *n, Concurrency: *conc, Run: run, Domain: cm.domain,
		PDF: testpdf.Minimal("Contrato de carga")}.Do(ctx)
	fmt.Printf("lifecycle %s: %d envelopes, %d at a time, through %d API process(es): %d COMPLETED in %.1f s, %d errors\n",
		*label, *n, *conc, len(clients), len(res.IDs), res.Elapsed.Seconds(), len(res.Errors))
	fmt.Printf("  %.2f lifecycles/s, p50 %d ms, p99 %d ms\n", res.Rate(), loadtest.Quantile(res.Latencies, 0.5).Milliseconds(),
		loadtest.Quantile(res.Latencies, 0.99).Milliseconds())
	printErrors(res.Errors)
	problems := len(res.Errors)
	bad := loadtest.Verify(ctx, clients[0], res.IDs, 8)
	printErrors(bad)
	problems += len(bad)
	mark := "-" + run + "-"
	want := loadtest.Signers * len(res.IDs)
	mails, got, err := settledMails(ctx, sink, mark, want)
	if err != nil {
		return err
	}
	repeats := loadtest.Repeats(mails)
	for _, r := range repeats {
		fmt.Printf("  mail sent twice: %s\n", r)
	}
	problems += len(repeats) + want - got
	lo, hi := spread(loadtest.PerRecipient(mails), mark)
	fmt.Printf("  check: %d/%d COMPLETED with each of the %d actions recorded once; completion mail received by %d of %d recipients; %d mails, %d to %d per recipient, %d sent twice\n",
		len(res.IDs)-len(bad), *n, loadtest.Signers, got, want, len(mails), lo, hi, len(repeats))
	fmt.Printf("  503 answers tried again: %d\n", loadtest.Busy.Load())
	fmt.Printf("rate %.3f\n", res.Rate())
	if problems > 0 {
		return fmt.Errorf("%d problems", problems)
	}
	return nil
}

// settledMails waits until want recipients marked mark have their completion mail (at most 3
// minutes: mails go after COMPLETED, off the signers' path), then 5 s more for any repeat, and
// returns the sink's mails and how many of the recipients had their completion mail.
func settledMails(ctx context.Context, sink loadtest.Mailpit, mark string, want int) ([]loadtest.Mail, int, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		mails, err := sink.All(ctx)
		if err != nil {
			return nil, 0, err
		}
		if got := loadtest.Completed(mails, mark); got >= want || time.Now().After(deadline) {
			time.Sleep(5 * time.Second)
			mails, err := sink.All(ctx)
			return mails, loadtest.Completed(mails, mark), err
		}
		time.Sleep(time.Second)
	}
}

// spread is the least and the most mails one recipient of this run (an address containing
// mark) received.
func spread(per map[string]int, mark string) (lo, hi int) {
	first := true
	for addr, n := range per {
		if !strings.Contains(addr, mark) {
			continue
		}
		if first || n < lo {
			lo = n
		}
		if first || n > hi {
			hi = n
		}
		first = false
	}
	return lo, hi
}
