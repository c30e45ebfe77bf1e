package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// testAPI is a Sobre API on a fresh database, served by httptest.
type testAPI struct {
	t      testing.TB
	dbURL  string
	srv    *httptest.Server
	store  *persistence.Store
	keys   *auth.Keys
	server *Server
	fea    *testFEA               // the certificates the ceremony of newTestAPIWithWorkflows takes
	acts   *activities.Activities // the worker's, with newTestAPIWithWorkflows
}

func testConfig(t testing.TB) config.Config {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicURL = "http://sobre.test"
	return cfg
}

func newTestAPI(t testing.TB, checks ...Check) *testAPI {
	t.Helper()
	return newTestAPIWith(t, func(d *Deps) {
		if checks != nil {
			d.Checks = checks
		}
	})
}

// newTestAPIWith is newTestAPI with dependencies changed by configure (a ceremony service, say).
func newTestAPIWith(t testing.TB, configure func(d *Deps)) *testAPI {
	t.Helper()
	dbURL := pgtest.NewURL(t)
	store, err := persistence.Open(context.Background(), dbURL, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	deps := Deps{
		Config:   testConfig(t),
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store:    store,
		Registry: prometheus.NewRegistry(),
		Checks:   []Check{{Name: "postgresql", Run: store.Ping}},
	}
	configure(&deps)
	server, err := NewServer(deps)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(checkedHandler(t, server.Handler()))
	t.Cleanup(srv.Close)
	return &testAPI{t: t, dbURL: dbURL, srv: srv, store: store, keys: &auth.Keys{Store: store}, server: server}
}

// key issues an API key for email in team with role.
func (a *testAPI) key(team, email string, role envelope.TeamRole) string {
	a.t.Helper()
	k, _, err := a.keys.Issue(context.Background(), team, email, "", role, "", nil)
	if err != nil {
		a.t.Fatal(err)
	}
	return k
}

// do sends a request and returns the status and the decoded JSON body.
func (a *testAPI) do(method, path, key string, body string) (int, map[string]any) {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out); err != nil {
			a.t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, raw)
		}
	} else {
		out = map[string]any{"_raw": string(raw)}
	}
	return res.StatusCode, out
}

// wantError checks an error response: status, code and a non-empty message.
func wantError(t *testing.T, status int, body map[string]any, wantStatus int, wantCode envelope.Code) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status = %d, want %d; body %v", status, wantStatus, body)
	}
	if body["code"] != string(wantCode) {
		t.Errorf("code = %v, want %s; body %v", body["code"], wantCode, body)
	}
	if msg, _ := body["message"].(string); msg == "" {
		t.Errorf("error body has no message: %v", body)
	}
}

func TestAuthenticationPaths(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleMember)
	revoked := a.key("Acme", "bo@acme.cl", envelope.TeamRoleMember)
	got, err := a.keys.Resolve(context.Background(), revoked)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.RevokeAPIKey(context.Background(), got.Member.TeamID, got.ID); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, header string
		want         int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"unknown key", "api_" + strings.Repeat("z", 32), http.StatusUnauthorized},
		{"garbage", "Basic dXNlcjpwYXNz", http.StatusUnauthorized},
		{"revoked key", revoked, http.StatusUnauthorized},
		{"raw key", key, http.StatusOK},
		{"bearer key", "Bearer " + key, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, base := range []string{"/api/v2", "/api/v2-beta"} {
				status, body := a.do("GET", base+"/envelope", tt.header, "")
				if tt.want != http.StatusOK {
					wantError(t, status, body, tt.want, envelope.CodeUnauthorized)
					continue
				}
				if status != http.StatusOK {
					t.Fatalf("%s: status %d, body %v", base, status, body)
				}
				for _, k := range []string{"data", "count", "currentPage", "perPage", "totalPages"} {
					if _, ok := body[k]; !ok {
						t.Errorf("%s: list lacks %q: %v", base, k, body)
					}
				}
				if body["perPage"] != float64(10) || body["currentPage"] != float64(1) || body["count"] != float64(0) {
					t.Errorf("%s: empty list defaults wrong: %v", base, body)
				}
			}
		})
	}
}

func TestRoutingErrorsHaveTheErrorBody(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleMember)
	status, body := a.do("GET", "/no/such/route", "", "")
	wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
	status, body = a.do("GET", "/api/v2/no-such-endpoint", key, "")
	wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
	status, body = a.do("DELETE", "/api/v2/envelope", key, "")
	wantError(t, status, body, http.StatusMethodNotAllowed, envelope.CodeMethodNotAllowed)
	status, body = a.do("GET", "/api/v2/envelope?perPage=101&page=0&status=SIGNED&orderByDirection=up", key, "")
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
	issues, _ := body["issues"].([]any)
	paths := map[string]bool{}
	for _, i := range issues {
		paths[i.(map[string]any)["path"].(string)] = true
	}
	for _, p := range []string{"perPage", "page", "status", "orderByDirection"} {
		if !paths[p] {
			t.Errorf("issues do not name %s: %v", p, issues)
		}
	}
}

