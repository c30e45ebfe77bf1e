package persistence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A change that breaks a unique constraint is ALREADY_EXISTS saying what would exist twice, not
// an internal error; other constraint violations stay what they were.
func TestUniqueViolationIsAlreadyExists(t *testing.T) {
	store := pgtest.New(t)
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	page := []persistence.PageSize{{Width: 595, Height: 842}}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 unique a"), Pages: page}, {Title: "b.pdf", Data: []byte("%PDF-1.7 unique b"), Pages: page}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		id, err = tx.CreateEnvelope(ctx, m, in, persistence.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil || len(e.Items) != 2 {
		t.Fatalf("items %v, %v", e, err)
	}
	second := e.Items[1]
	second.Order = e.Items[0].Order
	err = store.InTx(ctx, func(tx *persistence.Tx) error { return tx.UpdateItem(ctx, second) })
	if envelope.ErrorCode(err) != envelope.CodeAlreadyExists || !strings.Contains(err.Error(), "same order") {
		t.Errorf("two items with one order: %v (%s), want ALREADY_EXISTS naming the order", err, envelope.ErrorCode(err))
	}

	in.Recipients = []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "b@b.cl", Name: "B", Role: envelope.Role("BOSS")}}}
	err = store.InTx(ctx, func(tx *persistence.Tx) error {
		_, err := tx.CreateEnvelope(ctx, m, in, persistence.Actor{})
		return err
	})
	if err == nil || envelope.ErrorCode(err) == envelope.CodeAlreadyExists {
		t.Errorf("a check constraint: %v, want an error other than ALREADY_EXISTS", err)
	}
}
