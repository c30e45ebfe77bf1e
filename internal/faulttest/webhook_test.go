package faulttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/temporaltest"
)

// slowReceiver is a webhook endpoint that takes delay to answer each request and keeps, for each
// webhook-id, the event and envelope it carried and how often it came.
type slowReceiver struct {
	delay time.Duration
	mu    sync.Mutex
	seen  map[string]int       // webhook-id → requests
	event map[string][2]string // webhook-id → envelope id, event
	order map[string][]string  // envelope id → events in the order they first arrived
	total int
}

func (rx *slowReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var in struct {
		Event   string `json:"event"`
		Payload struct {
			ID string `json:"id"`
		} `json:"payload"`
	}
	_ = json.Unmarshal(body, &in)
	time.Sleep(rx.delay)
	id := r.Header.Get("webhook-id")
	rx.mu.Lock()
	rx.total++
	if rx.seen[id] == 0 {
		rx.order[in.Payload.ID] = append(rx.order[in.Payload.ID], in.Event)
	}
	rx.seen[id]++
	rx.event[id] = [2]string{in.Payload.ID, in.Event}
	rx.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rx *slowReceiver) counts() (distinct, total int) {
	rx.mu.Lock()
	defer rx.mu.Unlock()
	return len(rx.seen), rx.total
}

// The worker is killed with SIGKILL while 200 webhook events are being delivered to a slow
// endpoint, then started again: every event arrives; an event that arrives twice (an attempt
// cut short by the kill, made again) carries the same webhook-id; no envelope's event is sent
// under two ids; and each envelope's events arrive in the order they happened.
func TestWorkerKilledWhileDeliveringWebhooks(t *testing.T) {
	crashTest(t)
	s := newSystemOn(t, temporaltest.Address(t), "SOBRE_WEBHOOK_ALLOW_PRIVATE=true")
	rx := &slowReceiver{delay: 50 * time.Millisecond, seen: map[string]int{}, event: map[string][2]string{}, order: map[string][]string{}}
	srv := httptest.NewServer(rx)
	t.Cleanup(srv.Close)
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	status, out := s.call("POST", "/api/v2/webhook/create", map[string]any{"webhookUrl": srv.URL + "/hook",
		"eventTriggers": []string{"DOCUMENT_CREATED", "DOCUMENT_SENT"}}, true)
	if status != 200 {
		t.Fatalf("create the webhook: %d %v", status, out)
	}
	const envelopes = 100 // two events each
	ids := make([]string, envelopes)
	for i := range envelopes {
		ids[i] = s.create(i)
		if status, out := s.call("POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": ids[i]}, true); status != 200 {
			t.Fatalf("distribute: %d %v", status, out)
		}
		if i == envelopes/4 {
			s.kill("worker")
			time.Sleep(500 * time.Millisecond)
			s.start("worker")
		}
	}
	waitFor(t, "a quarter of the events", 60*time.Second, func() bool { d, _ := rx.counts(); return d >= 2*envelopes/4 })
	s.kill("worker")
	time.Sleep(time.Second)
	s.start("worker")
	waitFor(t, "all 200 events", 180*time.Second, func() bool { d, _ := rx.counts(); return d >= 2*envelopes })
	time.Sleep(time.Second)
	distinct, total := rx.counts()
	rx.mu.Lock()
	defer rx.mu.Unlock()
	if distinct != 2*envelopes {
		t.Errorf("%d distinct events, want %d", distinct, 2*envelopes)
	}
	byEvent := map[[2]string]string{}
	for id, ev := range rx.event {
		if other, ok := byEvent[ev]; ok {
			t.Errorf("%s of %s arrived under two ids: %s and %s", ev[1], ev[0], other, id)
		}
		byEvent[ev] = id
	}
	for _, id := range ids {
		if got := rx.order[id]; len(got) != 2 || got[0] != "DOCUMENT_CREATED" || got[1] != "DOCUMENT_SENT" {
			t.Errorf("%s: events arrived as %v", id, got)
		}
	}
	t.Logf("%d events delivered across two worker kills; %d requests (%d repeated with the same webhook-id)", distinct, total, total-distinct)
}
