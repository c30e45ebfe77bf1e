package faulttest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// temporalOutage is how long the Temporal server stays down.
const temporalOutage = 60 * time.Second

// temporalCallTimeout is the processes' SOBRE_TEMPORAL_CALL_TIMEOUT: the longest a call to a
// Temporal that is away may take before the API answers 503.
const temporalCallTimeout = 3 * time.Second

// The Temporal server is killed with SIGKILL for temporalOutage while an envelope is out for
// signature. Meanwhile drafts, reads, the signing page, field filling and the API's readiness keep
// working; distribute and complete answer 503 SERVICE_UNAVAILABLE with Retry-After within the call
// deadline; /healthz says Temporal is unavailable; the worker keeps running. Once the server is
// back on the same port with the same state, the API and the worker reconnect by themselves: the
// refused draft distributes, every signer completes, both envelopes end COMPLETED and no mail is
// delivered twice. A batch of envelopes (faultBatch) is being signed meanwhile: its signers see
// 503 SERVICE_UNAVAILABLE while the server is away, and the batch ends as every fault test's does
// (batch.check).
//
// It mostly waits, so it runs beside the crash tests (crashTest).
func TestTemporalServerKilledAndRestarted(t *testing.T) {
	t.Parallel()
	dev := newDevServer(t)
	s := newSystemAt(t, ownMail(t, services{temporal: dev.addr}), "SOBRE_TEMPORAL_CALL_TIMEOUT="+temporalCallTimeout.String())
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()

	first := s.create(1)
	out := s.distribute(first)
	tokens := recipientTokens(out)
	waitFor(t, "the two signing requests", 30*time.Second, func() bool { return len(s.mails()) >= 2 })
	b := newBatch(s, faultBatch(t), nil)
	b.start()
	b.waitSigned(b.recipients() / 4)

	b.outage(true)
	dev.kill()
	down := time.Now()

	// What needs PostgreSQL alone keeps working.
	second := s.create(2)
	if status, e := s.call("GET", "/api/v2/envelope/"+first, nil, true); status != 200 || e["status"] != "PENDING" {
		t.Errorf("read during the outage: %d %v", status, e)
	}
	if status, _ := s.call("GET", "/api/v2/envelope?perPage=10", nil, true); status != 200 {
		t.Errorf("list during the outage: %d", status)
	}
	if status, _, _ := s.request("GET", "http://"+s.ops["api"]+"/readyz", nil, false); status != 200 {
		t.Errorf("the API's readiness during the outage: %d", status)
	}
	if status, _, body := s.request("GET", "http://"+s.apiAddr+"/sign/"+tokens[0], nil, false); status != 200 {
		t.Errorf("signing page during the outage: %d %s", status, body)
	}
	s.fillFields(tokens[0])

	// What needs Temporal answers 503 within the call deadline.
	distributeRefused := s.expectAway("POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": second}, true)
	completeRefused := s.expectAway("POST", "/api/v2/signing/"+tokens[0]+"/complete", map[string]any{}, false)
	t.Logf("with Temporal killed: distribute answered 503 in %.2fs, complete in %.2fs (call deadline %s)",
		distributeRefused.Seconds(), completeRefused.Seconds(), temporalCallTimeout)
	if st := s.status(second); st != "DRAFT" {
		t.Errorf("the refused draft is %s, want DRAFT", st)
	}
	waitFor(t, "healthz to report temporal unavailable", 30*time.Second, func() bool {
		return s.healthz("api")["temporal"] == "unavailable"
	})
	// Once the check found it away, the API refuses at once instead of waiting out the deadline.
	refusedAtOnce := s.expectAway("POST", "/api/v2/signing/"+tokens[0]+"/complete", map[string]any{}, false)
	t.Logf("with the check reporting Temporal away: complete answered 503 in %.3fs", refusedAtOnce.Seconds())
	if refusedAtOnce >= temporalCallTimeout {
		t.Errorf("a call once Temporal was found away took %s, the whole call deadline", refusedAtOnce)
	}
	if s.healthz("worker")["status"] != "ok" {
		t.Errorf("the worker stopped answering during the outage")
	}
	if status, _, _ := s.request("GET", "http://"+s.ops["worker"]+"/readyz", nil, false); status != 503 {
		t.Errorf("the worker's readiness during the outage: %d, want 503 (it needs Temporal)", status)
	}

	time.Sleep(time.Until(down.Add(temporalOutage)))
	if s.healthz("worker")["status"] != "ok" {
		t.Errorf("the worker stopped answering by the end of the outage")
	}
	dev.start()
	b.outage(false)
	back := time.Now()
	t.Logf("Temporal killed for %.1fs; started again, it answered in %.1fs", back.Sub(down).Seconds()-dev.startTook.Seconds(), dev.startTook.Seconds())

	// The API's client and the worker reconnect by themselves: the API reports Temporal back,
	// the worker is ready again, and the refused draft distributes (its workflow runs on the
	// worker).
	var secondTokens []string
	var apiBack, workerReady, distributed time.Duration
	waitFor(t, "the API and the worker to recover", 3*time.Minute, func() bool {
		if apiBack == 0 && s.healthz("api")["temporal"] == "ok" {
			apiBack = time.Since(back)
		}
		if workerReady == 0 {
			if status, _, _ := s.request("GET", "http://"+s.ops["worker"]+"/readyz", nil, false); status == 200 {
				workerReady = time.Since(back)
			}
		}
		if distributed == 0 {
			status, out := s.call("POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": second}, true)
			switch status {
			case 200:
				distributed, secondTokens = time.Since(back), recipientTokens(out)
			case 503:
			default:
				t.Errorf("distribute after the restart: %d %v", status, out)
			}
		}
		return apiBack > 0 && workerReady > 0 && distributed > 0
	})
	t.Logf("after the restart: the API reported temporal ok in %.2fs, the worker was ready in %.2fs, the refused draft distributed in %.2fs",
		apiBack.Seconds(), workerReady.Seconds(), distributed.Seconds())

	for _, tok := range append(tokens, secondTokens...) {
		s.signAs(tok)
	}
	for _, id := range []string{first, second} {
		waitFor(t, id+" COMPLETED", 90*time.Second, func() bool { return s.status(id) == "COMPLETED" })
		if c := s.auditCount(id, "DOCUMENT_RECIPIENT_COMPLETED"); c != 2 {
			t.Errorf("%s: %d DOCUMENT_RECIPIENT_COMPLETED entries, want 2", id, c)
		}
		if c := s.auditCount(id, "DOCUMENT_COMPLETED"); c != 1 {
			t.Errorf("%s: %d DOCUMENT_COMPLETED entries, want 1", id, c)
		}
	}
	var mails []string
	waitFor(t, "completion mails", 30*time.Second, func() bool {
		mails = s.mails()
		return len(mails) >= 2*5
	})
	time.Sleep(time.Second)
	mails = s.mails()
	seen := map[string]bool{}
	for _, m := range mails {
		if seen[m] {
			t.Errorf("mail %s delivered twice", m)
		}
		seen[m] = true
	}
	t.Logf("both envelopes completed across the outage; %d mails, none repeated; total %.1fs after the restart",
		len(mails), time.Since(back).Seconds())
	b.wait()
	b.check(3 * time.Minute)
}

