package dispatch

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// The result label of sobre_webhook_dispatch_total.
const (
	resultWoken  = "woken"
	resultFailed = "failed"
)

// NewDispatched registers sobre_webhook_dispatch_total{result} on reg (when not nil): the
// routes whose delivery workflow the dispatcher started or woke (woken), or failed to (failed:
// their calls wait for the next look).
func NewDispatched(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sobre_webhook_dispatch_total",
		Help: "Routes (one webhook's calls for one envelope) handed to their delivery workflow: woken, or failed (retried at the next look).",
	}, []string{"result"})
	if reg == nil {
		return c, nil
	}
	if err := reg.Register(c); err != nil {
		return nil, fmt.Errorf("register webhook dispatch metrics: %w", err)
	}
	return c, nil
}
