package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/pdf"
)

// The envelope life cycle as a client sees it, through the public HTTP API: create with a PDF,
// distribute, then an APPROVER and two SIGNERs in turn act through the signing API as their
// browsers would (open the page, fill their fields, complete), until the envelope is COMPLETED
// with its seal and its mails sent. Beside it, in the same run on the same Temporal server, the
// bare Temporal pattern of the same shape: a start, 3 validated Updates and 9 no-op regular
// activities. Both run lifeCycleClients at a time; x-bare is Sobre's rate over the bare one, and
// cpu-ms/op the CPU each process spent per life cycle (bench_cpu_test.go). Run with `make bench`
// (benchtime 200x).

// lifeCycleClients is how many life cycles run at once.
const lifeCycleClients = 30

// lifeCycleParallelism is the RunParallel factor that gives lifeCycleClients goroutines.
func lifeCycleParallelism() int {
	return (lifeCycleClients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)
}

func bareNoop(context.Context) error { return nil }

// bareLifeCycle is the bare pattern: 2 activities on start, one per Update ("act", validated),
// and 4 at the end, all regular.
func bareLifeCycle(ctx workflow.Context) error {
	run := func(ctx workflow.Context, n int) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		for range n {
			if err := workflow.ExecuteActivity(ctx, bareNoop).Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}
	acted := 0
	if err := workflow.SetUpdateHandlerWithOptions(ctx, "act", func(ctx workflow.Context, n int) error {
		if err := run(ctx, 1); err != nil {
			return err
		}
		acted++
		return nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, n int) error {
		if n != acted {
			return fmt.Errorf("not your turn: %d, expected %d", n, acted)
		}
		return nil
	}}); err != nil {
		return err
	}
	if err := run(ctx, 2); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return acted == 3 }); err != nil {
		return err
	}
	if err := run(ctx, 4); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// lifeCycleClient is an HTTP client that keeps as many connections as there are clients, as
// that many browsers and SDKs would.
var lifeCycleClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * lifeCycleClients}}

// call sends a JSON body (none when nil) with key (none when empty) and decodes the JSON answer.
func (a *testAPI) call(b *testing.B, method, path, key string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			b.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	if err != nil {
		b.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return a.send(b, req)
}

// unavailable counts the answers SERVICE_UNAVAILABLE that send retried.
var unavailable atomic.Int64

// send sends req and decodes its JSON answer; a 503 is sent again after its Retry-After, as a
// browser or an SDK would.
func (a *testAPI) send(b *testing.B, req *http.Request) map[string]any {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	var res *http.Response
	var raw []byte
	retried := false
	for {
		req.Body = io.NopCloser(bytes.NewReader(body))
		var err error
		if res, err = lifeCycleClient.Do(req); err != nil {
			b.Fatal(err)
		}
		raw, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable {
			break
		}
		unavailable.Add(1)
		retried = true
		wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
	if retried && res.StatusCode == http.StatusBadRequest && doneBefore(raw) {
		return map[string]any{}
	}
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	out := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			b.Fatalf("%s %s: %v: %s", req.Method, req.URL.Path, err, raw)
		}
	}
	return out
}

// doneBefore reports whether an answer says that what was asked is done already: a retried
// completion whose first try was recorded after its caller gave up.
func doneBefore(raw []byte) bool {
	var e struct{ Code string }
	_ = json.Unmarshal(raw, &e)
	return strings.Contains(e.Code, "COMPLETED") || strings.Contains(e.Code, "ALREADY")
}

// lifeCyclePayload is a SEQUENTIAL envelope: an APPROVER, then two SIGNERs with a signature
// and a name field each.
func lifeCyclePayload(n int64) map[string]any {
	fields := func(y int) []any {
		return []any{
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": y, "width": 10, "height": 5},
			map[string]any{"type": "NAME", "page": 1, "positionX": 30, "positionY": y, "width": 10, "height": 5},
		}
	}
	return map[string]any{"title": fmt.Sprintf("Contrato %d", n), "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": fmt.Sprintf("a%d@bench.test", n), "name": "Ana", "role": "APPROVER", "signingOrder": 1},
			map[string]any{"email": fmt.Sprintf("b%d@bench.test", n), "name": "Berta", "role": "SIGNER", "signingOrder": 2, "fields": fields(10)},
			map[string]any{"email": fmt.Sprintf("c%d@bench.test", n), "name": "Carla", "role": "SIGNER", "signingOrder": 3, "fields": fields(30)},
		}}
}

