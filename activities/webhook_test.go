package activities_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/webhook"
)

// An attempt is made once, whoever asks: one that another worker holds is a retryable error
// and sends nothing; one recorded already returns its outcome and sends nothing; a webhook
// disabled or deleted is inactive and sends nothing.
func TestAttemptWebhookCallOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sent atomic.Int32
	store, a, m, hooks := hookSetup(ctx, t, "Acme hooks", 1, func(w http.ResponseWriter, _ *http.Request) { sent.Add(1) })
	w := hooks[0]
	var err error
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: fmt.Appendf(nil, "%%PDF once %d", time.Now().UnixNano()), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	var envelopeID string
	if err := store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		envelopeID, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var next envelope.WebhookNext
	next.CallID, next.Attempts, next.Found, err = store.NextWebhookCall(ctx, w.ID, envelopeID)
	if err != nil || !next.Found || next.Attempts != 0 {
		t.Fatalf("next call %+v, %v", next, err)
	}
	attempt := func(n int) (envelope.WebhookOutcome, error) {
		out, err := a.AttemptWebhookCall(ctx, envelope.WebhookAttemptStep{CallID: next.CallID, Attempt: n})
		return out.Outcome, err
	}

	if _, err := store.ClaimWebhookAttempt(ctx, next.CallID, 1, "another worker", time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err = attempt(1)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != activities.WebhookAttemptHeldType || app.NonRetryable() || sent.Load() != 0 {
		t.Fatalf("attempt held elsewhere: %v, %d sent; want a retryable %s and nothing sent", err, sent.Load(), activities.WebhookAttemptHeldType)
	}
	if err := store.FinishWebhookAttempt(ctx, next.CallID, 1, "another worker", persistence.AttemptResult{Outcome: envelope.WebhookFailed, ResponseCode: 503}); err != nil {
		t.Fatal(err)
	}
	if out, err := attempt(1); out != envelope.WebhookFailed || err != nil || sent.Load() != 0 {
		t.Fatalf("attempt recorded elsewhere: %s, %v, %d sent; want failed and nothing sent", out, err, sent.Load())
	}
	if out, err := attempt(2); out != envelope.WebhookSuccess || err != nil || sent.Load() != 1 {
		t.Fatalf("attempt 2: %s, %v, %d sent; want success, sent once", out, err, sent.Load())
	}
	if out, err := attempt(2); out != envelope.WebhookSuccess || err != nil || sent.Load() != 1 {
		t.Fatalf("attempt 2 again: %s, %v, %d sent; want success, not sent again", out, err, sent.Load())
	}

	if _, err := store.MarkPending(ctx, envelopeID, nil); err != nil { // DOCUMENT_SENT: a second call
		t.Fatal(err)
	}
	off := false
	if _, err := store.UpdateWebhook(ctx, m.TeamID, w.ID, persistence.WebhookUpdate{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if out, err := attempt(3); out != envelope.WebhookDone || err != nil {
		t.Errorf("a delivered call of a disabled webhook: %s, %v; want done (its line reads what is next)", out, err)
	}
	calls, _, err := store.WebhookCalls(ctx, m.TeamID, w.ID, persistence.CallPending, 1, 10)
	if err != nil || len(calls) != 1 {
		t.Fatalf("pending calls %+v, %v; want the second", calls, err)
	}
	if out, err := a.AttemptWebhookCall(ctx, envelope.WebhookAttemptStep{CallID: calls[0].ID, Attempt: 1}); out.Outcome != envelope.WebhookInactive || err != nil || sent.Load() != 1 {
		t.Errorf("a pending call of a disabled webhook: %s, %v, %d sent; want inactive and nothing sent", out.Outcome, err, sent.Load())
	}
	if err := store.DeleteWebhook(ctx, m.TeamID, w.ID); err != nil {
		t.Fatal(err)
	}
	if out, err := attempt(3); out != envelope.WebhookInactive || err != nil || sent.Load() != 1 {
		t.Errorf("a deleted webhook: %s, %v, %d sent; want inactive and nothing sent", out, err, sent.Load())
	}
}

// The sweep makes the first attempt of a call without attempts: calls that succeed at once cost one
// activity between them. A call with attempts already is only found: its next attempt waits its
// delay. A line that retries is skipped.
func TestSweepMakesTheFirstAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sent atomic.Int32
	store, a, m, hooks := hookSetup(ctx, t, "Acme first", 1, func(w http.ResponseWriter, _ *http.Request) {
		if sent.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	w := hooks[0]
	envelopeID := hookedEnvelope(ctx, t, store, m, "first")
	route := envelope.WebhookRoute{EnvelopeID: envelopeID, TeamID: m.TeamID}
	sweep := func(skip ...string) envelope.WebhookNext {
		t.Helper()
		swept, err := a.SweepWebhookCalls(ctx, envelope.WebhookSweep{Route: route, Skip: skip})
		if err != nil || swept.Delivered != 0 {
			t.Fatalf("sweep: %+v, %v", swept, err)
		}
		if len(swept.Stuck) == 0 {
			return envelope.WebhookNext{}
		}
		if len(swept.Stuck) != 1 || !slices.Equal(swept.Webhooks, []string{w.ID}) {
			t.Fatalf("sweep: %+v", swept)
		}
		return swept.Stuck[0]
	}
	next := sweep()
	if next.WebhookID != w.ID || !next.Found || next.Attempts != 1 || next.First != envelope.WebhookFailed || sent.Load() != 1 {
		t.Fatalf("a new call: %+v, %d sent; want its first attempt made, failed", next, sent.Load())
	}
	again := sweep()
	if again.CallID != next.CallID || again.Attempts != 1 || again.First != "" || sent.Load() != 1 {
		t.Fatalf("a call with an attempt: %+v, %d sent; want it found, nothing sent", again, sent.Load())
	}
	if skipped := sweep(w.ID); skipped.Found || sent.Load() != 1 {
		t.Fatalf("a line skipped (it retries): %+v, %d sent; want nothing", skipped, sent.Load())
	}
}

// A line that fails the sweep (its claim held by another worker) does not cut another line's
// attempt short: that one is made, recorded, and not sent again by the retried sweep.
func TestSweepLineErrorSparesTheOtherLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sent atomic.Int32
	store, a, m, made := hookSetup(ctx, t, "Acme lines", 2, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(time.Second)
		sent.Add(1)
	})
	hooks := []string{made[0].ID, made[1].ID}
	envelopeID := hookedEnvelope(ctx, t, store, m, "lines")
	held, _, found, err := store.NextWebhookCall(ctx, hooks[1], envelopeID)
	if err != nil || !found {
		t.Fatalf("next call of the second webhook: %v, %v", found, err)
	}
	if _, err := store.ClaimWebhookAttempt(ctx, held, 1, "another worker", time.Minute); err != nil {
		t.Fatal(err)
	}
	route := envelope.WebhookRoute{EnvelopeID: envelopeID, TeamID: m.TeamID}
	if _, err := a.SweepWebhookCalls(ctx, envelope.WebhookSweep{Route: route}); err == nil {
		t.Fatal("a sweep with a line held elsewhere succeeded")
	}
	done, _, err := store.WebhookCalls(ctx, m.TeamID, hooks[0], persistence.CallSuccess, 1, 10)
	if err != nil || len(done) != 1 || sent.Load() != 1 {
		t.Fatalf("the other line: %d delivered, %d sent, %v; want its call delivered, sent once", len(done), sent.Load(), err)
	}
	if _, err := a.SweepWebhookCalls(ctx, envelope.WebhookSweep{Route: route, Skip: hooks[1:]}); err != nil || sent.Load() != 1 {
		t.Fatalf("the sweep again: %v, %d sent; want the delivered call not sent again", err, sent.Load())
	}
}

// hookedEnvelope creates a draft envelope of member m, named by tag, and so a call to each of
// its team's webhooks.
func hookedEnvelope(ctx context.Context, t *testing.T, store *persistence.Store, m envelope.Member, tag string) string {
	t.Helper()
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: fmt.Appendf(nil, "%%PDF %s %d", tag, time.Now().UnixNano()), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
	}
	var envelopeID string
	if err := store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		envelopeID, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return envelopeID
}

// hookSetup is a store, the activities on it sending to a local endpoint answering with handler,
// and an admin of team whose n webhooks subscribe to every event.
func hookSetup(ctx context.Context, t *testing.T, team string, n int, handler http.HandlerFunc) (*persistence.Store, *activities.Activities, envelope.Member, []persistence.Webhook) {
	t.Helper()
	store, err := persistence.Open(ctx, pgtest.NewURL(t), persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	a := &activities.Activities{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Webhooks: webhook.NewSender(webhook.Policy{AllowPrivate: true}, nil)}
	m, err := store.EnsureMember(ctx, team, "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	hooks := make([]persistence.Webhook, n)
	for i := range hooks {
		if hooks[i], err = store.CreateWebhook(ctx, m, persistence.NewWebhook{URL: srv.URL, EventTriggers: envelope.WebhookEvents(),
			Enabled: true, Secret: webhook.NewSecret()}); err != nil {
			t.Fatal(err)
		}
	}
	return store, a, m, hooks
}