// Liveness is on both listeners; readiness and metrics only on the operations listener
// (SOBRE_METRICS_ADDR), and readiness names a failing check without its error.
func TestHealthReadinessAndMetrics(t *testing.T) {
	failing := Check{Name: "temporal", Run: func(context.Context) error {
		return errors.New("dial tcp 10.1.2.3:7233: connect: connection refused (user sobre_admin)")
	}}
	a := newTestAPI(t)
	ops := a.ops()
	for _, h := range []*testAPI{a, ops} {
		if status, body := h.do("GET", "/healthz", "", ""); status != 200 || body["status"] != "ok" {
			t.Errorf("healthz: %d %v", status, body)
		}
	}
	for _, path := range []string{"/readyz", "/metrics"} {
		if status, body := a.do("GET", path, "", ""); status != http.StatusNotFound {
			t.Errorf("%s on the API listener: %d %v, want 404", path, status, body)
		}
	}
	if status, body := ops.do("GET", "/readyz", "", ""); status != 200 || body["checks"].(map[string]any)["postgresql"] != "ok" {
		t.Errorf("readyz: %d %v", status, body)
	}
	var logged bytes.Buffer
	down := newTestAPIWith(t, func(d *Deps) {
		d.Checks = []Check{{Name: "postgresql", Run: func(ctx context.Context) error { return nil }}, failing}
		d.Log = slog.New(slog.NewTextHandler(&logged, nil))
	}).ops()
	status, body := down.do("GET", "/readyz", "", "")
	if status != http.StatusServiceUnavailable || body["checks"].(map[string]any)["temporal"] != "failing" || body["checks"].(map[string]any)["postgresql"] != "ok" {
		t.Errorf("readyz with temporal down: %d %v", status, body)
	}
	if raw, _ := json.Marshal(body); strings.Contains(string(raw), "10.1.2.3") || strings.Contains(string(raw), "refused") {
		t.Errorf("readyz answers the error text: %s", raw)
	}
	if !strings.Contains(logged.String(), "connection refused") || !strings.Contains(logged.String(), "check=temporal") {
		t.Errorf("the failing check's error is not logged: %s", logged.String())
	}

	a.do("GET", "/api/v2/envelope", "", "")
	_, body = ops.do("GET", "/metrics", "", "")
	text := body["_raw"].(string)
	for _, want := range []string{
		`sobre_http_request_duration_seconds_count{method="GET",route="/api/v2/envelope",status="401"} 1`,
		`sobre_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 2`,
		"sobre_http_requests_in_flight",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// ops returns a testAPI whose requests go to the same server's operations listener.
func (a *testAPI) ops() *testAPI {
	a.t.Helper()
	srv := httptest.NewServer(a.server.OpsHandler())
	a.t.Cleanup(srv.Close)
	o := *a
	o.srv = srv
	return &o
}

func TestPanicIsA500WithTheErrorBody(t *testing.T) {
	a := newTestAPI(t)
	h := a.server.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	var body map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	wantError(t, rec.Code, body, http.StatusInternalServerError, envelope.CodeInternal)
	if strings.Contains(rec.Body.String(), "boom") {
		t.Error("the panic value leaked to the caller")
	}
}

func TestBodyLimit(t *testing.T) {
	a := newTestAPI(t)
	h := a.server.limitBodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any
		if err := decodeJSON(r, &v); err != nil {
			a.server.writeError(w, r, err)
			return
		}
		writeJSON(w, 200, v)
	}))
	big := `{"title":"` + strings.Repeat("x", int(a.server.cfg.MaxBodyBytes)) + `"}`
	for name, req := range map[string]*http.Request{
		"declared length": httptest.NewRequest("POST", "/", strings.NewReader(big)),
		"chunked": func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader(big))
			r.ContentLength = -1
			return r
		}(),
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		t.Run(name, func(t *testing.T) {
			wantError(t, rec.Code, body, http.StatusRequestEntityTooLarge, envelope.CodePayloadTooLarge)
		})
	}
	for name, in := range map[string]string{"malformed": `{"a":`, "empty": ``, "two values": `{} {}`, "not json": `hello`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/", strings.NewReader(in)))
		var body map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		t.Run(name, func(t *testing.T) { wantError(t, rec.Code, body, http.StatusBadRequest, envelope.CodeInvalidBody) })
	}
}