// lifeCycle runs one envelope's life through the HTTP API and waits for its workflow to end.
func (a *testAPI) lifeCycle(b *testing.B, c client.Client, key string, pdf []byte, n int64) {
	ctx := context.Background()
	body, ct := multipartBody(b, lifeCyclePayload(n), map[string][]byte{"contrato.pdf": pdf})
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/api/v2/envelope/create", body)
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", ct)
	id := a.send(b, req)["id"].(string)
	dist := a.call(b, http.MethodPost, "/api/v2/envelope/distribute", key, map[string]any{"envelopeId": id})
	tokens := map[float64]string{}
	for _, r := range dist["recipients"].([]any) {
		r := r.(map[string]any)
		tokens[r["signingOrder"].(float64)] = r["token"].(string)
	}
	for order := 1.0; order <= 3; order++ {
		base := "/api/v2/signing/" + tokens[order]
		view := a.call(b, http.MethodGet, base, "", nil)
		fields, _ := view["fields"].([]any)
		for _, f := range fields {
			f := f.(map[string]any)
			value := "Firma"
			if f["type"] == "NAME" {
				value = "Nombre"
			}
			a.call(b, http.MethodPost, base+"/fields", "", map[string]any{"fieldId": f["id"], "value": value})
		}
		a.call(b, http.MethodPost, base+"/complete", "", map[string]any{})
	}
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		b.Fatal(err)
	}
	if got := a.call(b, http.MethodGet, "/api/v2/envelope/"+id, key, nil)["status"]; got != string(envelope.StatusCompleted) {
		b.Fatalf("envelope %s ended %v", id, got)
	}
}

// BenchmarkLifeCycleHTTP is the life cycle through the public API against the bare pattern.
func BenchmarkLifeCycleHTTP(b *testing.B) {
	var bareRate float64
	b.Run("bare-temporal", func(b *testing.B) {
		c := temporaltest.Client(b, nil)
		queue := temporaltest.TaskQueue(b)
		w := worker.New(c, queue, worker.Options{})
		w.RegisterWorkflow(bareLifeCycle)
		w.RegisterActivity(bareNoop)
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		var n atomic.Int64
		var t timings
		b.SetParallelism(lifeCycleParallelism())
		cpu := readCPU(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				start := time.Now()
				id := fmt.Sprintf("bare-%s-%d", queue, n.Add(1))
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, bareLifeCycle)
				for i := 0; i < 3 && err == nil; i++ {
					var h client.WorkflowUpdateHandle
					h, err = c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: "act", Args: []any{i},
						WaitForStage: client.WorkflowUpdateStageCompleted})
					if err == nil {
						err = h.Get(ctx, nil)
					}
				}
				if err == nil {
					err = run.Get(ctx, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
				t.add(time.Since(start))
			}
		})
		bareRate = lifeCycleReport(b, &t, 0)
		cpu.report(b)
	})
	b.Run("sobre-http", func(b *testing.B) {
		// As sobre serve, worker and dev do when they start: PDFium is compiled before the
		// first upload, not during the measure.
		if err := pdf.StartEngine(); err != nil {
			b.Fatal(err)
		}
		a := newTestAPIWithWorkflows(b)
		c := temporaltest.Client(b, nil)
		key := a.key("Bench", "bench@example.com", envelope.TeamRoleAdmin)
		pdf := minimalPDF("Contrato de arriendo")
		var n atomic.Int64
		var t timings
		b.SetParallelism(lifeCycleParallelism())
		cpu := readCPU(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				start := time.Now()
				a.lifeCycle(b, c, key, pdf, n.Add(1))
				t.add(time.Since(start))
			}
		})
		lifeCycleReport(b, &t, bareRate)
		cpu.report(b)
		b.ReportMetric(float64(unavailable.Swap(0)), "503s")
	})
}

// lifeCycleReport reports the rate, p50 and p99 of t, and the rate over base when known.
func lifeCycleReport(b *testing.B, t *timings, base float64) float64 {
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "lifecycles/s")
	b.ReportMetric(float64(t.quantile(0.5).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(t.quantile(0.99).Milliseconds()), "p99-ms")
	if base > 0 {
		b.ReportMetric(rate/base, "x-bare")
	}
	return rate
}
