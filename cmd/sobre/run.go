package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/api"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/webhook"
	"github.com/sobre-sign/sobre/webhook/dispatch"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// process is what every long-running command shares: the store, the Temporal client and the
// Prometheus registry.
type process struct {
	cfg      config.Config
	log      *slog.Logger
	store    *persistence.Store
	temporal client.Client
	registry *prometheus.Registry
}

func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// open connects to PostgreSQL and makes the Temporal client. A lazy client lets the API start
// while Temporal is down (its readiness then says so); the worker waits for Temporal instead.
func open(ctx context.Context, cfg config.Config, log *slog.Logger, lazyTemporal bool) (*process, error) {
	p := &process{cfg: cfg, log: log, registry: newRegistry()}
	if err := pdf.ConfigureEngine(pdf.EngineConfig{Instances: cfg.PDFiumInstances, MemoryMiB: cfg.PDFiumMemoryMiB, Deadline: cfg.PDFiumDeadline}); err != nil {
		return nil, err
	}
	if err := pdf.ConfigureReader(pdf.ReaderConfig{MemoryMiB: cfg.PDFReadMemoryMiB, Timeout: cfg.PDFReadTimeout, Processes: cfg.PDFReaders}); err != nil {
		return nil, err
	}
	store, err := openTokenStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	p.store = store
	opts, err := temporalOptions(cfg, log)
	if err != nil {
		store.Close()
		return nil, err
	}
	opts.Registry, opts.Lazy = p.registry, lazyTemporal
	if lazyTemporal {
		p.temporal, err = worker.Dial(ctx, opts)
	} else {
		p.temporal, err = worker.DialWithRetry(ctx, opts)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	return p, nil
}

// openStore connects to PostgreSQL with the audit key (SOBRE_AUDIT_KEY_FILE, or the development
// key file, said once in the log), so that every audit entry written or verified is keyed, and
// with opts (the keyring of signing tokens, for the processes that serve and mail them).
func openStore(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...persistence.Option) (*persistence.Store, error) {
	path, created, err := cfg.AuditKeyPath()
	if err != nil {
		return nil, err
	}
	keys, err := persistence.LoadAuditKeys(path)
	if err != nil {
		return nil, fmt.Errorf("SOBRE_AUDIT_KEY_FILE: %w", err)
	}
	if cfg.AuditKeyFile == "" {
		log.Warn("no SOBRE_AUDIT_KEY_FILE: keying the audit log with a development key; every process must share it", "file", path, "created", created)
	}
	store, err := persistence.Open(ctx, cfg.DatabaseURL, opts...)
	if err != nil {
		return nil, err
	}
	store.SetAuditKeys(keys)
	store.SetAuditKeyedFrom(cfg.AuditKeyedFrom)
	return store, nil
}

// temporalOptions are the Temporal client's settings: address, the keys that seal its payloads,
// TLS and API key.
func temporalOptions(cfg config.Config, log *slog.Logger) (worker.ClientOptions, error) {
	ring, err := payloadKeys(cfg, log)
	if err != nil {
		return worker.ClientOptions{}, err
	}
	tlsCfg, err := worker.TLSFiles{CertFile: cfg.TemporalTLSCertFile, KeyFile: cfg.TemporalTLSKeyFile,
		CAFile: cfg.TemporalTLSCAFile, ServerName: cfg.TemporalTLSServerName}.Config()
	if err != nil {
		return worker.ClientOptions{}, err
	}
	return worker.ClientOptions{Address: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace, Log: log,
		Keys: ring, TLS: tlsCfg, APIKey: cfg.TemporalAPIKey}, nil
}

// payloadKeys loads the keyring that seals Temporal payloads; the development key file is said
// in the log.
func payloadKeys(cfg config.Config, log *slog.Logger) (*keyring.Ring, error) {
	ring, created, err := cfg.Keyring()
	if err != nil {
		return nil, fmt.Errorf("payload keys: %w", err)
	}
	if cfg.PayloadKeysFile == "" {
		log.Warn("no SOBRE_PAYLOAD_KEYS_FILE: Temporal payloads are sealed with a development key kept in SOBRE_SEAL_DEV_DIR",
			"dir", cfg.SealDevDir, "created", created, "key", ring.PrimaryID())
	}
	return ring, nil
}

func (p *process) close() {
	p.temporal.Close()
	p.store.Close()
}

// postgresql is the check of PostgreSQL, which every process needs to be ready (the API serves
// drafts, reads and signing pages from it alone).
func (p *process) postgresql() api.Check { return api.Check{Name: "postgresql", Run: p.store.Ping} }

// temporalCheck is the check of Temporal: the worker needs it to be ready; the API (and `sobre
// dev`) only reports it, in /healthz and sobre_temporal_up, and its routes that need Temporal
// answer 503 while it is away.
// temporalCheckName names Temporal's check in /healthz and its gauge (sobre_temporal_up).
const temporalCheckName = "temporal"

func (p *process) temporalCheck() api.Check {
	return api.Check{Name: temporalCheckName, Run: func(ctx context.Context) error { return worker.CheckHealth(ctx, p.temporal) }}
}

// httpServer serves h on addr until ctx ends, then drains; name tells the listeners apart in
// the log.
func (p *process) httpServer(ctx context.Context, name, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s (%s): %w", addr, name, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
	}
	p.log.Info("http server listening", "listener", name, "addr", ln.Addr().String(), "public_url", p.cfg.PublicURL)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http server (%s): %w", name, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("drain http server (%s): %w", name, err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http server (%s): %w", name, err)
	}
	return nil
}

