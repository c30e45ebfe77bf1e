package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
)

type requestIDKey struct{}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// withRequestID gives every request an id: the caller's X-Request-Id when it is sane, else a
// random one. It is echoed in the response and logged with every line about the request.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID.MatchString(id) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// httpMetrics are the Prometheus metrics of the HTTP server.
type httpMetrics struct {
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sobre_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by method, route pattern and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route", "status"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sobre_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register http metrics: %w", err)
		}
	}
	return m, nil
}

// routePattern returns the chi route pattern that served r, or "unmatched".
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// observe logs every request as one JSON line and records its metrics. The path is logged only
// for routes without a secret in them: signing tokens never reach the log.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.metrics.inFlight.Inc()
		defer s.metrics.inFlight.Dec()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		route := routePattern(r)
		elapsed := time.Since(start)
		s.metrics.duration.WithLabelValues(r.Method, route, strconv.Itoa(rec.status)).Observe(elapsed.Seconds())
		attrs := []slog.Attr{
			slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method),
			slog.String("route", route),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Duration("duration", elapsed),
			slog.String("remote", s.clientIP(r)),
			slog.String("peer", peerIP(r)),
		}
		if !strings.Contains(route, "{token}") && route != "unmatched" {
			attrs = append(attrs, slog.String("path", r.URL.Path))
		}
		level := slog.LevelInfo
		if route == "/healthz" || route == "/readyz" || route == "/metrics" {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(r.Context(), level, "http request", attrs...)
	})
}

// recoverPanics turns a panic in a handler into a logged 500 with the usual error body.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic in handler", "panic", fmt.Sprint(v), "stack", string(debug.Stack()), "request_id", requestID(r.Context()))
				s.writeError(w, r, envelope.Errorf(envelope.CodeInternal, "Internal server error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBodies caps every request body: multipart uploads at MaxUploadBytes, the rest at
// MaxBodyBytes. Reading past the cap fails with *http.MaxBytesError, answered 413.
func (s *Server) limitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := s.cfg.MaxBodyBytes
		if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/") {
			limit = s.cfg.MaxUploadBytes
		}
		if r.ContentLength > limit {
			s.writeError(w, r, envelope.Errorf(envelope.CodePayloadTooLarge, "Request body larger than %d bytes", limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// jsonBodies caps a request body at SOBRE_MAX_BODY_BYTES whatever its Content-Type says, for
// routes that take JSON only: a client claiming multipart would otherwise get limitBodies'
// upload cap on a route anyone holding a link may call.
func (s *Server) jsonBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeError(w, r, envelope.Errorf(envelope.CodePayloadTooLarge, "Request body larger than %d bytes", s.cfg.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// withClientIP works out who the client is, once per request, with chi's ClientIPFrom*
// middleware (read back by clientIP). Without SOBRE_TRUSTED_PROXIES the client is the
// connection's peer and X-Forwarded-For is ignored. With it, X-Forwarded-For is read only when
// the peer is one of the trusted proxies: walking it from the right, the first address outside
// the list is the client; the entries to its left, which the client may have written, are never
// read. A chain made only of trusted addresses, or with an entry that is not an address before
// an untrusted one, gives no client from the header, and the peer is taken instead.
func (s *Server) withClientIP() func(http.Handler) http.Handler {
	if len(s.cfg.TrustedProxies) == 0 {
		return middleware.ClientIPFromRemoteAddr
	}
	cidrs := make([]string, len(s.cfg.TrustedProxies))
	for i, p := range s.cfg.TrustedProxies {
		cidrs[i] = p.String()
	}
	return middleware.ClientIPFromXFF(cidrs...)
}

// clientIP is the caller's address (withClientIP), or the connection's peer when none was found.
func (s *Server) clientIP(r *http.Request) string {
	if ip := middleware.GetClientIP(r.Context()); ip != "" {
		return ip
	}
	return peerIP(r)
}

// peerIP is the address of the connection's other end: the client, or the last proxy.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// textURLs answers 400 to a request whose URL path or query parameters, decoded, are not UTF-8
// text or hold the NUL character: no text column stores either, so the database would refuse
// them later with an error that names nothing. On the API the issue names the query parameter,
// or "path"; a page, read by a person, gets a line of plain text saying so.
func (s *Server) textURLs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, found := "path", !envelope.IsText(r.URL.Path)
		if !found {
			name, found = envelope.NonText(r.URL.Query())
		}
		switch {
		case !found:
			next.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, "/api/"):
			s.writeError(w, r, envelope.Invalid(name, "must be UTF-8 text without the NUL character"))
		default:
			http.Error(w, "This address holds characters that are not text; check the link you followed.", http.StatusBadRequest)
		}
	})
}
