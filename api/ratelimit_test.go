package api

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// limited is one response's status and rate-limit headers.
type limited struct {
	status                         int
	limit, remaining, reset, retry string
	policy, state                  string
	code                           string
}

func (a *testAPI) limitedGet(path, key, forwardedFor string) limited {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	h := res.Header
	l := limited{status: res.StatusCode, limit: h.Get("X-RateLimit-Limit"), remaining: h.Get("X-RateLimit-Remaining"),
		reset: h.Get("X-RateLimit-Reset"), retry: h.Get("Retry-After"), policy: h.Get("RateLimit-Policy"), state: h.Get("RateLimit")}
	if m := regexp.MustCompile(`"code":"([A-Z_]+)"`).FindSubmatch(body); m != nil {
		l.code = string(m[1])
	}
	if res.StatusCode == http.StatusTooManyRequests {
		if ok, _ := regexp.Match(`^\{"message":"Too many requests[^"]*","code":"TOO_MANY_REQUESTS"\}\n$`, body); !ok {
			a.t.Errorf("429 body is not the error shape: %s", body)
		}
	}
	return l
}

// checkReset: X-RateLimit-Reset is the epoch second the window ends, within one window of now,
// and RateLimit's t (seconds to that reset) agrees with it.
func checkReset(t *testing.T, l limited, window time.Duration, policy string) {
	t.Helper()
	reset, err := strconv.ParseInt(l.reset, 10, 64)
	now := time.Now().Unix()
	if err != nil || reset < now || reset > now+int64(window/time.Second)+1 {
		t.Errorf("X-RateLimit-Reset %q is not within a window of now (%d)", l.reset, now)
	}
	m := regexp.MustCompile(`"` + policy + `";r=(\d+);t=(\d+)`).FindStringSubmatch(l.state)
	if m == nil {
		t.Fatalf("RateLimit %q names no %s", l.state, policy)
	}
	if tt, _ := strconv.ParseInt(m[2], 10, 64); tt < reset-now-1 || tt > reset-now+1 {
		t.Errorf("RateLimit t=%d, X-RateLimit-Reset is %d seconds away", tt, reset-now)
	}
}

// unlimited is c without rate limits or mail quota (benchmarks make more requests than a client).
func unlimited(c config.Config) config.Config {
	c.RateLimitIP, c.RateLimitAPIKey, c.RateLimitLink, c.MailQuota = config.RateLimit{}, config.RateLimit{}, config.RateLimit{}, 0
	return c
}

func limitedAPI(t *testing.T, configure func(c *config.Config)) *testAPI {
	return newTestAPIWith(t, func(d *Deps) {
		d.Config.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
		d.Config.RateLimitIP, d.Config.RateLimitAPIKey, d.Config.RateLimitLink = config.RateLimit{}, config.RateLimit{}, config.RateLimit{}
		configure(&d.Config)
	})
}

