package persistence_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// FinishEnvelope ends a PENDING envelope in its ending event's status and records that event's
// entry; an event that ends nothing is refused, and finishing an envelope again in the same
// status writes nothing more.
func TestFinishEnvelopeRecordsItsEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name   string
		event  func(id string) envelope.Event
		status envelope.Status
		typ    string
	}{
		{"completed", func(id string) envelope.Event { return envelope.CompletedEvent(id, "run-1", now) }, envelope.StatusCompleted, "DOCUMENT_COMPLETED"},
		{"rejected", func(id string) envelope.Event { return envelope.RejectedEvent(id, "run-1", 1, "No <quiero>", now) }, envelope.StatusRejected, "DOCUMENT_COMPLETED"},
		{"cancelled", func(id string) envelope.Event { return envelope.CancelledEvent(id, "ya no", now) }, envelope.StatusCancelled, "DOCUMENT_CANCELLED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := draftWithOneSigner(t, store, "finish "+tt.name)
			if _, err := store.MarkPending(ctx, id, nil); err != nil {
				t.Fatal(err)
			}
			if err := store.FinishEnvelope(ctx, envelope.SentEvent(id, now), envelope.SystemActor()); err == nil {
				t.Error("an event that ends nothing finished the envelope")
			}
			ev := tt.event(id)
			for range 2 {
				if err := store.FinishEnvelope(ctx, ev, envelope.SystemActor()); err != nil {
					t.Fatal(err)
				}
			}
			e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
			if err != nil {
				t.Fatal(err)
			}
			if e.Status != tt.status || e.CompletedAt == nil || !e.CompletedAt.Equal(now) {
				t.Errorf("envelope %s, completed at %v; want %s at %s", e.Status, e.CompletedAt, tt.status, now)
			}
			log, _, err := store.AuditPage(ctx, persistence.ScopeOf(m), id, 1, 100, false, true)
			if err != nil {
				t.Fatal(err)
			}
			var ends int
			for _, entry := range log {
				if string(entry.Type) == tt.typ {
					ends++
				}
			}
			got, _ := json.Marshal(log[0].Data)
			want, _ := json.Marshal(ev.Audit().Data)
			if ends != 1 || string(log[0].Type) != tt.typ || string(got) != string(want) {
				t.Errorf("%d %s entries, the last %s %s; want one, %s %s", ends, tt.typ, log[0].Type, got, tt.typ, want)
			}
		})
	}
}
