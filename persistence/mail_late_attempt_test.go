package persistence_test

import (
	"context"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// An attempt whose mail another attempt has since recorded sent (its own lease passed while it
// was handing the mail over, and the next attempt took the mail as maybe delivered) cannot give
// the mail back when its relay then answers "try later": the mail stays sent, and a later
// attempt neither sends it again nor writes EMAIL_SENT a second time.
func TestMailSentStaysSentWhenALateAttemptGivesItBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	id, rid := pendingWithOneSigner(t, store, "late attempt")
	mark := &envelope.Sent{EnvelopeID: id, RecipientID: rid, EmailType: "SIGNING_REQUEST", Mailed: true}
	claim := func(owner string, lease time.Duration) persistence.MailState {
		t.Helper()
		st, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: "late", EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com", Owner: owner, Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	claim("a", -time.Second) // a's lease passes while it hands the mail over
	if err := store.MailTransmitting(ctx, "late", "a"); err != nil {
		t.Fatal(err)
	}
	if st := claim("b", time.Minute); st != persistence.MailTransmitting {
		t.Fatalf("b found %s, want transmitting", st)
	}
	if err := store.MailSent(ctx, "late", mark, "unconfirmed"); err != nil {
		t.Fatal(err)
	}
	// a's relay answers 451 at last: a gives the mail back.
	if err := store.MailNotTransmitted(ctx, "late", "a"); err != nil {
		t.Fatal(err)
	}
	if st := claim("c", time.Minute); st != persistence.MailSent {
		t.Errorf("a mail recorded sent was given back by the attempt that lost it: the next attempt finds it %s and sends it again", st)
		_ = store.MailTransmitting(ctx, "late", "c")
		if err := store.MailSent(ctx, "late", mark, ""); err != nil {
			t.Fatal(err)
		}
	}
	types, err := store.AuditTypes(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := countOf(types, "EMAIL_SENT"); n != 1 {
		t.Errorf("EMAIL_SENT written %d times, want once", n)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// pendingWithOneSigner is draftWithOneSigner's envelope made PENDING, and its signer's id.
func pendingWithOneSigner(t testing.TB, store *persistence.Store, text string) (id string, rid int64) {
	t.Helper()
	id = draftWithOneSigner(t, store, text)
	snap, err := store.MarkPending(context.Background(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id, snap.Recipients[0].ID
}