// serveAPI serves the API on SOBRE_HTTP_ADDR and the operations routes (readiness, metrics) on
// SOBRE_METRICS_ADDR, with work alongside (the worker, in `sobre dev`), until ctx ends.
func (p *process) serveAPI(ctx context.Context, work ...func(context.Context) error) error {
	srv, err := p.apiServer()
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, w := range work {
		g.Go(func() error { return w(ctx) })
	}
	g.Go(func() error { return p.httpServer(ctx, "api", p.cfg.HTTPAddr, srv.Handler()) })
	g.Go(func() error { return p.httpServer(ctx, "ops", p.cfg.MetricsAddr, srv.OpsHandler()) })
	return g.Wait()
}

func (p *process) apiServer() (*api.Server, error) {
	flows := &workflows.Client{Temporal: p.temporal, TaskQueue: p.cfg.TaskQueue, CallTimeout: p.cfg.TemporalCallTimeout}
	cer, err := p.ceremony(flows)
	if err != nil {
		return nil, err
	}
	srv, err := api.NewServer(api.Deps{
		Ceremony:  cer,
		Config:    p.cfg,
		Log:       p.log,
		Store:     p.store,
		Workflows: flows,
		Registry:  p.registry,
		Checks:    []api.Check{p.postgresql()},
		Reported:  []api.Check{p.temporalCheck()},
		Webhooks:  api.WebhookDeps{Policy: p.webhookPolicy(), Sender: p.webhookSender()},
	})
	if err != nil {
		return nil, err
	}
	// While the health check finds Temporal away, calls that need it answer 503 at once.
	flows.Away = srv.Away(temporalCheckName)
	return srv, nil
}

// opsHandler is what a worker-only process serves on SOBRE_METRICS_ADDR: health, readiness and
// metrics.
func (p *process) opsHandler() (http.Handler, error) {
	srv, err := api.NewOpsServer(api.Deps{Config: p.cfg, Log: p.log, Registry: p.registry,
		Checks: []api.Check{p.postgresql(), p.temporalCheck()}})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

func serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	p, err := open(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer p.close()
	p.startPDFium()
	return p.serveAPI(ctx)
}

// runWorker runs the worker, and its operations listener on SOBRE_METRICS_ADDR; it serves no API.
func runWorker(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	p, err := open(ctx, cfg, log, false)
	if err != nil {
		return err
	}
	defer p.close()
	p.startPDFium()
	h, err := p.opsHandler()
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return p.runWorker(ctx) })
	g.Go(func() error { return p.httpServer(ctx, "ops", p.cfg.MetricsAddr, h) })
	return g.Wait()
}

