package loadtest

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Pending is the batch of Lifecycles split in two phases: every envelope created and
// distributed (Send), left pending at once, then every one signed to COMPLETED (Sign).
type Pending struct {
	Lifecycles
	mu   sync.Mutex
	sent []sent
}

// Send creates and distributes the N envelopes, Concurrency at a time, and returns the errors.
func (p *Pending) Send(ctx context.Context) []error {
	p.sent = make([]sent, 0, p.N)
	return ForEach(p.N, p.Concurrency, func(i int) error {
		s, err := p.send(ctx, i)
		if err != nil {
			return fmt.Errorf("envelope %d: %w", i, err)
		}
		p.mu.Lock()
		p.sent = append(p.sent, s)
		p.mu.Unlock()
		return nil
	})
}

// Sent is how many envelopes Send distributed.
func (p *Pending) Sent() int { return len(p.sent) }

// Sign has every sent envelope's recipients act, Concurrency envelopes at a time, and waits for
// each to be COMPLETED; it returns the ids that were, and the errors.
func (p *Pending) Sign(ctx context.Context) ([]string, []error) {
	var ids []string
	errs := ForEach(len(p.sent), p.Concurrency, func(i int) error {
		if err := p.sent[i].sign(ctx); err != nil {
			return err
		}
		p.mu.Lock()
		ids = append(ids, p.sent[i].id)
		p.mu.Unlock()
		return nil
	})
	return ids, errs
}

// Phase is a phase's name and how long it took, for printing.
type Phase struct {
	Name    string
	Elapsed time.Duration
	N       int
}

func (p Phase) String() string {
	return fmt.Sprintf("%s: %d in %.1f s (%.1f/s)", p.Name, p.N, p.Elapsed.Seconds(), float64(p.N)/max(p.Elapsed.Seconds(), 1e-9))
}
