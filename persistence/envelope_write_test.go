package persistence_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func count(t *testing.T, store *persistence.Store, table string) int {
	t.Helper()
	n, err := store.CountRows(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A create that fails part-way (here the second recipient breaks a constraint, after the
// envelope, its items, document data, first recipient, fields and audit entries were written)
// leaves nothing behind.
func TestFailedCreateLeavesNothing(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 unique content"), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{
			{Recipient: envelope.Recipient{Email: "a@b.cl", Name: "A", Role: envelope.RoleSigner},
				Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 1, Height: 1}}}},
			{Recipient: envelope.Recipient{Email: "b@b.cl", Name: "B", Role: envelope.Role("BOSS")}},
		},
	}
	tables := []string{"envelopes", "envelope_items", "document_data", "recipients", "fields", "attachments", "audit_logs"}
	before := map[string]int{}
	for _, tb := range tables {
		before[tb] = count(t, store, tb)
	}
	err = store.InTx(ctx, func(tx *persistence.Tx) error {
		_, err := tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	})
	if err == nil {
		t.Fatal("create with an invalid role succeeded")
	}
	for _, tb := range tables {
		if n := count(t, store, tb); n != before[tb] {
			t.Errorf("%s: %d rows after the failed create, %d before", tb, n, before[tb])
		}
	}

	// The same input with the role fixed goes through whole.
	in.Recipients[1].Role = envelope.RoleCC
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Recipients) != 2 || len(e.Fields) != 1 || len(e.Items) != 1 {
		t.Errorf("created envelope has %d recipients, %d fields, %d items", len(e.Recipients), len(e.Fields), len(e.Items))
	}
	other, err := store.EnsureMember(ctx, "Other", "x@other.cl", "", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetEnvelope(ctx, persistence.ScopeOf(other), id); !envelope.IsNotFound(err) {
		t.Errorf("another team's read: %v, want not found", err)
	}
	var de *envelope.Error
	if _, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), "envelope_missing"); !errors.As(err, &de) || de.Code != envelope.CodeNotFound {
		t.Errorf("missing envelope: %v", err)
	}
}

// Identical uploads are stored once.
func TestDocumentDataIsContentAddressed(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	var a, b string
	doc := persistence.Document{Data: []byte("%PDF same bytes"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}
	err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		if a, err = tx.PutDocumentData(ctx, doc); err != nil {
			return err
		}
		b, err = tx.PutDocumentData(ctx, doc)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || count(t, store, "document_data") != 1 {
		t.Errorf("ids %s %s, rows %d; want one row", a, b, count(t, store, "document_data"))
	}
}