// runWorker runs the Temporal worker until ctx ends; Stop waits for running activities to
// finish (within the worker's stop timeout).
func (p *process) runWorker(ctx context.Context) error {
	sender, err := mail.NewSender(p.cfg.SMTPURL, p.cfg.MailFrom)
	if err != nil {
		return err
	}
	signer, err := p.sealSigner()
	if err != nil {
		return err
	}
	refusals, err := activities.NewSealRefusals(p.registry)
	if err != nil {
		return err
	}
	tsaOutages, err := activities.NewTSAOutages(p.registry)
	if err != nil {
		return err
	}
	dispatched, err := dispatch.NewDispatched(p.registry)
	if err != nil {
		return err
	}
	webhookMetrics, err := activities.NewWebhookMetrics(p.registry)
	if err != nil {
		return err
	}
	bulk, err := p.bulkSend()
	if err != nil {
		return err
	}
	w, err := worker.New(p.temporal, worker.Options{
		TaskQueue:       p.cfg.TaskQueue,
		StopTimeout:     p.cfg.ShutdownTimeout,
		Log:             p.log,
		SealConcurrency: p.cfg.SealConcurrency,
		StickyCacheSize: p.cfg.StickyCacheSize,
		Activities: &activities.Activities{
			Store:     p.store,
			Mail:      sender,
			PublicURL: p.cfg.PublicURL,
			MailHost:  publicHost(p.cfg.PublicURL),
			Log:       p.log,
			Seal:      signer,

			SealRefusals: refusals,
			SealTSA:      activities.TSAPolicy{RetryFor: p.cfg.TSARetryFor, Optional: !p.cfg.TSARequired, Outages: tsaOutages},
			ProofMaxAge:  p.cfg.ActionProofMaxAge,

			Webhooks:       p.webhookSender(),
			WebhookMetrics: webhookMetrics,
			Bulk:           bulk,
		},
	})
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker on task queue %s: %w", p.cfg.TaskQueue, err)
	}
	p.log.Info("worker started", "task_queue", p.cfg.TaskQueue, "seal_task_queue", workflows.SealQueue(p.cfg.TaskQueue),
		"seal_concurrency", p.cfg.SealConcurrency, "webhook_task_queue", workflows.WebhookQueue(p.cfg.TaskQueue),
		"temporal", p.cfg.TemporalAddress)
	// The purge of expired ceremony records runs on a Temporal Schedule; a worker that cannot
	// set it up still runs envelopes (the next worker to start tries again).
	if err := worker.EnsurePurgeSchedule(ctx, p.temporal, p.cfg.TaskQueue, p.cfg.PurgeInterval, workflows.DefaultPurge); err != nil {
		p.log.Error("purge schedule not set up", "err", err)
	}
	if err := worker.EnsureWebhookPurgeSchedule(ctx, p.temporal, p.cfg.TaskQueue, worker.WebhookPurgeEvery); err != nil {
		p.log.Error("webhook purge schedule not set up", "err", err)
	}
	// The outbox's calls are handed to their delivery workflows by this process's dispatcher;
	// every worker runs one, and they never take the same call.
	outbox := &dispatch.Dispatcher{Store: p.store, Log: p.log, Counted: dispatched,
		Waker: &workflows.Client{Temporal: p.temporal, TaskQueue: p.cfg.TaskQueue, CallTimeout: p.cfg.TemporalCallTimeout}}
	dispatching := make(chan error, 1)
	go func() { dispatching <- outbox.Run(ctx) }()
	watched := make(chan error, 1)
	go func() { watched <- p.watchStuck(ctx) }()
	<-ctx.Done()
	w.Stop()
	if err := <-dispatching; err != nil {
		return err
	}
	if err := <-watched; err != nil {
		return err
	}
	p.log.Info("worker stopped")
	return nil
}

func dev(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if err := migrate(ctx, cfg, log); err != nil {
		return err
	}
	p, err := open(ctx, cfg, log, false)
	if err != nil {
		return err
	}
	defer p.close()
	p.startPDFium()
	return p.serveAPI(ctx, p.runWorker)
}

func migrate(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	version, err := persistence.Migrate(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return err
	}
	log.Info("database schema up to date", "version", version)
	return nil
}

// webhookPolicy is where webhooks may point: public addresses over https, and private ones too
// when SOBRE_WEBHOOK_ALLOW_PRIVATE is set (development).
func (p *process) webhookPolicy() webhook.Policy {
	return webhook.Policy{AllowPrivate: p.cfg.WebhookAllowPrivate}
}

// webhookSender is the HTTP client of webhook deliveries: the policy, and SOBRE_WEBHOOK_PROXY's
// proxy when set.
func (p *process) webhookSender() *webhook.Sender {
	return webhook.NewSender(p.webhookPolicy(), p.cfg.WebhookProxy)
}
