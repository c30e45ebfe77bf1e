package api

import (
	"log/slog"
	"net"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/web"
	"github.com/sobre-sign/sobre/webhook"
	"github.com/sobre-sign/sobre/workflows"
)

// Server holds what the handlers need.
type Server struct {
	cfg      config.Config
	log      *slog.Logger
	store    *persistence.Store
	keys     *auth.Keys
	checks   []Check
	reported []*reported
	gatherer prometheus.Gatherer
	metrics  *httpMetrics
	flows    *workflows.Client
	ceremony *ceremony.Service
	webhooks WebhookDeps
	pages    *web.Handler
	// auditPDFLimit is the most entries of an audit log's PDF (MaxAuditPDFEntries when 0).
	auditPDFLimit int

	limitIP, limitKey, limitLink       *limiter // the rate limits (ratelimit.go); nil when off
	limitDirectLink, limitDirectClient *limiter // a direct link's submits (directsubmit.go)
}

// Deps are the dependencies of a Server.
type Deps struct {
	Config    config.Config
	Log       *slog.Logger
	Store     *persistence.Store
	Workflows *workflows.Client    // starts, signals and updates envelope workflows
	Registry  *prometheus.Registry // HTTP metrics are registered here; /metrics serves it
	Checks    []Check              // what the process needs to serve: run by /readyz
	Reported  []Check              // what it uses but can serve without: in /healthz and sobre_<name>_up
	Ceremony  *ceremony.Service    // signing sessions and recipients' proofs of identity
	Webhooks  WebhookDeps          // where webhooks may point, and the test sends (/webhook/*)
}

// WebhookDeps are what the webhook routes need beyond the store. The zero value is production's:
// only https URLs to public addresses, resolved by the system's resolver.
type WebhookDeps struct {
	// Policy says which URLs a webhook may have (SOBRE_WEBHOOK_ALLOW_PRIVATE sets AllowPrivate);
	// checked when a URL is given, and by Sender on every connection.
	Policy webhook.Policy
	// Sender makes the one attempt of POST /webhook/test; nil: webhook.NewSender(Policy, nil),
	// no proxy.
	Sender *webhook.Sender
	// Resolver resolves a webhook URL's host when it is given; nil: net.DefaultResolver.
	Resolver *net.Resolver
}

// NewServer returns a Server; its routes are served by Handler.
func NewServer(d Deps) (*Server, error) {
	m, err := newHTTPMetrics(d.Registry)
	if err != nil {
		return nil, err
	}
	reported, err := newReported(d.Reported, d.Log, d.Registry)
	if err != nil {
		return nil, err
	}
	s := &Server{
		reported: reported,
		cfg:      d.Config,
		log:      d.Log,
		store:    d.Store,
		keys:     &auth.Keys{Store: d.Store},
		checks:   d.Checks,
		gatherer: d.Registry,
		metrics:  m,
		flows:    d.Workflows,
		ceremony: d.Ceremony,
		webhooks: d.Webhooks,
	}
	if s.webhooks.Sender == nil {
		s.webhooks.Sender = webhook.NewSender(s.webhooks.Policy, nil)
	}
	s.limitIP = newLimiter(policyIP, d.Config.RateLimitIP)
	s.limitKey = newLimiter(policyAPIKey, d.Config.RateLimitAPIKey)
	s.limitLink = newLimiter(policyLink, d.Config.RateLimitLink)
	if s.ceremony == nil {
		s.ceremony = &ceremony.Service{Store: d.Store, PublicURL: d.Config.PublicURL, Log: d.Log}
	}
	s.pages = &web.Handler{Store: d.Store, Ceremony: s.ceremony, Accounts: s.ceremony.Accounts, Log: d.Log, ClientIP: s.clientIP,
		PageCacheBytes: int64(d.Config.PageCacheMiB) << 20, LinkRead: d.Config.LinkRead()}
	s.pages.ClaveUnicaOrigin = origin(d.Config.ClaveUnicaIssuerURL)
	s.pages.EmbedOrigins = d.Config.EmbedOrigins
	return s, nil
}

// NewOpsServer returns the operations handler of a process that serves no API (the worker):
// /healthz, /readyz and /metrics, for SOBRE_METRICS_ADDR.
func NewOpsServer(d Deps) (http.Handler, error) {
	s, err := NewServer(d)
	if err != nil {
		return nil, err
	}
	return s.OpsHandler(), nil
}

// OpsHandler returns the handler of the operations listener (SOBRE_METRICS_ADDR, apart from the
// API's): liveness /healthz, readiness /readyz and Prometheus /metrics. It is meant for the
// kubelet and Prometheus, not for the API's clients.
func (s *Server) OpsHandler() http.Handler {
	r := chi.NewRouter()
	r.Use(nosniff)
	r.Use(withRequestID, s.withClientIP(), s.observe, s.recoverPanics)
	s.fallbackRoutes(r)
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}))
	return r
}

func (s *Server) fallbackRoutes(r chi.Router) {
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeNotFound, "No route for %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeMethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
	})
}

// Handler returns the HTTP handler of the API listener: every route of Sobre, and liveness
// /healthz. Readiness and metrics are on OpsHandler only.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(nosniff)
	r.Use(withRequestID, s.withClientIP(), s.observe, s.recoverPanics, s.limitBodies, s.textURLs)
	r.Use(s.limitRequests)
	s.fallbackRoutes(r)
	r.Get("/healthz", s.healthz)

	v2 := s.v2Routes()
	r.Mount("/api/v2", v2)
	r.Mount("/api/v2-beta", v2)
	s.pages.Routes(r)
	return r
}

// v2Routes declares the envelope API. Every route here needs an API key.
func (s *Server) v2Routes() chi.Router {
	r := chi.NewRouter()
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeNotFound, "No route for %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeMethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/openapi.json", s.openAPI)
	r.Route("/signing/{token}", s.signingRoutes)
	s.directSubmitRoutes(r)
	r.Group(func(r chi.Router) {
		r.Use(s.keys.Middleware(s.writeError, s.log))
		r.Use(s.limitByKey)
		s.envelopeRoutes(r)
		s.webhookRoutes(r)
		s.embedOriginRoutes(r)
		s.directLinkRoutes(r)
		s.bulkSendRoutes(r)
	})
	return r
}
