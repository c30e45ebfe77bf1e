package faulttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// binary builds the sobre binary once per test run.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func sobreBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sobre-fault-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "sobre")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/sobre-sign/sobre/cmd/sobre").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build sobre: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// nextPort numbers the ports freeAddr tries, from a random start.
var nextPort atomic.Int32

func init() { nextPort.Store(int32(mrand.IntN(portSpan))) }

// Ports handed to the processes a test starts come from below Linux's default ephemeral range
// (32768–60999): a port picked by the kernel and closed again could be given to an outgoing
// connection before the process binds it ("address already in use"); one from this range
// cannot.
const (
	portBase = 20000
	portSpan = 12000
)

// freeAddr is a loopback address with a port no one listens on now, for a process to listen on.
func freeAddr(t *testing.T) string {
	for range 1000 {
		addr := fmt.Sprintf("127.0.0.1:%d", portBase+int(nextPort.Add(1))%portSpan)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ln.Close()
		return addr
	}
	t.Fatal("no free port below the ephemeral range")
	return ""
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func envOr(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatalf("%s is not set", name)
		}
		t.Skipf("%s not set: run `make test`", name)
	}
	return v
}

// system is one Sobre deployment made of separate processes on shared services.
type system struct {
	t       *testing.T
	bin     string
	env     []string
	apiAddr string
	mailpit string
	domain  string
	logDir  string
	mu      sync.Mutex
	procs   map[string]*exec.Cmd
	apis    map[string]string // each API's listener by process name: "api" is apiAddr, "api2"…
	ops     map[string]string // each process's operations listener (health, readiness, metrics)
	key     string
	starts  int
}

func newSystem(t *testing.T) *system {
	return newSystemOn(t, temporaltest.Address(t))
}

// newSystemOn is newSystem with its processes on the Temporal server at temporalAddr and with
// extraEnv (NAME=value) added to their environment.
func newSystemOn(t *testing.T, temporalAddr string, extraEnv ...string) *system {
	return newSystemAt(t, services{temporal: temporalAddr}, extraEnv...)
}

// services are what a system's processes run on; an empty one is the shared test service
// (a fresh database on the shared PostgreSQL, the shared mail sink).
type services struct {
	temporal string // Temporal's address
	db       string // DATABASE_URL
	smtp     string // SMTP_URL
	mailpit  string // the mail sink's HTTP API, where the test reads the mails
}

// newSystemAt is newSystem on svc, with extraEnv (NAME=value) added to its processes' environment.
func newSystemAt(t *testing.T, svc services, extraEnv ...string) *system {
	if svc.temporal == "" {
		svc.temporal = temporaltest.Address(t)
	}
	if svc.db == "" {
		svc.db = pgtest.NewURL(t)
	}
	if svc.smtp == "" {
		svc.smtp, svc.mailpit = envOr(t, "SOBRE_TEST_SMTP_URL"), envOr(t, "SOBRE_TEST_MAILPIT_URL")
	}
	dbURL, temporalAddr := svc.db, svc.temporal
	s := &system{
		t: t, bin: sobreBinary(t), apiAddr: freeAddr(t), mailpit: svc.mailpit,
		domain: "fault-" + random(4) + ".test", logDir: t.TempDir(), procs: map[string]*exec.Cmd{},
		ops: map[string]string{"api": freeAddr(t), "worker": freeAddr(t)},
	}
	s.apis = map[string]string{"api": s.apiAddr}
	// The processes get exactly these services, whatever the caller's environment says.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "DATABASE_URL", "TEMPORAL_ADDRESS", "SMTP_URL", "SOBRE_TASK_QUEUE", "SOBRE_PUBLIC_URL", "SOBRE_HTTP_ADDR", "SOBRE_METRICS_ADDR", "SOBRE_SEAL_DEV_DIR":
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(s.env,
		"DATABASE_URL="+dbURL,
		"TEMPORAL_ADDRESS="+temporalAddr,
		"SMTP_URL="+svc.smtp,
		"SOBRE_TASK_QUEUE="+temporaltest.TaskQueue(t),
		"SOBRE_PUBLIC_URL=http://"+s.apiAddr,
		"SOBRE_LOG_LEVEL=warn",
		"SOBRE_SHUTDOWN_TIMEOUT=2s",
		"SOBRE_SEAL_DEV_DIR="+t.TempDir(), // one development seal, shared by the worker's restarts
	)
	s.env = append(s.env, extraEnv...)
	out, err := s.command("migrate").CombinedOutput()
	if err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	t.Cleanup(s.stopAll)
	return s
}

func (s *system) command(args ...string) *exec.Cmd {
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	return cmd
}

