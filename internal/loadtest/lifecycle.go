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
		mu  sync.Mutex
		res LifecycleResult
	)
	start := time.Now()
	res.Errors = ForEach(l.N, l.Concurrency, func(i int) error {
		began := time.Now()
		s, err := l.send(ctx, i)
		if err == nil {
			err = s.sign(ctx)
		}
		if err != nil {
			return fmt.Errorf("life cycle %d: %w", i, err)
		}
		mu.Lock()
		res.IDs = append(res.IDs, s.id)
		res.Latencies = append(res.Latencies, time.Since(began))
		mu.Unlock()
		return nil
	})
	res.Elapsed = time.Since(start)
	return res
}

// sent is an envelope distributed and not yet signed: where it went and who acts on it.
type sent struct {
	c      *Client
	id     string
	inTurn []Recipient
}

// send creates and distributes envelope i.
func (l Lifecycles) send(ctx context.Context, i int) (sent, error) {
	c := l.Clients[i%len(l.Clients)]
	id, err := c.Create(ctx, Draft(l.Run, i, l.Domain), l.PDF)
	if err != nil {
		return sent{}, err
	}
	recipients, err := c.Distribute(ctx, id)
	if err != nil {
		return sent{}, fmt.Errorf("distribute %s: %w", id, err)
	}
	return sent{c: c, id: id, inTurn: InTurn(recipients)}, nil
}

// sign has each recipient act in turn and waits for COMPLETED.
func (s sent) sign(ctx context.Context) error {
	for _, r := range s.inTurn {
		if err := s.c.Act(ctx, r.Token); err != nil {
			return fmt.Errorf("%s %s: %w", s.id, r.Role, err)
		}
	}
	return s.c.WaitStatus(ctx, s.id, "COMPLETED", 3*time.Minute)
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
	return ForEach(len(ids), concurrency, func(i int) error {
		id := ids[i]
		if st, err := c.Status(ctx, id); err != nil || st != "COMPLETED" {
			return fmt.Errorf("envelope %s: status %s (%v), want COMPLETED", id, st, err)
		}
		types, err := c.AuditTypes(ctx, id)
		if err != nil {
			return fmt.Errorf("envelope %s: audit log: %w", id, err)
		}
		if n := types["DOCUMENT_RECIPIENT_COMPLETED"]; n != Signers {
			return fmt.Errorf("envelope %s: %d DOCUMENT_RECIPIENT_COMPLETED entries, want %d", id, n, Signers)
		}
		if n := types["DOCUMENT_COMPLETED"]; n != 1 {
			return fmt.Errorf("envelope %s: %d DOCUMENT_COMPLETED entries, want 1", id, n)
		}
		return nil
	})
}
