package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"golang.org/x/sync/errgroup"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
	"github.com/sobre-sign/sobre/webhook"
)

// webhookLease is how long an attempt's claim on a webhook call holds: past the attempt's
// StartToClose (30 s), so that a retry of the activity while the first still runs finds it held,
// and short enough that a worker killed mid-attempt delays the call by under a minute.
const webhookLease = 45 * time.Second

// WebhookAttemptHeldType is the type of the error AttemptWebhookCall ends with when another
// worker holds the attempt's claim: retried, it finds the attempt recorded or the claim free.
const WebhookAttemptHeldType = "WEBHOOK_ATTEMPT_HELD"

// webhookBatchFor is how long a sweep goes on delivering calls: no line starts an attempt past
// it from the sweep's start, however many lines wait for their turn (webhookLines at a time), so
// that the sweep, one attempt (the sender's 15 s) included, ends well within its 30 s.
const webhookBatchFor = 5 * time.Second

// webhookLines is how many of an envelope's webhooks one sweep delivers to at once.
const webhookLines = 8

// SweepWebhookCalls delivers, for each enabled webhook with calls pending for the sweep's
// envelope (but those it skips), that line's calls in order as far as they go at once
// (nextWebhookCall), the lines side by side, and says where each stopped (envelope.WebhookSwept).
// A line that fails (a claim another worker holds, the store away) fails the sweep, which is
// retried, once the other lines are done: their attempts are never cut short, what they delivered
// is recorded, and is not sent again.
func (a *Activities) SweepWebhookCalls(ctx context.Context, s envelope.WebhookSweep) (envelope.WebhookSwept, error) {
	var swept envelope.WebhookSwept
	ids, err := a.Store.PendingWebhooks(ctx, s.Route.TeamID, s.Route.EnvelopeID)
	if err != nil {
		return swept, domainError(err)
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return slices.Contains(s.Skip, id) })
	nexts := make([]envelope.WebhookNext, len(ids))
	var g errgroup.Group // not WithContext: a line's error must not cut another's attempt
	g.SetLimit(webhookLines)
	start := time.Now()
	for i, id := range ids {
		g.Go(func() (err error) {
			nexts[i], err = a.nextWebhookCall(ctx, envelope.WebhookRoute{WebhookID: id, EnvelopeID: s.Route.EnvelopeID, TeamID: s.Route.TeamID}, start)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return swept, err
	}
	swept.Webhooks = ids
	for _, next := range nexts {
		swept.Delivered += next.Delivered
		swept.More = swept.More || next.More
		if next.Found {
			swept.Stuck = append(swept.Stuck, next)
		}
	}
	return swept, nil
}

// nextWebhookCall delivers line r's pending calls in order while their first attempt succeeds
// (AttemptWebhookCall), and returns where it stopped (envelope.WebhookNext): a call that needs
// its schedule, none left, or the sweep's time (webhookBatchFor from start) up.
func (a *Activities) nextWebhookCall(ctx context.Context, r envelope.WebhookRoute, start time.Time) (envelope.WebhookNext, error) {
	next := envelope.WebhookNext{WebhookID: r.WebhookID}
	for {
		id, attempts, found, err := a.Store.NextWebhookCall(ctx, r.WebhookID, r.EnvelopeID)
		if err != nil {
			return next, domainError(err)
		}
		next.CallID, next.Attempts, next.Found, next.First = id, attempts, found, ""
		if !found || attempts > 0 {
			return next, nil
		}
		if time.Since(start) > webhookBatchFor {
			next.CallID, next.Found, next.More = "", false, true
			return next, nil
		}
		out, err := a.AttemptWebhookCall(ctx, envelope.WebhookAttemptStep{CallID: id, Attempt: 1})
		if err != nil {
			return next, err
		}
		if out.Outcome != envelope.WebhookSuccess && out.Outcome != envelope.WebhookDone {
			next.First, next.Attempts = out.Outcome, 1
			return next, nil
		}
		next.Delivered++
	}
}

// AttemptWebhookCall makes attempt step.Attempt of a call once, and records it:
//   - it claims the attempt in PostgreSQL first (owner: this activity attempt, webhookLease):
//     a claim another worker holds is an error of type WebhookAttemptHeldType, retried; an
//     attempt recorded already is not made again, its outcome is returned;
//   - a webhook disabled or deleted (or a call gone with it) is envelope.WebhookInactive;
//   - otherwise it signs the body with the webhook's secrets and POSTs it (webhook.Sender), and
//     records the answer; a claim that passed to another worker meanwhile records nothing and
//     is envelope.WebhookDone.
//
// Neither the secrets nor the body are logged or returned.
func (a *Activities) AttemptWebhookCall(ctx context.Context, step envelope.WebhookAttemptStep) (envelope.WebhookAttemptOutcome, error) {
	owner, _ := claimant(ctx)
	d, err := a.Store.ClaimWebhookAttempt(ctx, step.CallID, step.Attempt, owner, webhookLease)
	switch {
	case errors.Is(err, persistence.ErrAttemptHeld):
		return envelope.WebhookAttemptOutcome{}, temporal.NewApplicationError(err.Error(), WebhookAttemptHeldType)
	case isNotFound(err):
		return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookInactive}, nil
	case err != nil:
		return envelope.WebhookAttemptOutcome{}, domainError(err)
	case d.Done != "":
		return envelope.WebhookAttemptOutcome{Outcome: d.Done}, nil
	case !d.Enabled:
		return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookInactive}, nil
	}
	now := time.Now()
	secrets, documensoSecret, err := a.Store.WebhookSecrets(ctx, d.WebhookID, now)
	if isNotFound(err) {
		return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookInactive}, nil
	}
	if err != nil {
		return envelope.WebhookAttemptOutcome{}, domainError(err)
	}
	body, err := json.Marshal(view.NewWebhookBody(d.Event, d.Payload, d.At, d.URL))
	if err != nil {
		return envelope.WebhookAttemptOutcome{}, fmt.Errorf("webhook call %s: encode its body: %w", step.CallID, err)
	}
	res := a.Webhooks.Send(ctx, webhook.Message{URL: d.URL, ID: d.EventID, Timestamp: now, Body: body,
		Secrets: secrets, DocumensoSecret: documensoSecret})
	err = a.Store.FinishWebhookAttempt(ctx, step.CallID, step.Attempt, owner, persistence.AttemptResult{Outcome: envelope.WebhookOutcome(res.Outcome),
		ResponseCode: res.StatusCode, ResponseBody: res.Body, Error: res.Err, Duration: res.Duration})
	if errors.Is(err, persistence.ErrAttemptLost) {
		a.Log.WarnContext(ctx, "webhook attempt's claim passed to another worker; not recorded", "call", step.CallID, "attempt", step.Attempt)
		return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookDone}, nil
	}
	if err != nil {
		return envelope.WebhookAttemptOutcome{}, domainError(err)
	}
	a.WebhookMetrics.attempt(d.Event, res.Outcome, res.Duration)
	a.Log.InfoContext(ctx, "webhook attempt", "call", step.CallID, "webhook", d.WebhookID, "event", d.Event, "attempt", step.Attempt,
		"outcome", res.Outcome, "status", res.StatusCode, "err", res.Err, "duration", res.Duration)
	return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookOutcome(res.Outcome)}, nil
}

