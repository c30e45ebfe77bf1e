package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
	"github.com/sobre-sign/sobre/webhook"
)

// callStatuses are the statuses a webhook call is in, by which GET /webhook/{id}/calls filters.
func callStatuses() []string {
	return []string{persistence.CallPending, persistence.CallSuccess, persistence.CallFailed}
}

// findWebhookCalls answers GET /webhook/{id}/calls: a page of the webhook's calls, newest first,
// each with its attempts; ?status keeps only the calls in that status.
func (s *Server) findWebhookCalls(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	var status string
	writeWebhookPage(s, w, r, func(q query) { status = enum(q, "status", callStatuses()) },
		func(page, perPage int) ([]persistence.WebhookCall, int, error) {
			return s.store.WebhookCalls(r.Context(), m.TeamID, chi.URLParam(r, "id"), status, page, perPage)
		}, newWebhookCallView)
}

// resendWebhookCall answers POST /webhook/call/resend {callId}: a new PENDING call of the same
// event (the same webhook-id), which the worker delivers.
func (s *Server) resendWebhookCall(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	var in struct {
		CallID *string `json:"callId"`
	}
	if !s.decodeWebhookBody(w, r, &in, func(p *envelope.Problems) { checkRequiredID(p, "callId", in.CallID) }) {
		return
	}
	c, err := s.store.ResendWebhookCall(r.Context(), m.TeamID, *in.CallID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookCallView(c))
}

// testWebhook answers POST /webhook/test {id, event}: it sends the webhook, now and once, a
// sample of event (sampleEnvelope), signed as every delivery is, and answers the call it made;
// 200 even when the endpoint failed, the call says how. A disabled webhook can be tested; a
// test is never retried, and an answer 410 does not disable the webhook.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	var in struct {
		ID    *string                `json:"id"`
		Event *envelope.WebhookEvent `json:"event"`
	}
	if !s.decodeWebhookBody(w, r, &in, func(p *envelope.Problems) {
		checkRequiredID(p, "id", in.ID)
		switch {
		case in.Event == nil:
			p.Add("event", "is required: one of %v", envelope.WebhookEvents())
		case !in.Event.Valid():
			p.Add("event", "must be one of %v, got %q", envelope.WebhookEvents(), *in.Event)
		}
	}) {
		return
	}
	// The attempt, once started, is made and recorded even if the caller goes away.
	ctx := context.WithoutCancel(r.Context())
	callID, err := s.sendTest(ctx, m, *in.ID, *in.Event)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.store.WebhookCall(ctx, m.TeamID, callID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookCallView(c))
}

// sendTest records a test call of event to webhook id of m's team, makes its one attempt and
// records what it got; the call is FAILED unless the attempt succeeded.
func (s *Server) sendTest(ctx context.Context, m envelope.Member, id string, event envelope.WebhookEvent) (callID string, err error) {
	now := time.Now()
	payload, err := json.Marshal(view.NewEnvelope(sampleEnvelope(event, m, now), true))
	if err != nil {
		return "", fmt.Errorf("encode a sample of %s: %w", event, err)
	}
	owner := "api-test-" + rand.Text()
	d, err := s.store.StartTestCall(ctx, m.TeamID, id, event, payload, owner)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(view.NewWebhookBody(event, payload, d.At, d.URL))
	if err != nil {
		return "", s.abandonTest(ctx, d.CallID, fmt.Errorf("encode the body of a test of webhook %s: %w", id, err))
	}
	secrets, documensoSecret, err := s.store.WebhookSecrets(ctx, id, now)
	if err != nil {
		return "", s.abandonTest(ctx, d.CallID, err)
	}
	res := s.webhooks.Sender.Send(ctx, webhook.Message{URL: d.URL, ID: d.EventID, Timestamp: time.Now(), Body: body,
		Secrets: secrets, DocumensoSecret: documensoSecret})
	err = s.store.FinishWebhookAttempt(ctx, d.CallID, 1, owner, persistence.AttemptResult{Outcome: envelope.WebhookOutcome(res.Outcome),
		ResponseCode: res.StatusCode, ResponseBody: res.Body, Error: res.Err, Duration: res.Duration})
	if err != nil {
		return "", err
	}
	if res.Outcome != webhook.OutcomeSuccess {
		if _, err := s.store.FailWebhookCall(ctx, d.CallID); err != nil {
			return "", err
		}
	}
	return d.CallID, nil
}

// abandonTest closes test call callID, which was not attempted because of cause, and returns
// cause.
func (s *Server) abandonTest(ctx context.Context, callID string, cause error) error {
	if _, err := s.store.FailWebhookCall(ctx, callID); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}