// Per client address: the limit's requests pass, counting down, and the next is a 429 with
// Retry-After and every header; another address has its own count, an IPv6 /64 shares one, and
// the probes are never limited.
func TestRateLimitPerAddress(t *testing.T) {
	a := limitedAPI(t, func(c *config.Config) { c.RateLimitIP = config.RateLimit{Requests: 3, Window: time.Minute} })
	for i := 1; i <= 3; i++ {
		l := a.limitedGet("/api/v2/openapi.json", "", "198.51.100.7")
		if l.status != http.StatusOK || l.limit != "3" || l.remaining != strconv.Itoa(3-i) || l.retry != "" {
			t.Fatalf("request %d: %+v", i, l)
		}
		if l.policy != `"ip";q=3;w=60` || !regexp.MustCompile(`^"ip";r=`+strconv.Itoa(3-i)+`;t=\d+$`).MatchString(l.state) {
			t.Errorf("request %d: RateLimit-Policy %q, RateLimit %q", i, l.policy, l.state)
		}
		checkReset(t, l, time.Minute, "ip")
	}
	l := a.limitedGet("/api/v2/openapi.json", "", "198.51.100.7")
	if l.status != http.StatusTooManyRequests || l.code != string(envelope.CodeTooManyRequests) || l.limit != "3" || l.remaining != "0" ||
		l.retry != "60" || l.policy != `"ip";q=3;w=60` || !regexp.MustCompile(`^"ip";r=0;t=\d+$`).MatchString(l.state) {
		t.Errorf("over the limit: %+v", l)
	}
	checkReset(t, l, time.Minute, "ip")
	// A spoofed leftmost entry does not make a new client.
	if l := a.limitedGet("/api/v2/openapi.json", "", "203.0.113.50, 198.51.100.7"); l.status != http.StatusTooManyRequests {
		t.Errorf("a spoofed entry escaped the limit: %+v", l)
	}
	if l := a.limitedGet("/api/v2/openapi.json", "", "198.51.100.8"); l.status != http.StatusOK || l.remaining != "2" {
		t.Errorf("another address: %+v", l)
	}
	if l := a.limitedGet("/healthz", "", "198.51.100.7"); l.status != http.StatusOK || l.limit != "" || l.policy != "" {
		t.Errorf("/healthz: %+v", l)
	}
	for i, addr := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::ffff:1"} {
		if l := a.limitedGet("/api/v2/openapi.json", "", addr); l.status != http.StatusOK || l.remaining != strconv.Itoa(2-i) {
			t.Errorf("%s, in the /64 of the first: %+v", addr, l)
		}
	}
	if l := a.limitedGet("/api/v2/openapi.json", "", "2001:db8:0:1::1"); l.status != http.StatusOK || l.remaining != "2" {
		t.Errorf("another /64: %+v", l)
	}
}

