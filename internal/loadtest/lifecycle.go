package loadtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Lifecycles is a batch of envelope life cycles: each creates an envelope with a PDF (Draft),
// distributes it, has its approver and two signers act in turn through the signing API, and
// waits for COMPLETED (the seal made). Envelope i goes through Clients[i % len(Clients)].
type Lifecycles struct {
	Clients     []*Client
	N           int    // envelopes
	Concurrency int    // life cycles at once
	Run         string // names this batch's envelopes and addresses
	Domain      string // of every recipient's address
	PDF         []byte
}

// LifecycleResult is what a batch measured.
type LifecycleResult struct {
	IDs       []string // envelopes that reached COMPLETED
	Latencies []time.Duration
	Elapsed   time.Duration
	Errors    []error
}

// Rate is the completed life cycles per second of wall time.
func (r LifecycleResult) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(len(r.IDs)) / r.Elapsed.Seconds()
}

// Do runs the batch, Concurrency at a time, and returns when every life cycle ended.
func (l Lifecycles) Do(ctx context.Context) LifecycleResult {
	var (
		mu   sync.Mutex
		res  LifecycleResult
		lat  latencies
		wg   sync.WaitGroup
		next = make(chan int)
	)
	start := time.Now()
	for range max(1, l.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				began := time.Now()
				id, err := l.one(ctx, i)
				mu.Lock()
				if err != nil {
					res.Errors = append(res.Errors, fmt.Errorf("life cycle %d: %w", i, err))
				} else {
					res.IDs = append(res.IDs, id)
					lat.add(time.Since(began))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range l.N {
		next <- i
	}
	close(next)
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Latencies = lat.all()
	return res
}

// one runs life cycle i and returns its envelope's id.
func (l Lifecycles) one(ctx context.Context, i int) (string, error) {
	c := l.Clients[i%len(l.Clients)]
	id, err := c.Create(ctx, Draft(l.Run, i, l.Domain), l.PDF)
	if err != nil {
		return "", err
	}
	recipients, err := c.Distribute(ctx, id)
	if err != nil {
		return id, err
	}
	for _, r := range InTurn(recipients) {
		if err := c.Act(ctx, r.Token); err != nil {
			return id, fmt.Errorf("%s %s: %w", id, r.Role, err)
		}
	}
	return id, c.WaitStatus(ctx, id, "COMPLETED", 3*time.Minute)
}

// InTurn is the recipients who act (every role but CC), by signing order.
func InTurn(rs []Recipient) []Recipient {
	var out []Recipient
	for _, r := range rs {
		if r.Role != "CC" {
			out = append(out, r)
		}
	}
	order := func(r Recipient) int {
		if r.SigningOrder == nil {
			return 0
		}
		return *r.SigningOrder
	}
	slices.SortStableFunc(out, func(a, b Recipient) int { return order(a) - order(b) })
	return out
}

// Verify checks that every envelope in ids is COMPLETED with one DOCUMENT_COMPLETED entry and
// one DOCUMENT_RECIPIENT_COMPLETED entry per acting recipient (Signers): each signature
// recorded once. It returns one error per envelope that is not.
func Verify(ctx context.Context, c *Client, ids []string, concurrency int) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		next = make(chan string)
	)
	fail := func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
	for range max(1, concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				if st, err := c.Status(ctx, id); err != nil || st != "COMPLETED" {
					fail(fmt.Errorf("envelope %s: status %s (%v), want COMPLETED", id, st, err))
					continue
				}
				types, err := c.AuditTypes(ctx, id)
				if err != nil {
					fail(fmt.Errorf("envelope %s: audit log: %w", id, err))
					continue
				}
				if n := types["DOCUMENT_RECIPIENT_COMPLETED"]; n != Signers {
					fail(fmt.Errorf("envelope %s: %d DOCUMENT_RECIPIENT_COMPLETED entries, want %d", id, n, Signers))
				}
				if n := types["DOCUMENT_COMPLETED"]; n != 1 {
					fail(fmt.Errorf("envelope %s: %d DOCUMENT_COMPLETED entries, want 1", id, n))
				}
			}
		}()
	}
	for _, id := range ids {
		next <- id
	}
	close(next)
	wg.Wait()
	return errs
}
