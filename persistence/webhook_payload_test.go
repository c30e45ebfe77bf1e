package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// DOCUMENT_SENT's payload is the envelope as the send left it: the deadlines the send gave its
// recipients are in it, as GET /envelope shows them right after.
func TestWebhookSentPayloadIsTheEnvelopeAfterTheSend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentSent)
	id := draftWithOneSigner(t, f.store, "sent payload")
	deadline := time.Now().Add(72 * time.Hour)
	if _, err := f.store.MarkPending(ctx, id, &deadline); err != nil {
		t.Fatal(err)
	}
	e, err := f.store.GetEnvelope(ctx, persistence.ScopeOf(f.admin), id)
	if err != nil || e.Recipients[0].ExpiresAt == nil {
		t.Fatalf("the send gave no deadline: %v", err)
	}
	names, payloads := f.events(id)
	if len(names) != 1 {
		t.Fatalf("events %v", names)
	}
	if r := payloads[0]["recipients"].([]any)[0].(map[string]any); r["expiresAt"] == nil {
		t.Errorf("DOCUMENT_SENT's payload lacks the deadline the send set (%v): %v", e.Recipients[0].ExpiresAt, r)
	}
}
