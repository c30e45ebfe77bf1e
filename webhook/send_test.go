package webhook

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// received is what a test endpoint was sent.
type received struct {
	header http.Header
	body   []byte
}

// endpoint is a test server answering every request with answer, and keeping what it was sent.
type endpoint struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
	conns    atomic.Int64 // connections accepted
}

func newEndpoint(t *testing.T, tlsServer bool, answer http.HandlerFunc) *endpoint {
	e := &endpoint{}
	e.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.requests = append(e.requests, received{r.Header.Clone(), body})
		e.mu.Unlock()
		answer(w, r)
	}))
	e.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshakes refused on purpose
	e.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			e.conns.Add(1)
		}
	}
	if tlsServer {
		e.StartTLS()
	} else {
		e.Start()
	}
	t.Cleanup(e.Close)
	return e
}

func (e *endpoint) received() []received {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]received(nil), e.requests...)
}

func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func testMessage(u string) Message {
	return Message{URL: u, ID: "msg_2Tq9", Timestamp: time.Unix(1_790_000_000, 0),
		Body: []byte(`{"event":"DOCUMENT_SIGNED"}`), Secrets: []string{specSecret}}
}

// TestSendAnswers: each kind of answer of an endpoint makes one outcome; the request is signed
// and carries Sobre's headers.
func TestSendAnswers(t *testing.T) {
	tests := []struct {
		name       string
		answer     http.HandlerFunc
		wantStatus int
		wantBody   string
		wantErr    string
		want       Outcome
	}{
		{"200", status(200, `{"ok":true}`), 200, `{"ok":true}`, "", OutcomeSuccess},
		{"204", status(204, ""), 204, "", "", OutcomeSuccess},
		{"410", status(410, "gone for good"), 410, "gone for good", "", OutcomeGone},
		{"302 not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, 302, "", "redirects are not followed", OutcomeFailed},
		{"400", status(400, "bad"), 400, "bad", "", OutcomeFailed},
		{"429", status(429, "slow down"), 429, "slow down", "", OutcomeFailed},
		{"500", status(500, "oops"), 500, "oops", "", OutcomeFailed},
		{"503", status(503, ""), 503, "", "", OutcomeFailed},
		{"a long answer kept to 1 KiB", status(200, strings.Repeat("é", 600)), 200, strings.Repeat("é", 512), "", OutcomeSuccess},
		{"connection cut before an answer", func(w http.ResponseWriter, _ *http.Request) {
			c, _, _ := http.NewResponseController(w).Hijack()
			c.Close()
		}, 0, "", "connection closed before an answer", OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEndpoint(t, false, tt.answer)
			s := NewSender(Policy{AllowPrivate: true}, nil)
			m := testMessage(e.URL + "/hook?team=7")
			m.DocumensoSecret = "a-plain-text-secret-of-some-length"
			r := s.Send(context.Background(), m)
			if r.StatusCode != tt.wantStatus || r.Body != tt.wantBody || r.Err != tt.wantErr || r.Outcome != tt.want {
				t.Errorf("Send = {%d %.40q %q %s}, want {%d %.40q %q %s}", r.StatusCode, r.Body, r.Err, r.Outcome,
					tt.wantStatus, tt.wantBody, tt.wantErr, tt.want)
			}
			if r.Duration <= 0 {
				t.Errorf("Duration %s", r.Duration)
			}
			got := e.received()
			if len(got) != 1 {
				t.Fatalf("the endpoint got %d requests, want 1 (redirects not followed)", len(got))
			}
			h := got[0].header
			for name, want := range map[string]string{
				"Content-Type": "application/json", "User-Agent": "Sobre-Webhooks/1", "Webhook-Id": "msg_2Tq9",
				"Webhook-Timestamp": "1790000000", "X-Documenso-Secret": "a-plain-text-secret-of-some-length",
			} {
				if h.Get(name) != want {
					t.Errorf("%s: %q, want %q", name, h.Get(name), want)
				}
			}
			if err := Verify(specSecret, h, got[0].body, m.Timestamp); err != nil {
				t.Errorf("the request does not verify: %v", err)
			}
		})
	}
}