// Per API key: each key has its own count; the headers name both policies and X-RateLimit-*
// follow the one nearest to exhaustion; a request refused before authentication costs no key.
func TestRateLimitPerAPIKey(t *testing.T) {
	a := limitedAPI(t, func(c *config.Config) {
		c.RateLimitIP = config.RateLimit{Requests: 100, Window: time.Minute}
		c.RateLimitAPIKey = config.RateLimit{Requests: 2, Window: 10 * time.Second}
	})
	k1 := a.key("acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	k2 := a.key("acme", "bo@acme.cl", envelope.TeamRoleAdmin)
	if l := a.limitedGet("/api/v2/envelope", "api_wrong", ""); l.status != http.StatusUnauthorized || l.limit != "100" {
		t.Errorf("unknown key: %+v", l)
	}
	for i := 1; i <= 2; i++ {
		l := a.limitedGet("/api/v2/envelope", k1, "")
		if l.status != http.StatusOK || l.limit != "2" || l.remaining != strconv.Itoa(2-i) {
			t.Fatalf("request %d: %+v", i, l)
		}
		if l.policy != `"ip";q=100;w=60, "api-key";q=2;w=10` ||
			!regexp.MustCompile(`^"ip";r=9\d;t=\d+, "api-key";r=`+strconv.Itoa(2-i)+`;t=\d+$`).MatchString(l.state) {
			t.Errorf("request %d: RateLimit-Policy %q, RateLimit %q", i, l.policy, l.state)
		}
		checkReset(t, l, 10*time.Second, "api-key")
	}
	l := a.limitedGet("/api/v2/envelope", k1, "")
	if l.status != http.StatusTooManyRequests || l.code != string(envelope.CodeTooManyRequests) || l.retry != "10" || l.limit != "2" || l.remaining != "0" {
		t.Errorf("over the key's limit: %+v", l)
	}
	checkReset(t, l, 10*time.Second, "api-key")
	if l := a.limitedGet("/api/v2/envelope", "Bearer "+k1, ""); l.status != http.StatusTooManyRequests {
		t.Errorf("the same key as a bearer token: %+v", l)
	}
	if l := a.limitedGet("/api/v2/envelope", k2, ""); l.status != http.StatusOK || l.remaining != "1" {
		t.Errorf("another key: %+v", l)
	}
}

// Per signing link: the signing API and the signing pages of one token share a count (known or
// not), another token has its own.
func TestRateLimitPerSigningLink(t *testing.T) {
	a := limitedAPI(t, func(c *config.Config) { c.RateLimitLink = config.RateLimit{Requests: 2, Window: time.Minute} })
	token := "tok_" + "aaaaaaaaaaaaaaaaaaaaaaaa"
	if l := a.limitedGet("/api/v2/signing/"+token, "", ""); l.status != http.StatusNotFound || l.remaining != "1" || l.policy != `"signing-link";q=2;w=60` {
		t.Errorf("first: %+v", l)
	}
	if l := a.limitedGet("/sign/"+token+"/pages/item/1", "", ""); l.remaining != "0" || l.status == http.StatusTooManyRequests {
		t.Errorf("second: %+v", l)
	}
	l := a.limitedGet("/api/v2-beta/signing/"+token+"/fea", "", "")
	if l.status != http.StatusTooManyRequests || l.retry != "60" || l.remaining != "0" || !regexp.MustCompile(`^"signing-link";r=0;t=\d+$`).MatchString(l.state) {
		t.Errorf("third: %+v", l)
	}
	checkReset(t, l, time.Minute, "signing-link")
	if l := a.limitedGet("/sign/"+token+"x", "", ""); l.status == http.StatusTooManyRequests || l.remaining != "1" {
		t.Errorf("another token: %+v", l)
	}
}

func TestSigningToken(t *testing.T) {
	for path, want := range map[string]string{
		"/sign/abc": "abc", "/sign/abc/pages/i/1": "abc", "/api/v2/signing/xyz/complete": "xyz", "/api/v2-beta/signing/xyz": "xyz",
		"/api/v2/envelope": "", "/signing/abc": "", "/static/sign/app.js": "", "/auth/claveunica/callback": "",
	} {
		if got := signingToken(path); got != want {
			t.Errorf("signingToken(%q) = %q, want %q", path, got, want)
		}
	}
}

// BenchmarkRateLimit measures what the rate limits add to a request: the same trivial handler
// behind the server's middleware with every limit off, then with the per-address and
// per-signing-link limits on (never reached), for one client and for 10,000 clients.
func BenchmarkRateLimit(b *testing.B) {
	cfg := testConfig(b)
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	build := func(on bool) http.Handler {
		c := cfg
		c.RateLimitIP, c.RateLimitLink, c.RateLimitAPIKey = config.RateLimit{}, config.RateLimit{}, config.RateLimit{}
		if on {
			c.RateLimitIP = config.RateLimit{Requests: 1 << 30, Window: time.Hour}
			c.RateLimitLink = config.RateLimit{Requests: 1 << 30, Window: time.Hour}
		}
		s, err := NewServer(Deps{Config: c, Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()})
		if err != nil {
			b.Fatal(err)
		}
		return s.withClientIP()(s.limitRequests(ok))
	}
	for _, tc := range []struct {
		name    string
		on      bool
		clients int
		path    string
	}{
		{"off", false, 1, "/api/v2/envelope"},
		{"on/one-client", true, 1, "/api/v2/envelope"},
		{"on/10000-clients", true, 10000, "/api/v2/envelope"},
		{"on/signing-link", true, 1, "/sign/tok_aaaaaaaaaaaaaaaaaaaaaaaa"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := build(tc.on)
			reqs := make([]*http.Request, tc.clients)
			for i := range reqs {
				reqs[i] = httptest.NewRequest(http.MethodGet, tc.path, nil)
				reqs[i].RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1234", i>>16&255, i>>8&255, i&255)
			}
			w := httptest.NewRecorder()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clear(w.Header())
				h.ServeHTTP(w, reqs[i%len(reqs)])
			}
		})
	}
}