// start runs a long-lived process: "api" (sobre serve), "worker" or "claveunica" (sobre
// claveunica-dev); a second one of a kind is named "api2" or "worker2", and has a listener of its
// own.
func (s *system) start(name string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts++
	if s.ops[name] == "" {
		s.ops[name] = freeAddr(s.t)
	}
	var cmd *exec.Cmd
	switch strings.TrimRight(name, "0123456789") {
	case "api":
		if s.apis[name] == "" {
			s.apis[name] = freeAddr(s.t)
		}
		cmd = s.command("serve")
		cmd.Env = append(cmd.Env, "SOBRE_HTTP_ADDR="+s.apis[name], "SOBRE_METRICS_ADDR="+s.ops[name])
	case "worker":
		cmd = s.command("worker")
		cmd.Env = append(cmd.Env, "SOBRE_METRICS_ADDR="+s.ops[name])
	case "claveunica":
		cmd = s.command("claveunica-dev") // on SOBRE_CLAVEUNICA_DEV_ADDR
	default:
		s.t.Fatalf("no process kind %q", name)
	}
	startLogged(s.t, cmd, s.logDir, name, s.starts)
	s.procs[name] = cmd
	if addr := s.apis[name]; addr != "" {
		s.waitReady(addr)
	}
}

// kill sends SIGKILL: no shutdown, no draining.
func (s *system) kill(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cmd := s.procs[name]; cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		delete(s.procs, name)
	}
}

