package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	tlog "go.temporal.io/sdk/log"

	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
)

// ClientOptions are what Dial needs.
type ClientOptions struct {
	Address   string
	Namespace string
	Log       *slog.Logger
	Registry  prometheus.Registerer // Temporal SDK metrics (temporal_*) are registered here
	Lazy      bool                  // connect on first use instead of now
	// Keys seal every payload the client writes and open those it reads (payloadcodec):
	// required, so that no client of Sobre writes a clear payload to Temporal.
	Keys *keyring.Ring
	// TLS, when set, secures the connection (TLSFiles.Config builds it).
	TLS *tls.Config
	// APIKey, when set, is sent with every call as a bearer token; without TLS set, it turns
	// TLS on with the system's roots.
	APIKey string
}

// Dial returns a Temporal client whose payloads are sealed with o.Keys. The SDK's metrics go to
// the Prometheus registry through the OpenTelemetry bridge.
func Dial(ctx context.Context, o ClientOptions) (client.Client, error) {
	if o.Keys == nil {
		return nil, errors.New("temporal client: no payload keys")
	}
	dc := payloadcodec.DataConverter(o.Keys)
	opts := client.Options{
		HostPort:          o.Address,
		Namespace:         o.Namespace,
		Logger:            tlog.NewStructuredLogger(o.Log.With("component", "temporal")),
		DataConverter:     dc,
		FailureConverter:  payloadcodec.FailureConverter(dc),
		ConnectionOptions: client.ConnectionOptions{TLS: o.TLS},
	}
	if o.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(o.APIKey)
	}
	if o.Registry != nil {
		exporter, err := otelprom.New(otelprom.WithRegisterer(o.Registry), otelprom.WithoutScopeInfo())
		if err != nil {
			return nil, fmt.Errorf("make prometheus exporter for temporal metrics: %w", err)
		}
		// Temporal's latencies are in seconds: OpenTelemetry's default buckets (0, 5, 10, 25...)
		// would put them all in the first one.
		seconds := sdkmetric.NewView(sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{
				Boundaries: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
			}})
		provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithView(seconds))
		opts.MetricsHandler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: provider.Meter("temporal-sdk-go"),
		})
	}
	if o.Lazy {
		c, err := client.NewLazyClient(opts)
		if err != nil {
			return nil, fmt.Errorf("make temporal client for %s: %w", o.Address, err)
		}
		return c, nil
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("dial temporal at %s: %w", o.Address, err)
	}
	return c, nil
}

// DialWithRetry dials until Temporal answers or ctx ends, so that processes started together
// with the Temporal server wait for it.
func DialWithRetry(ctx context.Context, o ClientOptions) (client.Client, error) {
	delay := 200 * time.Millisecond
	for {
		dialCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := Dial(dialCtx, o)
		cancel()
		if err == nil {
			return c, nil
		}
		o.Log.WarnContext(ctx, "temporal not reachable yet; retrying", "address", o.Address, "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dial temporal at %s: %w (last error: %v)", o.Address, ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// CheckHealth reports whether the Temporal frontend answers.
func CheckHealth(ctx context.Context, c client.Client) error {
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		return fmt.Errorf("temporal health: %w", err)
	}
	return nil
}
