package workflows_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/smtptest"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// When SendNotices gives up on a step's mails (its retries spent), deliverAll records each of
// them undeliverable: only the one the relay kept refusing is recorded, on its recipient and in
// the audit log. The one sent stays sent, the one to a recipient without an address (marked
// SENT, no mail) and a request for an envelope that ended since are not recorded at all.
func TestGivingUpOnAStepsMailsRecordsOnlyWhatWasNotSent(t *testing.T) {
	relay := &smtptest.Relay{Rcpt: func(addr string) string {
		if addr == "s1@acme.test" {
			return "451 4.2.2 mailbox full, try later"
		}
		return ""
	}}
	relay.Start(t)
	store, url := pgtest.NewWithURL(t)
	s := &stack{store: store}
	ctx := context.Background()
	id, rs := s.draftWith(t, 4)
	if _, err := store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE recipients SET email = '' WHERE id = $1`, rs[2].ID); err != nil {
		t.Fatal(err)
	}
	request := func(i int) envelope.Mailing {
		return envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: id, RecipientID: rs[i].ID,
			Mark: &envelope.Sent{EnvelopeID: id, RecipientID: rs[i].ID, EmailType: "SIGNING_REQUEST", Mailed: true}}
	}
	acts := s.activities(t, relay.URL())
	step := []envelope.Mailing{request(0), request(1), request(2)}
	if err := acts.SendNotices(ctx, step); err == nil {
		t.Fatal("SendNotices succeeded with the relay refusing a mail for now")
	}
	for _, n := range step {
		if err := acts.MailUndeliverable(ctx, n, "451 4.2.2 mailbox full, try later"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `UPDATE envelopes SET status = 'CANCELLED' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := acts.MailUndeliverable(ctx, request(3), "451 4.2.2 mailbox full, try later"); err != nil {
		t.Fatal(err)
	}
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		got := snap.Recipient(r.ID).DeliveryError
		if (got != nil) != (i == 1) {
			t.Errorf("recipient %d: delivery error %v; want one for recipient 1 only", i, got)
		}
	}
	if got := relay.AcceptedTo(requestID(id, rs[0].ID)); got != 1 {
		t.Errorf("the first request accepted %d times, want once", got)
	}
	types, _ := store.AuditTypes(ctx, id)
	if n := count(types, "EMAIL_REFUSED"); n != 1 {
		t.Errorf("EMAIL_REFUSED written %d times, want once: for the mail the relay kept refusing", n)
	}
}

// A step's mails go out several at once, after distribute has answered: twelve requests through
// a relay that takes a second a mail are all recorded sent, the relay holding more than one at a
// time, as they were when each went out in an activity of its own.
func TestDistributeSendsAStepsMailsTogether(t *testing.T) {
	var holding, most atomic.Int32
	relay := &smtptest.Relay{Rcpt: func(string) string {
		now := holding.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(time.Second)
		holding.Add(-1)
		return ""
	}}
	s := newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs := s.draftWith(t, 12)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the twelve requests recorded sent", func() bool {
		snap, err := s.store.LoadSnapshot(ctx, id)
		if err != nil {
			return false
		}
		for _, r := range rs {
			if snap.Recipient(r.ID).SendStatus != envelope.SendStatusSent {
				return false
			}
		}
		return true
	})
	if most.Load() < 2 {
		t.Errorf("the relay held at most %d mail at a time, want several", most.Load())
	}
}
