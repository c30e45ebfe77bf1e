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

// Tx.Record writes the entry an event derives; an event lacking what its kind records, or an
// entry without a type, is refused and nothing is written.
func TestRecordWritesTheEventsEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF record"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoë", Role: envelope.RoleSigner}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.SystemActor())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	r := e.Recipients[0]
	now := time.Now()
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		return tx.Record(ctx, envelope.RecipientRejectedEvent(r, "no", envelope.Rejection{External: true}, now), envelope.SystemActor())
	}); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name  string
		write func(tx *persistence.Tx) error
	}{
		{"an event without its recipient", func(tx *persistence.Tx) error {
			return tx.Record(ctx, envelope.Event{Kind: envelope.EventOpened, EnvelopeID: id}, envelope.SystemActor())
		}},
		{"an entry without a type", func(tx *persistence.Tx) error {
			return tx.AppendAudit(ctx, id, envelope.Audit{Data: map[string]any{}}, envelope.SystemActor())
		}},
	}
	for _, c := range refused {
		if err := store.InTx(ctx, c.write); err == nil {
			t.Errorf("%s was written", c.name)
		}
	}
	log, _, err := store.AuditPage(ctx, persistence.ScopeOf(m), id, 1, 100, false, true)
	if err != nil {
		t.Fatal(err)
	}
	last := log[0]
	got, _ := json.Marshal(last.Data)
	want, _ := json.Marshal(envelope.RecipientRejectedEvent(r, "no", envelope.Rejection{External: true}, now).Audit().Data)
	if last.Type != "DOCUMENT_RECIPIENT_REJECTED" || string(got) != string(want) {
		t.Errorf("last entry = %s %s, want DOCUMENT_RECIPIENT_REJECTED %s", last.Type, got, want)
	}
}
