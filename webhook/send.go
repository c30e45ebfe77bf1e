package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// Timeout bounds one attempt, from the first dial to the last byte of the answer read.
const Timeout = 15 * time.Second

// UserAgent is the user-agent header of every attempt.
const UserAgent = "Sobre-Webhooks/1"

// Bounds of an answer: at most 1 MiB (maxAnswerRead) of it is read, the rest never; its first
// MaxAnswerKept bytes are kept with the attempt (Result.Body).
const (
	maxAnswerRead = 1 << 20
	MaxAnswerKept = 1 << 10
)

// Message is one attempt to deliver an event to an endpoint.
type Message struct {
	URL       string
	ID        string    // the event's id (webhook-id), the same on every attempt
	Timestamp time.Time // the attempt's time (webhook-timestamp, in Unix seconds)
	Body      []byte    // the JSON body, sent and signed as it is
	Secrets   []string  // each signs (webhook-signature): the new and the old during a rotation
	// DocumensoSecret, when not empty, is sent in clear as X-Documenso-Secret, for a consumer
	// written for Documenso (documensoCompatible). It proves nothing about the body.
	DocumensoSecret string
}

// Outcome is what an attempt's answer means for its delivery; its values are the metrics'
// outcome labels.
type Outcome string

// The outcomes of an attempt (Outcome of a Result).
const (
	OutcomeSuccess Outcome = "success" // a 2xx answer: delivered
	OutcomeGone    Outcome = "gone"    // a 410 answer: the endpoint asks never to be called again
	OutcomeFailed  Outcome = "failed"  // anything else: 1xx, 3xx (redirects are not followed), other 4xx, 429, 5xx, a timeout, no connection
)

// Result is what became of one attempt.
type Result struct {
	StatusCode int           // the answer's status; 0 when there was none
	Body       string        // the answer's first MaxAnswerKept bytes or fewer: valid UTF-8, cut at a rune boundary, invalid bytes replaced by U+FFFD
	Err        string        // why there was no answer, or why it does not count ("timeout after 15s"); empty otherwise. Never holds a secret
	Duration   time.Duration // from the start of the attempt to the end of the answer read
	Outcome    Outcome
}

// outcomeOf is the outcome of an answer's status (0 when there was none): 2xx is success, 410
// is gone, anything else failed.
func outcomeOf(status int) Outcome {
	switch {
	case status >= 200 && status <= 299:
		return OutcomeSuccess
	case status == http.StatusGone:
		return OutcomeGone
	}
	return OutcomeFailed
}

// Sender makes attempts with its own HTTP client, safe for concurrent use:
//
//   - no proxy from the environment (HTTP_PROXY and HTTPS_PROXY are ignored); only the one
//     given to NewSender;
//   - every address dialled is checked against its Policy when it connects, so a URL whose host
//     resolved to a public address when it was given and to a private one now (DNS rebinding) is
//     refused. With a proxy, the dials go to the proxy and the proxy resolves the endpoint: the
//     proxy is trusted to enforce the egress rules then, and only CheckURL's check holds here;
//   - redirects are not followed: a 3xx is the answer;
//   - TLS 1.2 at least; each attempt bounded by Timeout; at most 1 MiB of an answer read.
type Sender struct {
	policy  Policy
	client  *http.Client
	dialer  *net.Dialer
	timeout time.Duration // Timeout, shorter in tests
}

// NewSender is a Sender under policy p, through proxy when it is not nil.
func NewSender(p Policy, proxy *url.URL) *Sender {
	s := &Sender{policy: p, timeout: Timeout, dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	transport := &http.Transport{
		DialContext:            s.dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if proxy != nil {
		transport.Proxy = http.ProxyURL(proxy)
	} else {
		s.dialer.Control = s.checkDial
	}
	s.client = &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// checkDial refuses to connect to an address the policy does not allow (a net.Dialer's Control:
// address is the IP and port about to be dialled, after resolution).
func (s *Sender) checkDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if !s.policy.Allows(ap.Addr()) {
		return notPublic(ap.Addr())
	}
	return nil
}

// errTimedOut is the cause of an attempt's context ending at the Sender's timeout.
var errTimedOut = errors.New("attempt timed out")

// Send makes one attempt: a POST of m.Body to m.URL with content-type application/json,
// user-agent UserAgent, webhook-id m.ID, webhook-timestamp m.Timestamp's Unix seconds,
// webhook-signature Sign(m.ID, m.Timestamp, m.Body, m.Secrets...), and X-Documenso-Secret when
// m.DocumensoSecret is set. A URL whose form the policy refuses is not sent (its host is not
// resolved again: the dial is checked). An answer whose body is cut by the timeout keeps its
// status.
func (s *Sender) Send(ctx context.Context, m Message) Result {
	start := time.Now()
	r := s.attempt(ctx, m)
	r.Duration = time.Since(start)
	r.Outcome = outcomeOf(r.StatusCode)
	return r
}

func (s *Sender) attempt(ctx context.Context, m Message) Result {
	if _, err := s.policy.checkForm(m.URL); err != nil {
		return Result{Err: "URL " + err.Error()}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.timeout, errTimedOut)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return Result{Err: "URL is not valid"}
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("user-agent", UserAgent)
	req.Header.Set(HeaderID, m.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(m.Timestamp.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(m.ID, m.Timestamp, m.Body, m.Secrets...))
	if m.DocumensoSecret != "" {
		req.Header.Set("X-Documenso-Secret", m.DocumensoSecret)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return Result{Err: s.reason(ctx, err)}
	}
	defer res.Body.Close()
	r := Result{StatusCode: res.StatusCode, Body: readAnswer(res.Body)}
	if res.StatusCode >= 300 && res.StatusCode <= 399 {
		r.Err = "redirects are not followed"
	}
	return r
}

// readAnswer reads at most maxAnswerRead bytes of an answer's body and keeps the first
// MaxAnswerKept (keptAnswer); an error while reading ends it, as the status is known.
func readAnswer(body io.Reader) string {
	head, _ := io.ReadAll(io.LimitReader(body, MaxAnswerKept+3)) // 3 more: a rune crossing the bound
	io.Copy(io.Discard, io.LimitReader(body, maxAnswerRead-int64(len(head))))
	return keptAnswer(head)
}
