package api

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/httprate"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// Rate limits. Three policies, each a sliding window counted by go-chi/httprate in this
// process's memory (so each API replica counts on its own: behind N replicas a client may make
// up to N times the limit): per client address (withClientIP; IPv6 by /64), per API key and per
// signing link. Every response that one of them applies to carries Documenso's
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch seconds) of the policy
// nearest to exhaustion, and the IETF fields RateLimit-Policy and RateLimit
// (draft-ietf-httpapi-ratelimit-headers) naming every policy that applied. A refused request is a
// 429 TOO_MANY_REQUESTS with Retry-After, in the usual error body.

// Names of the policies, as RateLimit-Policy shows them.
const (
	policyIP     = "ip"
	policyAPIKey = "api-key"
	policyLink   = "signing-link"
)

// limiter is one policy.
type limiter struct {
	name   string
	limit  int
	window time.Duration
	rl     *httprate.RateLimiter
}

func newLimiter(name string, l config.RateLimit) *limiter {
	if l.Off() {
		return nil
	}
	// Header names already canonical: httprate sets them on a headerSink, where they are read back.
	headers := httprate.ResponseHeaders{Limit: hLimit, Remaining: hRemaining, Reset: hReset, RetryAfter: hRetryAfter}
	return &limiter{name: name, limit: l.Requests, window: l.Window, rl: httprate.NewRateLimiter(l.Requests, l.Window, httprate.WithResponseHeaders(headers))}
}

// limitResult is where one policy stood for one request.
type limitResult struct {
	lim       *limiter
	remaining int
	reset     int64 // epoch seconds at which the current window ends
}

// limitState collects the policies applied to one request, outermost first.
type limitState struct {
	results []limitResult
}

type limitStateKey struct{}

// headerSink is the ResponseWriter httprate writes its verdict's headers to; they are read
// back, and the response gets the combined headers of every policy instead.
type headerSink struct{ h http.Header }

var sinks = sync.Pool{New: func() any { return &headerSink{h: make(http.Header, 5)} }}

// The headers' canonical forms (net/textproto), assigned without canonicalising each time.
const (
	hLimit      = "X-Ratelimit-Limit"
	hRemaining  = "X-Ratelimit-Remaining"
	hReset      = "X-Ratelimit-Reset"
	hPolicy     = "Ratelimit-Policy"
	hState      = "Ratelimit"
	hRetryAfter = "Retry-After"
)

func (s *headerSink) Header() http.Header         { return s.h }
func (s *headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (s *headerSink) WriteHeader(int)             {}

// take counts r against key under l, records the result in r's limitState and rewrites the
// response's headers. It reports whether r may go on; when not, the 429 is written.
func (s *Server) take(l *limiter, w http.ResponseWriter, r *http.Request, key string) bool {
	sink := sinks.Get().(*headerSink)
	defer func() { clear(sink.h); sinks.Put(sink) }()
	refused := l.rl.OnLimit(sink, r, key)
	res := limitResult{lim: l}
	res.remaining, _ = strconv.Atoi(first(sink.h[hRemaining]))
	res.remaining = max(res.remaining, 0)
	res.reset, _ = strconv.ParseInt(first(sink.h[hReset]), 10, 64)
	st, _ := r.Context().Value(limitStateKey{}).(*limitState)
	if st == nil {
		st = &limitState{}
	}
	st.results = append(st.results, res)
	writeLimitHeaders(w.Header(), st.results, time.Now())
	if refused {
		retry, _ := strconv.Atoi(first(sink.h[hRetryAfter]))
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeTooManyRequests,
			Message:    "Too many requests, please try again later (" + l.name + " limit: " + strconv.Itoa(l.limit) + " per " + l.window.String() + ")",
			RetryAfter: time.Duration(max(retry, 1)) * time.Second})
		return false
	}
	return true
}

// writeLimitHeaders sets the rate-limit headers of results on h.
func writeLimitHeaders(h http.Header, results []limitResult, now time.Time) {
	tightest := results[0]
	policies := make([]string, 0, len(results))
	states := make([]string, 0, len(results))
	for _, res := range results {
		if res.remaining <= tightest.remaining {
			tightest = res
		}
		policies = append(policies, strconv.Quote(res.lim.name)+";q="+strconv.Itoa(res.lim.limit)+";w="+strconv.Itoa(int(res.lim.window/time.Second)))
		t := max(int64(math.Ceil(float64(res.reset)-float64(now.UnixNano())/1e9)), 0)
		states = append(states, strconv.Quote(res.lim.name)+";r="+strconv.Itoa(res.remaining)+";t="+strconv.FormatInt(t, 10))
	}
	h[hLimit] = []string{strconv.Itoa(tightest.lim.limit)}
	h[hRemaining] = []string{strconv.Itoa(tightest.remaining)}
	h[hReset] = []string{strconv.FormatInt(tightest.reset, 10)}
	h[hPolicy] = []string{strings.Join(policies, ", ")}
	h[hState] = []string{strings.Join(states, ", ")}
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// limitRequests applies the per-address and per-signing-link policies to every request but the
// operational routes (probes and metrics), and readies the request for the per-key policy.
func (s *Server) limitRequests(next http.Handler) http.Handler {
	ip, link := s.limitIP, s.limitLink
	if ip == nil && link == nil && s.limitKey == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
			next.ServeHTTP(w, r)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), limitStateKey{}, &limitState{}))
		if ip != nil && !s.take(ip, w, r, httprate.CanonicalizeIP(s.clientIP(r))) {
			return
		}
		if token := signingToken(r.URL.Path); link != nil && token != "" && !s.take(link, w, r, token) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitByKey applies the per-API-key policy; it runs after authentication.
func (s *Server) limitByKey(next http.Handler) http.Handler {
	if s.limitKey == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.take(s.limitKey, w, r, auth.KeyFromHeader(r.Header.Get("Authorization"))) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// signingToken is the signing token in path, "" when path is not a signing link's:
// /sign/{token}/..., /api/v2/signing/{token}/... and /api/v2-beta/signing/{token}/....
func signingToken(path string) string {
	var rest string
	var ok bool
	if rest, ok = strings.CutPrefix(path, "/sign/"); !ok {
		if rest, ok = strings.CutPrefix(path, "/api/v2/signing/"); !ok {
			if rest, ok = strings.CutPrefix(path, "/api/v2-beta/signing/"); !ok {
				return ""
			}
		}
	}
	token, _, _ := strings.Cut(rest, "/")
	return token
}
