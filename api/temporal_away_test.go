package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// closedPort returns a loopback address nothing listens on: a Temporal that is down.
func closedPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentPort returns a loopback address that takes connections and never answers: a Temporal
// that hangs.
func silentPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		for {
			conn, err := ln.Accept()
			if err != nil {
				break
			}
			conns = append(conns, conn)
		}
		for _, c := range conns {
			c.Close()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return ln.Addr().String()
}

// awayFromTemporal returns an API on a's database whose Temporal client points at addr (a
// closedPort or a silentPort), calls bounded by callTimeout, wired as `sobre serve` wires it:
// ready with PostgreSQL alone, Temporal reported.
func (a *testAPI) awayFromTemporal(addr string, callTimeout time.Duration) *testAPI {
	a.t.Helper()
	c, err := worker.Dial(context.Background(), worker.ClientOptions{Address: addr, Namespace: "default",
		Log: slog.New(slog.DiscardHandler), Keys: temporaltest.Keys(), Lazy: true})
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(c.Close)
	server, err := NewServer(Deps{Config: testConfig(a.t), Log: slog.New(slog.DiscardHandler), Store: a.store,
		Registry:  prometheus.NewRegistry(),
		Workflows: &workflows.Client{Temporal: c, TaskQueue: temporaltest.TaskQueue(a.t), CallTimeout: callTimeout},
		Checks:    []Check{{Name: "postgresql", Run: a.store.Ping}},
		Reported:  []Check{{Name: "temporal", Run: func(ctx context.Context) error { return worker.CheckHealth(ctx, c) }}}})
	if err != nil {
		a.t.Fatal(err)
	}
	srv := httptest.NewServer(checkedHandler(a.t, server.Handler()))
	a.t.Cleanup(srv.Close)
	o := *a
	o.srv, o.server = srv, server
	return &o
}

// With Temporal away, drafts, reads and signing pages keep working and the API stays ready;
// distributing answers 503 SERVICE_UNAVAILABLE with Retry-After within the call deadline, and
// succeeds once Temporal is there.
func TestTemporalAwayKeepsTheAPIServing(t *testing.T) {
	live := newTestAPIWithWorkflows(t)
	const callTimeout = 3 * time.Second
	away := live.awayFromTemporal(closedPort(t), callTimeout)
	key := live.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	_, rec, _, _ := live.accountEnvelope(key, "tomas@sobre.test", "SIGNER", []string{}, []string{})

	id := away.draft(key)
	if status, body := away.do("GET", "/api/v2/envelope/"+id, key, ""); status != http.StatusOK || body["status"] != "DRAFT" {
		t.Errorf("read: %d %v", status, body)
	}
	jar, _ := cookiejar.New(nil)
	if status, _, page := get(t, &http.Client{Jar: jar}, away.srv.URL+"/sign/"+rec.Token); status != http.StatusOK {
		t.Errorf("signing page: %d %s", status, page)
	}

	elapsed := away.distributeUnavailable(key, id)
	t.Logf("distribute with Temporal away answered 503 in %.2fs (call deadline %s)", elapsed.Seconds(), callTimeout)
	if elapsed > callTimeout+30*time.Second {
		t.Errorf("distribute took %s: its deadline %s did not cut it off", elapsed, callTimeout)
	}
	if status, body := away.do("GET", "/api/v2/envelope/"+id, key, ""); status != http.StatusOK || body["status"] != "DRAFT" {
		t.Errorf("read after the refused distribute: %d %v, want a DRAFT", status, body)
	}

	ops := away.ops()
	if status, body := ops.do("GET", "/readyz", "", ""); status != http.StatusOK {
		t.Errorf("readyz with Temporal away: %d %v", status, body)
	}
	reported := ""
	for deadline := time.Now().Add(10 * time.Second); reported != "unavailable" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, body := away.do("GET", "/healthz", "", "")
		reported, _ = body["temporal"].(string)
	}
	if reported != "unavailable" {
		t.Errorf("healthz reports temporal %q, want unavailable", reported)
	}
	if _, body := ops.do("GET", "/metrics", "", ""); !strings.Contains(body["_raw"].(string), "\nsobre_temporal_up 0\n") {
		t.Errorf("metrics lack sobre_temporal_up 0")
	}

	if status, body := live.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		t.Errorf("distribute with Temporal there: %d %v", status, body)
	}
}

// draft creates, through the API, a draft with one signer and returns its id.
func (a *testAPI) draft(key string) string {
	a.t.Helper()
	status, created := a.createRaw(key, map[string]any{"title": "Borrador", "type": "DOCUMENT",
		"recipients": []any{map[string]any{"email": "rosa@sobre.test", "name": "Rosa", "role": "SIGNER", "fields": []any{
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}}}}},
		map[string][]byte{"a.pdf": minimalPDF(fmt.Sprint("draft ", time.Now().UnixNano()))})
	if status != http.StatusOK {
		a.t.Fatalf("create a draft: %d %v", status, created)
	}
	return created["id"].(string)
}

// distributeUnavailable distributes id, wants 503 SERVICE_UNAVAILABLE with Retry-After 5, and
// returns how long the answer took.
func (a *testAPI) distributeUnavailable(key, id string) time.Duration {
	a.t.Helper()
	started := time.Now()
	status, header, body := a.post("/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id))
	elapsed := time.Since(started)
	if status != http.StatusServiceUnavailable || body["code"] != string(envelope.CodeUnavailable) || header.Get("Retry-After") != "5" {
		a.t.Errorf("distribute: %d Retry-After %q %v, want 503 SERVICE_UNAVAILABLE with Retry-After 5", status, header.Get("Retry-After"), body)
	}
	return elapsed
}

// post sends a JSON POST with key and returns the status, the headers and the decoded body.
func (a *testAPI) post(path, key, body string) (int, http.Header, map[string]any) {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		a.t.Fatalf("POST %s: body is not JSON: %v", path, err)
	}
	return res.StatusCode, res.Header, out
}

// A Temporal that takes the connection and never answers is cut off by the call deadline: 503
// with Retry-After once it has passed, not after the SDK's minute.
func TestTemporalHangingHitsTheCallDeadline(t *testing.T) {
	a := newTestAPI(t)
	const callTimeout = 2 * time.Second
	hung := a.awayFromTemporal(silentPort(t), callTimeout)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	id := hung.draft(key)
	elapsed := hung.distributeUnavailable(key, id)
	t.Logf("distribute with Temporal hanging answered 503 in %.2fs (call deadline %s)", elapsed.Seconds(), callTimeout)
	if elapsed < callTimeout || elapsed > callTimeout+30*time.Second {
		t.Errorf("distribute took %s: the hanging call was not ended by its deadline %s", elapsed, callTimeout)
	}
}