// recipientTokens reads the signing tokens of a distributed envelope.
func recipientTokens(distributed map[string]any) []string {
	var tokens []string
	for _, r := range distributed["recipients"].([]any) {
		tokens = append(tokens, r.(map[string]any)["token"].(string))
	}
	return tokens
}

// request sends one request to url and returns its status, headers and body; a connection
// error fails the test.
func (s *system) request(method, url string, body any, auth bool) (int, http.Header, []byte) {
	s.t.Helper()
	res, b, err := s.send(method, url, body, auth)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, url, err)
	}
	return res.StatusCode, res.Header, b
}

// expectAway sends a request that needs Temporal while it is away: it must answer 503
// SERVICE_UNAVAILABLE with Retry-After, within the call deadline (bounded generously: the bound
// catches a missing deadline, not a slow machine). It returns how long the answer took.
func (s *system) expectAway(method, path string, body any, auth bool) time.Duration {
	s.t.Helper()
	start := time.Now()
	status, header, raw := s.request(method, "http://"+s.apiAddr+path, body, auth)
	took := time.Since(start)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if status != 503 || out["code"] != "SERVICE_UNAVAILABLE" || header.Get("Retry-After") == "" {
		s.t.Errorf("%s %s with Temporal away: %d Retry-After %q %s, want 503 SERVICE_UNAVAILABLE with Retry-After",
			method, path, status, header.Get("Retry-After"), raw)
	}
	if took > temporalCallTimeout+30*time.Second {
		s.t.Errorf("%s %s took %s: the call deadline %s did not cut it off", method, path, took, temporalCallTimeout)
	}
	return took
}

// fillFields fills every field of a recipient that is not filled yet.
func (s *system) fillFields(token string) {
	s.t.Helper()
	status, view := s.call("GET", "/api/v2/signing/"+token, nil, false)
	if status != 200 {
		s.t.Fatalf("signing view: %d %v", status, view)
	}
	for _, f := range view["fields"].([]any) {
		fm := f.(map[string]any)
		if fm["inserted"] == true {
			continue
		}
		if status, out := s.call("POST", "/api/v2/signing/"+token+"/fields", map[string]any{"fieldId": fm["id"], "value": "Firma"}, false); status != 200 {
			s.t.Errorf("fill a field: %d %v", status, out)
		}
	}
}

// healthz reads a process's /healthz on its operations listener; nil when it does not answer.
func (s *system) healthz(name string) map[string]any {
	res, err := http.Get("http://" + s.ops[name] + "/healthz")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return out
}
