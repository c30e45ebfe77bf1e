package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// Two transactions that append to one envelope's audit log at once, the second waiting on the
// first's row lock, must chain one after the other: the second reads the chain's end after the
// first commits, not the end it would have read before waiting.
func TestAuditAppendsWaitingOnTheLockChainAfterTheHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, err := persistence.Open(ctx, pgtest.NewURL(t), persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Race", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF race"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	a := envelope.MemberActor(m, "203.0.113.7", "test")
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		id, err = tx.CreateEnvelope(ctx, m, in, a)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	entry := envelope.MetaUpdatedAudit([]envelope.AuditChange{{Type: "SUBJECT", From: nil, To: "x"}})

	appended := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- store.InTx(ctx, func(tx *persistence.Tx) error {
			if err := tx.AppendAudit(ctx, id, entry, a); err != nil {
				return err
			}
			close(appended)
			time.Sleep(500 * time.Millisecond) // the second append waits on the row lock meanwhile
			return nil
		})
	}()
	<-appended
	if err := store.InTx(ctx, func(tx *persistence.Tx) error { return tx.AppendAudit(ctx, id, entry, a) }); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.VerifyAudit(ctx, id); err != nil {
		t.Fatalf("chain after two concurrent appends: %v", err)
	}
}
