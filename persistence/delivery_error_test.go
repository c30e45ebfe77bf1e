package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A recipient's delivery error is about the address the relay refused: once the owner changes
// the recipient's email, it no longer describes them and is cleared.
func TestDeliveryErrorClearedWhenTheEmailChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	id, rid := pendingWithOneSigner(t, store, "email change")
	if _, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: "refused", EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com", Owner: "a", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := store.MailRefused(ctx, persistence.MailRefusal{MessageID: "refused", EnvelopeID: id, RecipientID: rid, EmailType: "SIGNING_REQUEST", Answer: "550 no such mailbox"}); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	name := e.Recipients[0]
	name.Name = "Zoe Z"
	fixed := e.Recipients[0]
	fixed.Email = "zoe@example.org"
	read := func() *string {
		t.Helper()
		e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
		if err != nil {
			t.Fatal(err)
		}
		return e.Recipients[0].DeliveryError
	}
	for _, step := range []struct {
		name    string
		r       envelope.Recipient
		cleared bool
	}{{"a change of name", name, false}, {"a change of email", fixed, true}} {
		if err := store.InTx(ctx, func(tx *persistence.Tx) error {
			_, err := tx.UpdateRecipient(ctx, step.r)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got := read(); (got == nil) != step.cleared {
			t.Errorf("after %s: delivery error %v, cleared want %v", step.name, got, step.cleared)
		}
	}
}
