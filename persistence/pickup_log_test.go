package persistence_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A mail the relay refused spent its Message-ID: the mail log a pickup run reads lists it, so
// that the run's next resend or reminder gets a Message-ID of its own instead of one the log
// answers "failed" to (and so never sends).
func TestLoggedRequestsListRefusedMails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	id, rid := pendingWithOneSigner(t, store, "refused resend")
	msg := "signing_request.x.1.101@h"
	if _, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: msg, EnvelopeID: id, Kind: string(envelope.MailSigningRequest), To: "zoe@example.com", Owner: "a", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := store.MailRefused(ctx, persistence.MailRefusal{MessageID: msg, EnvelopeID: id, RecipientID: rid, EmailType: "SIGNING_REQUEST", Resending: true, Answer: "552 mailbox full"}); err != nil {
		t.Fatal(err)
	}
	logged, err := store.LoggedRequests(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(logged, func(m persistence.LoggedMail) bool { return m.MessageID == msg }) {
		t.Errorf("logged %v: the refused resend is left out, so a pickup run numbers its next resend %s again, which the log answers failed", logged, msg)
	}
}
