package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// routes are the routes one dispatch (every call dispatched before now counts as stale) hands to
// the delivery workflows.
func (f *webhookFixture) routes() []envelope.WebhookRoute {
	f.t.Helper()
	var routes []envelope.WebhookRoute
	if _, err := f.store.DispatchWebhookCalls(context.Background(), 100, 1, 0, time.Minute, func(r envelope.WebhookRoute) error {
		routes = append(routes, r)
		return nil
	}); err != nil {
		f.t.Fatal(err)
	}
	return routes
}

// A test is one attempt made by its caller: a test call left pending (the server stopped before
// it recorded the attempt, or between recording it and closing the call) is never handed to a
// delivery workflow, not when it looks stale, not when the webhook is enabled again, and not by
// the workflow of a resent test (which shares its route: the webhook and no envelope). A resent
// test is delivered as any call.
func TestWebhookTestCallIsNeverDelivered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentSent)
	left, err := f.store.StartTestCall(ctx, f.admin.TeamID, f.hookID, envelope.WebhookDocumentSent, []byte(`{}`), "api-test-gone")
	if err != nil {
		t.Fatal(err)
	}
	if routes := f.routes(); len(routes) != 0 {
		t.Fatalf("a test call left pending is dispatched: %v", routes)
	}
	off, on := false, true
	for _, enabled := range []*bool{&off, &on} {
		if _, err := f.store.UpdateWebhook(ctx, f.admin.TeamID, f.hookID, persistence.WebhookUpdate{Enabled: enabled}); err != nil {
			t.Fatal(err)
		}
	}
	if routes := f.routes(); len(routes) != 0 {
		t.Fatalf("a test call left pending is dispatched once its webhook is enabled again: %v", routes)
	}

	// A test whose attempt failed, between its record and its close.
	failing, err := f.store.StartTestCall(ctx, f.admin.TeamID, f.hookID, envelope.WebhookDocumentSent, []byte(`{}`), "api-test-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.FinishWebhookAttempt(ctx, failing.CallID, 1, "api-test-1", persistence.AttemptResult{Outcome: envelope.WebhookFailed, ResponseCode: 500}); err != nil {
		t.Fatal(err)
	}
	resent, err := f.store.ResendWebhookCall(ctx, f.admin.TeamID, left.CallID)
	if err != nil {
		t.Fatal(err)
	}
	if routes := f.routes(); len(routes) != 1 || routes[0] != (envelope.WebhookRoute{TeamID: f.admin.TeamID}) {
		t.Fatalf("a resent test is not dispatched once: %v", routes)
	}
	callID, attempts, found, err := f.store.NextWebhookCall(ctx, f.hookID, "")
	if err != nil || !found || callID != resent.ID || attempts != 0 {
		t.Fatalf("the resent test's workflow delivers %q (%d attempts, found %v, %v), want the resent call %q; the tests are %q and %q",
			callID, attempts, found, err, resent.ID, left.CallID, failing.CallID)
	}
	if _, err := f.store.FailWebhookCall(ctx, failing.CallID); err != nil {
		t.Fatal(err)
	}
}

// The purge deletes what nobody will deliver any more: calls delivered or failed, calls of a
// disabled webhook, and tests; it keeps a call still being delivered, however old (an endpoint
// failing for long holds a route's later calls for 37 h each), so that no event is dropped
// without being counted as failed and no workflow loses the call it is delivering.
func TestWebhookPurgeKeepsCallsBeingDelivered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentCreated)
	id := draftWithOneSigner(t, f.store, "purge")
	delivered, _, _, err := f.store.NextWebhookCall(ctx, f.hookID, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ClaimWebhookAttempt(ctx, delivered, 1, "a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := f.store.FinishWebhookAttempt(ctx, delivered, 1, "a", persistence.AttemptResult{Outcome: envelope.WebhookSuccess, ResponseCode: 200}); err != nil {
		t.Fatal(err)
	}
	pending, err := f.store.ResendWebhookCall(ctx, f.admin.TeamID, delivered)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ClaimWebhookAttempt(ctx, pending.ID, 1, "b", time.Minute); err != nil {
		t.Fatal(err)
	}
	test, err := f.store.StartTestCall(ctx, f.admin.TeamID, f.hookID, envelope.WebhookDocumentCreated, []byte(`{}`), "api-test-gone")
	if err != nil {
		t.Fatal(err)
	}
	disabled := f.create(envelope.WebhookDocumentCreated)
	other := draftWithOneSigner(t, f.store, "purge, disabled")
	off := false
	if _, err := f.store.UpdateWebhook(ctx, f.admin.TeamID, disabled.ID, persistence.WebhookUpdate{Enabled: &off}); err != nil {
		t.Fatal(err)
	}

	purged, err := f.store.PurgeWebhookCalls(ctx, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := f.conn.Query(ctx, `SELECT id FROM webhook_calls ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		left = append(left, c)
	}
	if len(left) != 2 || left[0] != pending.ID || purged != 3 {
		t.Errorf("purged %d, left %v; want the call being delivered %s and the other envelope's call of the enabled webhook left (test %s, %s)",
			purged, left, pending.ID, test.CallID, other)
	}
	if err := f.store.FinishWebhookAttempt(ctx, pending.ID, 1, "b", persistence.AttemptResult{Outcome: envelope.WebhookSuccess, ResponseCode: 200}); err != nil {
		t.Errorf("the attempt in flight cannot be recorded after the purge: %v", err)
	}
}