func TestSendRotationSignsWithBoth(t *testing.T) {
	e := newEndpoint(t, false, status(204, ""))
	old := NewSecret()
	m := testMessage(e.URL)
	m.Secrets = []string{NewSecret(), old}
	if r := NewSender(Policy{AllowPrivate: true}, nil).Send(context.Background(), m); r.Outcome != OutcomeSuccess {
		t.Fatalf("Send: %+v", r)
	}
	got := e.received()[0]
	for _, secret := range m.Secrets {
		if err := Verify(secret, got.header, got.body, m.Timestamp); err != nil {
			t.Errorf("does not verify with one of the secrets: %v", err)
		}
	}
	if got.header.Get("X-Documenso-Secret") != "" || strings.Count(got.header.Get(HeaderSignature), "v1,") != 2 {
		t.Errorf("headers %v", got.header)
	}
}

// TestSendRefusesWhatThePolicyRefuses: production's policy refuses a private address when it
// dials, even for a URL CheckURL never saw, and a name that resolves to one (DNS rebinding).
func TestSendRefusesWhatThePolicyRefuses(t *testing.T) {
	e := newEndpoint(t, true, status(200, "should not be reached"))
	port := e.Listener.Addr().(*net.TCPAddr).Port
	z := &zone{names: map[string][]netip.Addr{}}
	s := NewSender(Policy{}, nil)
	s.dialer.Resolver = testResolver(t, z)
	tests := []struct {
		name    string
		url     string
		zone    []netip.Addr // what rebind.example resolves to at dial time
		wantErr string
	}{
		{"an IP literal", "https://127.0.0.1:" + strconv.Itoa(port) + "/", nil, "address 127.0.0.1 is not public"},
		{"an IPv4-mapped literal", "https://[::ffff:127.0.0.1]:" + strconv.Itoa(port) + "/", nil, "address 127.0.0.1 is not public"},
		{"a name rebound to loopback", "https://rebind.example:" + strconv.Itoa(port) + "/",
			[]netip.Addr{netip.MustParseAddr("127.0.0.1")}, "address 127.0.0.1 is not public"},
		{"a name rebound to the metadata service", "https://rebind.example:" + strconv.Itoa(port) + "/",
			[]netip.Addr{netip.MustParseAddr("169.254.169.254")}, "address 169.254.169.254 is not public"},
		{"a name that no longer resolves", "https://gone.example/", nil, "host gone.example does not resolve"},
		{"http", "http://127.0.0.1:" + strconv.Itoa(port) + "/", nil, "URL must use https"},
		{"a user in the URL", "https://user:pw@127.0.0.1:" + strconv.Itoa(port) + "/", nil, "URL must not carry a user name or password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z.Set("rebind.example", tt.zone...)
			r := s.Send(context.Background(), testMessage(tt.url))
			if r.Err != tt.wantErr || r.Outcome != OutcomeFailed || r.StatusCode != 0 {
				t.Errorf("Send = %+v, want Err %q", r, tt.wantErr)
			}
		})
	}
	if n := e.conns.Load(); n != 0 {
		t.Errorf("the endpoint accepted %d connections, want none", n)
	}
}

func TestSendConnectionFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tlsEndpoint := newEndpoint(t, true, status(200, ""))
	plainEndpoint := newEndpoint(t, false, status(200, ""))
	tests := []struct {
		name, url, wantErr string
	}{
		{"nothing listening", closed, "connection refused"},
		{"a self-signed certificate", tlsEndpoint.URL, "TLS: x509: certificate signed by unknown authority"},
		{"https to a plain HTTP server", strings.Replace(plainEndpoint.URL, "http:", "https:", 1), "http: server gave HTTP response to HTTPS client"},
	}
	s := NewSender(Policy{AllowPrivate: true}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.Send(context.Background(), testMessage(tt.url))
			if r.Err != tt.wantErr || r.Outcome != OutcomeFailed {
				t.Errorf("Send = %+v, want Err %q", r, tt.wantErr)
			}
			if strings.Contains(r.Err, specSecret) {
				t.Errorf("Err %q holds the secret", r.Err)
			}
		})
	}
}

