package activities

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
)

// TSAPolicy is how the seal treats a timestamp authority that is unavailable (cannot be
// reached, or answers 5xx or 429).
type TSAPolicy struct {
	// RetryFor is how long, from the seal's first attempt, an unavailable TSA is retried
	// (SOBRE_TSA_RETRY_FOR).
	RetryFor time.Duration
	// Optional: past RetryFor, the envelope is sealed without a timestamp, and its certificate of
	// completion says so (SOBRE_TSA_REQUIRED=false). Otherwise the seal gives up and the workflow
	// waits, tries again later and alerts the owner.
	Optional bool
	// Outages counts the seal's attempts that met an unavailable TSA (NewTSAOutages); nil counts
	// nothing.
	Outages *prometheus.CounterVec
}

func (p TSAPolicy) count(outcome string) {
	if p.Outages != nil {
		p.Outages.WithLabelValues(outcome).Inc()
	}
}

// NewTSAOutages registers sobre_seal_tsa_unavailable_total{outcome}: seal attempts that met an
// unavailable timestamp authority.
func NewTSAOutages(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sobre_seal_tsa_unavailable_total",
		Help: "Seal attempts that met an unavailable timestamp authority: retried (within SOBRE_TSA_RETRY_FOR), unstamped (sealed without a timestamp, SOBRE_TSA_REQUIRED=false) or waiting (given up; the workflow waits and tries again).",
	}, []string{"outcome"})
	return c, register(reg, c)
}

// sealAttempts is how many attempts a failure that may pass (neither a refusal nor the TSA) is
// retried before the seal gives up as envelope.SealFailed, and the workflow waits.
const sealAttempts = 8

// What a failed seal attempt becomes.
type sealStep int

const (
	retrySeal     sealStep = iota // the failure is returned as retryable: Temporal tries again after its backoff
	sealUnstamped                 // the envelope is sealed again at once, without a timestamp
	giveUpSeal                    // the failure is returned as non-retryable: the workflow decides how to wait
)

// nextSealStep decides what attempt number attempt of a seal that failed for f (sealFailureOf)
// becomes, since (the time since its first attempt) and p given: a refusal is given up at once;
// an unavailable TSA is retried for p.RetryFor, then sealed without a timestamp when p.Optional
// or given up; any other failure is retried until its sealAttempts-th attempt, then given up.
func nextSealStep(f envelope.SealFailure, attempt int32, since time.Duration, p TSAPolicy) sealStep {
	switch {
	case f == envelope.SealTSAUnavailable && since < p.RetryFor:
		return retrySeal
	case f == envelope.SealTSAUnavailable && p.Optional:
		return sealUnstamped
	case f == envelope.SealTSAUnavailable:
		return giveUpSeal
	case f != "":
		return giveUpSeal
	case attempt < sealAttempts:
		return retrySeal
	}
	return giveUpSeal
}