// FailWebhookCall marks a call FAILED after its last attempt failed, and counts it
// (sobre_webhook_calls_failed_total) unless it was not pending any more.
func (a *Activities) FailWebhookCall(ctx context.Context, f envelope.WebhookCallFailure) error {
	failed, err := a.Store.FailWebhookCall(ctx, f.CallID)
	if err != nil || !failed {
		return domainError(err)
	}
	call, err := a.Store.WebhookCall(ctx, f.TeamID, f.CallID)
	if err != nil {
		return domainError(err)
	}
	a.WebhookMetrics.failed(call.Event)
	a.Log.WarnContext(ctx, "webhook call failed after its last attempt", "call", f.CallID, "webhook", call.WebhookID, "event", call.Event)
	return nil
}

// PurgeWebhookCalls deletes the webhook calls created before before, with their attempts
// (persistence.Store.PurgeWebhookCalls), and returns how many.
func (a *Activities) PurgeWebhookCalls(ctx context.Context, before time.Time) (int64, error) {
	n, err := a.Store.PurgeWebhookCalls(ctx, before)
	if err != nil {
		return 0, err
	}
	a.Log.InfoContext(ctx, "purged webhook calls", "calls", n, "before", before)
	return n, nil
}

// isNotFound reports whether err is the store's NOT_FOUND.
func isNotFound(err error) bool {
	var de *envelope.Error
	return errors.As(err, &de) && de.Code == envelope.CodeNotFound
}