func (s *system) stopAll() {
	s.mu.Lock()
	var running []*exec.Cmd
	for _, cmd := range s.procs {
		running = append(running, cmd)
	}
	s.mu.Unlock()
	for _, cmd := range running {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	if s.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(s.logDir, "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			s.t.Logf("%s:\n%s", filepath.Base(l), lastLines(string(b), 20))
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (s *system) waitReady(addr string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatal("api did not become healthy")
}

func (s *system) adminKey() string {
	out, err := s.command("admin", "create-key", "--team", "Fault", "--email", "owner@"+s.domain, "--role", "ADMIN").Output()
	if err != nil {
		s.t.Fatalf("create key: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

var httpClient = &http.Client{Timeout: 60 * time.Second}

// send sends one request to url, with body as JSON when not nil and the admin key when auth,
// and reads the answer.
//
// A 429 that asks to wait at most a minute is tried again after its Retry-After (at most
// maxPause a time, for up to rateLimitPatience in all), as a client would: the harness's own
// checks of a full batch come from one address with one key, and meet the API's rate limits.
func (s *system) send(method, url string, body any, auth bool) (*http.Response, []byte, error) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	for waited := time.Duration(0); ; {
		req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
		if auth {
			req.Header.Set("Authorization", s.key)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := httpClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		pause, ok := retryAfter(res.Header)
		if !ok {
			pause = time.Second
		}
		// A longer wait than a rate limit's window (a mail quota, a locked account) is an answer.
		if res.StatusCode != http.StatusTooManyRequests || waited >= rateLimitPatience || pause > time.Minute {
			return res, b, err
		}
		pause = min(max(pause, 200*time.Millisecond), maxPause)
		time.Sleep(pause)
		waited += pause
	}
}

// rateLimitPatience is how long the harness's own calls wait out 429s.
const rateLimitPatience = 3 * time.Minute

// call sends a JSON request and decodes the JSON answer; it retries on a connection error (a
// process being restarted), as a client would.
func (s *system) call(method, path string, body any, auth bool) (int, map[string]any) {
	s.t.Helper()
	for attempt := 0; ; attempt++ {
		res, b, err := s.send(method, "http://"+s.apiAddr+path, body, auth)
		if err != nil {
			if attempt < 200 {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			s.t.Fatalf("%s %s: %v", method, path, err)
		}
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		if out == nil {
			out = map[string]any{"_raw": string(b)}
		}
		return res.StatusCode, out
	}
}

// distribute distributes envelope id and returns the answer, failing the test unless it is a 200.
func (s *system) distribute(id string) map[string]any {
	s.t.Helper()
	status, out := s.call("POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": id}, true)
	if status != 200 {
		s.t.Fatalf("distribute %s: %d %v", id, status, out)
	}
	return out
}

// create makes an envelope with two signers and returns its id.
func (s *system) create(i int) string {
	s.t.Helper()
	return s.createWith(i, testpdf.Minimal("Contrato"))
}

// createWith makes an envelope with two signers over doc and returns its id.
func (s *system) createWith(i int, doc []byte) string {
	s.t.Helper()
	payload := map[string]any{"title": fmt.Sprintf("Fault %d", i), "type": "DOCUMENT", "recipients": []any{
		map[string]any{"email": fmt.Sprintf("a%d@%s", i, s.domain), "name": "A", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5}}},
		map[string]any{"email": fmt.Sprintf("b%d@%s", i, s.domain), "name": "B", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 30, "width": 10, "height": 5}}},
	}}
	return s.createFrom(payload, doc)
}

// signAs fills a recipient's signature and completes, retrying through restarts until the
// answer is definite: success, or "already signed" from an attempt whose answer was lost.
func (s *system) signAs(token string) {
	s.t.Helper()
	for attempt := 0; attempt < 100; attempt++ {
		status, view := s.call("GET", "/api/v2/signing/"+token, nil, false)
		if status != 200 {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		fields, _ := view["fields"].([]any)
		for _, f := range fields {
			fm := f.(map[string]any)
			if fm["inserted"] != true {
				s.call("POST", "/api/v2/signing/"+token+"/fields", map[string]any{"fieldId": fm["id"], "value": "Firma"}, false)
			}
		}
		status, out := s.call("POST", "/api/v2/signing/"+token+"/complete", map[string]any{}, false)
		switch {
		case status == 200:
			return
		case out["code"] == "RECIPIENT_ALREADY_SIGNED" || out["code"] == "ENVELOPE_COMPLETED":
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Errorf("recipient %s… never signed", token[:6])
}

// mails returns the Message-IDs the sink holds for this system's addresses.
func (s *system) mails() []string {
	s.t.Helper()
	q := url.QueryEscape(s.domain)
	res, err := http.Get(s.mailpit + "/api/v1/search?limit=2000&query=" + q)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Messages []struct {
			MessageID string
			To        []struct{ Address string }
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		s.t.Fatal(err)
	}
	var ids []string
	for _, m := range body.Messages {
		ids = append(ids, m.MessageID)
	}
	return ids
}

func (s *system) status(id string) string {
	_, e := s.call("GET", "/api/v2/envelope/"+id, nil, true)
	st, _ := e["status"].(string)
	return st
}

func (s *system) auditCount(id, typ string) int {
	status, page := s.call("GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", nil, true)
	entries, ok := page["data"].([]any)
	if status != 200 || !ok {
		s.t.Fatalf("audit log of %s: %d %v", id, status, page)
	}
	n := 0
	for _, e := range entries {
		if entry, _ := e.(map[string]any); entry["type"] == typ {
			n++
		}
	}
	return n
}

// crashes lets one crash test run at a time: each times its kills against its own load.
var crashes sync.Mutex

// crashTest marks t as a crash test: it runs beside the tests that mostly wait (the Temporal
// outage), and alone among crash tests.
func crashTest(t *testing.T) {
	t.Parallel()
	crashes.Lock()
	t.Cleanup(crashes.Unlock)
}

func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if ok() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The worker is killed with SIGKILL while a batch of envelopes is being signed, then started
// again: every envelope reaches COMPLETED, every signature is recorded once, and no mail is
// sent twice.
func TestWorkerKilledMidBatch(t *testing.T) {
	crashTest(t)
	s := newSystem(t)
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	const n = 12
	ids := make([]string, n)
	tokens := make([][]string, n)
	for i := range n {
		ids[i] = s.create(i)
		status, out := s.call("POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": ids[i]}, true)
		if status != 200 {
			t.Fatalf("distribute: %d %v", status, out)
		}
		for _, r := range out["recipients"].([]any) {
			tokens[i] = append(tokens[i], r.(map[string]any)["token"].(string))
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for _, tok := range tokens[i] {
				s.signAs(tok)
			}
		}(i)
	}
	time.Sleep(300 * time.Millisecond)
	s.kill("worker")
	time.Sleep(time.Second)
	s.start("worker")
	wg.Wait()
	for _, id := range ids {
		waitFor(t, id+" COMPLETED", 60*time.Second, func() bool { return s.status(id) == "COMPLETED" })
		if c := s.auditCount(id, "DOCUMENT_RECIPIENT_COMPLETED"); c != 2 {
			t.Errorf("%s: %d DOCUMENT_RECIPIENT_COMPLETED entries, want 2", id, c)
		}
		if c := s.auditCount(id, "DOCUMENT_COMPLETED"); c != 1 {
			t.Errorf("%s: %d DOCUMENT_COMPLETED entries, want 1", id, c)
		}
		if out, err := s.command("audit", "verify", id).CombinedOutput(); err != nil {
			t.Errorf("audit chain of %s: %v %s", id, err, out)
		}
	}
	// 2 requests + 2 "waiting for others"/"signed" notices + 3 completion mails per envelope, at
	// least; what matters is that none repeats.
	var ids2 []string
	waitFor(t, "completion mails", 30*time.Second, func() bool {
		ids2 = s.mails()
		return len(ids2) >= n*5
	})
	seen := map[string]bool{}
	for _, m := range ids2 {
		if seen[m] {
			t.Errorf("mail %s delivered twice", m)
		}
		seen[m] = true
	}
	t.Logf("%d envelopes completed across a worker crash; %d mails, none repeated", n, len(ids2))
}

// The worker is killed with SIGKILL while it seals a 300-page envelope (the last signature starts
// the seal, about a second of work here), then started again: the seal is retried, the envelope
// ends COMPLETED with its sealed PDF, and each recipient gets one completion mail.
func TestWorkerKilledWhileSealing(t *testing.T) {
	crashTest(t)
	s := newSystem(t)
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	id := s.createWith(100, testpdf.Pages(300, "Contrato largo"))
	out := s.distribute(id)
	var tokens []string
	for _, r := range out["recipients"].([]any) {
		tokens = append(tokens, r.(map[string]any)["token"].(string))
	}
	s.signAs(tokens[0])
	done := make(chan struct{})
	go func() { s.signAs(tokens[1]); close(done) }()
	time.Sleep(600 * time.Millisecond)
	before := s.status(id)
	s.kill("worker")
	if before != "PENDING" {
		t.Logf("the envelope was already %s when the worker was killed", before)
	}
	time.Sleep(time.Second)
	s.start("worker")
	<-done
	waitFor(t, id+" COMPLETED", 90*time.Second, func() bool { return s.status(id) == "COMPLETED" })
	sealed := s.sealedPDF(id)
	if !bytes.HasPrefix(sealed, []byte("%PDF")) || !bytes.Contains(sealed, []byte("/ByteRange")) {
		t.Fatalf("signed download: %d bytes, not a signed PDF", len(sealed))
	}
	if c := s.auditCount(id, "DOCUMENT_COMPLETED"); c != 1 {
		t.Errorf("%d DOCUMENT_COMPLETED entries, want 1", c)
	}
	for _, who := range []string{"a100@", "b100@"} {
		addr := who + s.domain
		waitFor(t, "completion mail to "+addr, 30*time.Second, func() bool { return s.completionMails(addr) >= 1 })
		if n := s.completionMails(addr); n != 1 {
			t.Errorf("%s got %d completion mails, want 1", addr, n)
		}
	}
}

// completionMails counts the completion mails (with the sealed PDF) the sink holds for address.
func (s *system) completionMails(address string) int {
	s.t.Helper()
	res, err := http.Get(s.mailpit + "/api/v1/search?limit=200&query=" + url.QueryEscape("to:"+address))
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Messages []struct {
			Subject     string
			Attachments int
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		s.t.Fatal(err)
	}
	n := 0
	for _, m := range body.Messages {
		if strings.HasPrefix(m.Subject, "Completed") && m.Attachments == 1 {
			n++
		}
	}
	return n
}

// The API is killed with SIGKILL after it started an envelope's workflow and before it answered
// (no worker is running, so the workflow cannot have answered yet). The envelope still goes
// PENDING once a worker runs, and a second distribute is harmless.
func TestAPIKilledBetweenStartAndReply(t *testing.T) {
	crashTest(t)
	s := newSystem(t)
	s.start("api")
	s.key = s.adminKey()
	id := s.create(0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest("POST", "http://"+s.apiAddr+"/api/v2/envelope/distribute", strings.NewReader(`{"envelopeId":"`+id+`"}`))
		req.Header.Set("Authorization", s.key)
		req.Header.Set("Content-Type", "application/json")
		if res, err := httpClient.Do(req); err == nil {
			res.Body.Close()
			t.Errorf("distribute answered %d although no worker runs and the API was killed", res.StatusCode)
		}
	}()
	// The workflow exists (started by the API) before the API dies.
	c := temporaltest.Client(t, nil)
	waitFor(t, "the workflow to start", 20*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := c.DescribeWorkflowExecution(ctx, id, "")
		return err == nil
	})
	s.kill("api")
	<-done
	if st := s.statusFromDB(id); st != "DRAFT" {
		t.Fatalf("status %s before any worker ran, want DRAFT", st)
	}
	s.start("worker")
	s.start("api")
	waitFor(t, "PENDING", 30*time.Second, func() bool { return s.status(id) == "PENDING" })
	s.distribute(id) // again, through the restarted API
	if c := s.auditCount(id, "DOCUMENT_SENT"); c != 1 {
		t.Errorf("%d DOCUMENT_SENT entries, want 1", c)
	}
	waitFor(t, "two signing requests", 20*time.Second, func() bool { return len(s.mails()) >= 2 })
	time.Sleep(500 * time.Millisecond)
	if m := s.mails(); len(m) != 2 {
		t.Errorf("%d mails, want exactly the 2 signing requests: %v", len(m), m)
	}
}

func (s *system) statusFromDB(id string) string {
	// The API is down: read the status straight from PostgreSQL.
	for _, kv := range s.env {
		if strings.HasPrefix(kv, "DATABASE_URL=") {
			return queryStatus(s.t, strings.TrimPrefix(kv, "DATABASE_URL="), id)
		}
	}
	return ""
}
