package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/webhook"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// receiver is a local endpoint: it answers each request with the next status of its script (200
// once the script runs out) and keeps what it received.
type receiver struct {
	mu     sync.Mutex
	script []int
	got    []received
	srv    *httptest.Server
}

type received struct {
	header http.Header
	body   []byte
	status int
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		status := http.StatusOK
		if len(r.script) > 0 {
			status, r.script = r.script[0], r.script[1:]
		}
		r.got = append(r.got, received{req.Header.Clone(), body, status})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// hookEnv is a worker on the real dev server and PostgreSQL, delivering to local endpoints.
type hookEnv struct {
	store   *persistence.Store
	client  *workflows.Client
	member  envelope.Member
	metrics *activities.WebhookMetrics
	reg     *prometheus.Registry
	sink    string
	dbURL   string
}

func newHookEnv(t *testing.T, ctx context.Context) *hookEnv {
	smtpURL, sink := os.Getenv("SOBRE_TEST_SMTP_URL"), os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if smtpURL == "" || sink == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL and SOBRE_TEST_MAILPIT_URL must be set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	dbURL := pgtest.NewURL(t)
	store, err := persistence.Open(ctx, dbURL, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics, err := activities.NewWebhookMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := temporaltest.Client(t, nil)
	queue := temporaltest.TaskQueue(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w, err := worker.New(c, worker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log,
		Activities: &activities.Activities{Store: store, Log: log, Mail: sender, MailHost: "sobre.test",
			Webhooks: webhook.NewSender(webhook.Policy{AllowPrivate: true}, nil), WebhookMetrics: metrics}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	admin := fmt.Sprintf("admin-%d@sobre.test", time.Now().UnixNano())
	m, err := store.EnsureMember(ctx, "Hooks "+admin, admin, "Ana Admin", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	return &hookEnv{store: store, client: &workflows.Client{Temporal: c, TaskQueue: queue}, member: m, metrics: metrics, reg: reg, sink: sink, dbURL: dbURL}
}

// subscribe makes an enabled webhook of the team to r for every event, and returns it and its secret.
func (e *hookEnv) subscribe(t *testing.T, ctx context.Context, r *receiver) (persistence.Webhook, string) {
	secret := webhook.NewSecret()
	w, err := e.store.CreateWebhook(ctx, e.member, persistence.NewWebhook{URL: r.srv.URL + "/hook", EventTriggers: envelope.WebhookEvents(),
		Enabled: true, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	return w, secret
}

// lifecycle creates a document, sends it and cancels it: three events (DOCUMENT_CREATED,
// DOCUMENT_SENT, DOCUMENT_CANCELLED) in the outbox, in that order, and returns its id.
func (e *hookEnv) lifecycle(t *testing.T, ctx context.Context) string {
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: fmt.Appendf(nil, "%%PDF hooks %d", time.Now().UnixNano()), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	var id string
	err := e.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		id, err = tx.CreateEnvelope(ctx, e.member, in, envelope.Actor{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	ending := envelope.Ending{Kind: envelope.EventCancelled, EnvelopeID: id, At: time.Now()}
	if err := e.store.FinishEnvelope(ctx, ending.Event(), envelope.SystemActor()); err != nil {
		t.Fatal(err)
	}
	return id
}

// deliver subscribes a webhook to a new endpoint answering script, runs an envelope's lifecycle
// (three events) and wakes its delivery; it returns the endpoint, the webhook, its secret and
// the envelope's id.
func (e *hookEnv) deliver(t *testing.T, ctx context.Context, script ...int) (*receiver, persistence.Webhook, string, string) {
	r := newReceiver(t, script...)
	w, secret := e.subscribe(t, ctx, r)
	envelopeID := e.lifecycle(t, ctx)
	if err := e.client.WakeWebhookDelivery(ctx, envelope.WebhookRoute{EnvelopeID: envelopeID, TeamID: e.member.TeamID}); err != nil {
		t.Fatal(err)
	}
	return r, w, secret, envelopeID
}

// calls waits until the webhook's calls all have status want, and returns them, oldest first.
func (e *hookEnv) calls(t *testing.T, ctx context.Context, webhookID string, n int, want string) []persistence.WebhookCall {
	for {
		calls, _, err := e.store.WebhookCalls(ctx, e.member.TeamID, webhookID, "", 1, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) == n && !slices.ContainsFunc(calls, func(c persistence.WebhookCall) bool { return c.Status != want }) {
			slices.Reverse(calls)
			return calls
		}
		if ctx.Err() != nil {
			t.Fatalf("calls %+v; want %d, all %s", calls, n, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An envelope's three events reach the endpoint once each, in the order they happened, signed
// with the webhook's secret (Standard Webhooks), with the event's id as webhook-id; their calls
// end SUCCESS, and the attempts are counted.
func TestWebhookDeliveryInOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := newHookEnv(t, ctx)
	r, w, secret, envelopeID := e.deliver(t, ctx)
	calls := e.calls(t, ctx, w.ID, 3, persistence.CallSuccess)
	got := r.received()
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	want := []envelope.WebhookEvent{envelope.WebhookDocumentCreated, envelope.WebhookDocumentSent, envelope.WebhookDocumentCancelled}
	for i, req := range got {
		if err := webhook.Verify(secret, req.header, req.body, time.Now()); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
		var body struct {
			Event           envelope.WebhookEvent
			Payload         struct{ ID string }
			WebhookEndpoint string
		}
		if err := json.Unmarshal(req.body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Event != want[i] || body.Payload.ID != envelopeID || body.WebhookEndpoint != w.URL {
			t.Errorf("request %d: %s of %s to %s; want %s of %s to %s", i, body.Event, body.Payload.ID, body.WebhookEndpoint, want[i], envelopeID, w.URL)
		}
		if id := req.header.Get("webhook-id"); id != calls[i].EventID || calls[i].Event != want[i] || calls[i].Attempts != 1 {
			t.Errorf("request %d: webhook-id %s, call %+v", i, id, calls[i])
		}
	}
	for _, ev := range want {
		if n := counted(t, e.reg, "sobre_webhook_attempts_total", string(ev), "success"); n != 1 {
			t.Errorf("%s: %v successful attempts counted, want 1", ev, n)
		}
	}
}

// An endpoint that answers 500 is tried again 5 s later, with the same webhook-id; the call
// ends SUCCESS after its second attempt, both attempts recorded.
func TestWebhookDeliveryRetries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := newHookEnv(t, ctx)
	r, w, _, _ := e.deliver(t, ctx, http.StatusInternalServerError)
	calls := e.calls(t, ctx, w.ID, 3, persistence.CallSuccess)
	got := r.received()
	if len(got) != 4 || got[0].header.Get("webhook-id") != got[1].header.Get("webhook-id") || got[0].status != 500 {
		t.Fatalf("%d requests (first %d), want the first twice", len(got), got[0].status)
	}
	first, err := e.store.WebhookCall(ctx, e.member.TeamID, calls[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if h := first.History; len(h) != 2 || *h[0].Outcome != string(envelope.WebhookFailed) || *h[0].ResponseCode != 500 ||
		*h[1].Outcome != string(envelope.WebhookSuccess) || h[1].StartedAt.Sub(h[0].StartedAt) < 5*time.Second {
		t.Errorf("attempts of the first call: %+v", h)
	}
	if n := counted(t, e.reg, "sobre_webhook_attempts_total", string(envelope.WebhookDocumentCreated), "failed"); n != 1 {
		t.Errorf("%v failed attempts counted, want 1", n)
	}
}

// An endpoint that answers 410 has its webhook disabled (GONE) and the team's admin mailed; the
// delivery ends, the other calls left pending.
func TestWebhookDeliveryGoneDisables(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := newHookEnv(t, ctx)
	r, w, _, _ := e.deliver(t, ctx, http.StatusGone)
	// The line ends with the 410; the envelope's workflow idles on (other webhooks may come).
	var got persistence.Webhook
	for {
		var err error
		if got, err = e.store.Webhook(ctx, e.member.TeamID, w.ID); err != nil {
			t.Fatal(err)
		}
		if !got.Enabled {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the webhook is still enabled after a 410")
		case <-time.After(100 * time.Millisecond):
		}
	}
	if got.DisabledReason == nil || *got.DisabledReason != persistence.WebhookGone {
		t.Errorf("webhook after a 410: reason %v", got.DisabledReason)
	}
	if n := len(r.received()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	calls, _, err := e.store.WebhookCalls(ctx, e.member.TeamID, w.ID, persistence.CallPending, 1, 50)
	if err != nil || len(calls) != 3 {
		t.Errorf("%d calls pending (%v), want 3", len(calls), err)
	}
	var found struct{ Messages []struct{ Subject string } }
	for deadline := time.Now().Add(20 * time.Second); len(found.Messages) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		res, err := http.Get(e.sink + "/api/v1/search?query=" + url.QueryEscape("to:"+e.member.UserEmail))
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&found)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found.Messages) != 1 || found.Messages[0].Subject != "Sobre disabled a webhook of your team" {
		t.Errorf("mails to the admin: %+v", found.Messages)
	}
}

// counted is the value of counter name{event, outcome} in reg (0 when it has none).
func counted(t *testing.T, reg *prometheus.Registry, name, event, outcome string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["event"] == event && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