// TestSendTimeout: an endpoint that does not answer within the Sender's timeout fails the
// attempt with a timeout, and the caller's own cancellation reads differently.
func TestSendTimeout(t *testing.T) {
	release := make(chan struct{})
	e := newEndpoint(t, false, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	s := NewSender(Policy{AllowPrivate: true}, nil)
	s.timeout = 200 * time.Millisecond
	r := s.Send(context.Background(), testMessage(e.URL))
	if r.Err != "timeout after 200ms" || r.Outcome != OutcomeFailed || r.StatusCode != 0 || r.Duration < s.timeout {
		t.Errorf("Send = %+v, want a timeout after 200ms", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.timeout = time.Minute
	go func() {
		for len(e.received()) < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if r := s.Send(ctx, testMessage(e.URL)); r.Err != "cancelled: context canceled" || r.Outcome != OutcomeFailed {
		t.Errorf("Send cancelled = %+v, want cancelled", r)
	}
}

// TestSendReadsAtMost1MiB: an endpoint that answers without end is read to 1 MiB, then the
// connection is closed; the endpoint's writes fail long before the end.
func TestSendReadsAtMost1MiB(t *testing.T) {
	const endless = 1 << 30
	var written atomic.Int64
	writeFailed := make(chan error, 1)
	e := newEndpoint(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
		for written.Load() < endless {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				writeFailed <- err
				return
			}
		}
		writeFailed <- nil
	})
	s := NewSender(Policy{AllowPrivate: true}, nil)
	s.timeout = time.Minute
	r := s.Send(context.Background(), testMessage(e.URL))
	if r.Outcome != OutcomeSuccess || r.Body != strings.Repeat("0123456789abcdef", 64) {
		t.Errorf("Send = {%d %.40q %q %s}, want 200 and the first 1 KiB", r.StatusCode, r.Body, r.Err, r.Outcome)
	}
	if err := <-writeFailed; err == nil {
		t.Fatalf("the endpoint wrote all of %d bytes", written.Load())
	}
	// What the endpoint wrote: what the Sender read (1 MiB), and what the kernel's buffers of
	// both ends held when it closed the connection (a few MiB on loopback).
	t.Logf("the endpoint wrote %d KiB", written.Load()>>10)
	if n := written.Load(); n > 64<<20 {
		t.Errorf("the endpoint wrote %d MiB before the connection closed", n>>20)
	}
}

// TestSendProxies: HTTP_PROXY and HTTPS_PROXY are not used; a proxy given to
// NewSender is, and its own (loopback) address is not checked against the policy.
func TestSendProxies(t *testing.T) {
	var proxied []string
	var mu sync.Mutex
	proxy := newEndpoint(t, false, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.Method+" "+r.RequestURI)
		mu.Unlock()
		if r.Method == http.MethodConnect {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	e := newEndpoint(t, false, status(200, "direct"))
	port := e.Listener.Addr().(*net.TCPAddr).Port
	z := &zone{names: map[string][]netip.Addr{"hook.example": {netip.MustParseAddr("127.0.0.1")}}}
	s := NewSender(Policy{AllowPrivate: true}, nil)
	s.dialer.Resolver = testResolver(t, z)
	if r := s.Send(context.Background(), testMessage("http://hook.example:"+strconv.Itoa(port)+"/x")); r.Body != "direct" {
		t.Errorf("without a proxy: %+v, want the endpoint's own answer", r)
	}

	proxyURL, _ := url.Parse(proxy.URL)
	viaProxy := NewSender(Policy{AllowPrivate: true}, proxyURL)
	if r := viaProxy.Send(context.Background(), testMessage("http://hook.example/x")); r.StatusCode != http.StatusAccepted {
		t.Errorf("through the proxy: %+v, want the proxy's 202", r)
	}
	production := NewSender(Policy{}, proxyURL)
	if r := production.Send(context.Background(), testMessage("https://hook.example/x")); r.StatusCode != 0 || r.Outcome != OutcomeFailed {
		t.Errorf("through the proxy, refused CONNECT: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"POST http://hook.example/x", "CONNECT hook.example:443"}
	if strings.Join(proxied, "|") != strings.Join(want, "|") {
		t.Errorf("the proxy got %q, want %q", proxied, want)
	}
}
