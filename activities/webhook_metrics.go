package activities

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/webhook"
)

// WebhookMetrics count webhook attempts and calls given up (docs/webhooks.md, Seen by ops). A
// nil *WebhookMetrics counts nothing.
type WebhookMetrics struct {
	attempts *prometheus.CounterVec
	duration *prometheus.HistogramVec
	givenUp  *prometheus.CounterVec
}

// NewWebhookMetrics registers sobre_webhook_attempts_total{event, outcome},
// sobre_webhook_attempt_duration_seconds{event, outcome} and
// sobre_webhook_calls_failed_total{event}.
func NewWebhookMetrics(reg prometheus.Registerer) (*WebhookMetrics, error) {
	m := &WebhookMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sobre_webhook_attempts_total",
			Help: "Webhook attempts made, by event and outcome: success (2xx), gone (410: the webhook was disabled), failed (anything else, retried on the schedule).",
		}, []string{"event", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sobre_webhook_attempt_duration_seconds",
			Help:    "How long a webhook attempt took, from the connection to the end of the answer read, by event and outcome.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}, []string{"event", "outcome"}),
		givenUp: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sobre_webhook_calls_failed_total",
			Help: "Webhook calls given up after their last attempt failed, by event.",
		}, []string{"event"}),
	}
	for _, c := range []prometheus.Collector{m.attempts, m.duration, m.givenUp} {
		if err := register(reg, c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *WebhookMetrics) attempt(event envelope.WebhookEvent, outcome webhook.Outcome, d time.Duration) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(string(event), string(outcome)).Inc()
	m.duration.WithLabelValues(string(event), string(outcome)).Observe(d.Seconds())
}

func (m *WebhookMetrics) failed(event envelope.WebhookEvent) {
	if m == nil {
		return
	}
	m.givenUp.WithLabelValues(string(event)).Inc()
}
