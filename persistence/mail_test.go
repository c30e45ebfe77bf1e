package persistence_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A mail's claim belongs to one attempt while its lease runs: another attempt is held off, the
// same attempt keeps it, and a claim whose lease passed before its mail was handed over goes to
// the next attempt, whose predecessor can then no longer hand it to the relay. A mail whose
// handing over outlived its lease is found transmitting: maybe delivered, never sent again.
func TestMailClaimHasOneOwnerAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	id := draftWithOneSigner(t, store, "claims")
	claim := func(msg, owner string, lease time.Duration) persistence.MailState {
		t.Helper()
		st, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: msg, EnvelopeID: id, Kind: "reminder", To: "zoe@example.com", Owner: owner, Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	steps := []struct {
		name  string
		got   func() any
		want  any
		after func()
	}{
		{"a new mail is claimed", func() any { return claim("m1", "a", time.Minute) }, persistence.MailSending, nil},
		{"another attempt is held off", func() any { return claim("m1", "b", time.Minute) }, persistence.MailHeld, nil},
		{"the owner claims it again", func() any { return claim("m1", "a", time.Minute) }, persistence.MailSending, nil},
		{"a claim with a lease passed is taken over", func() any { claim("m2", "a", -time.Second); return claim("m2", "b", time.Minute) }, persistence.MailSending, nil},
		{"the attempt that lost it cannot hand it over", func() any { return errors.Is(store.MailTransmitting(ctx, "m2", "a"), persistence.ErrClaimLost) }, true, nil},
		{"its new owner can", func() any { return store.MailTransmitting(ctx, "m2", "b") }, nil, nil},
		{"a mail being handed over holds off others", func() any { return claim("m2", "c", time.Minute) }, persistence.MailHeld, nil},
		{"a mail handed over by an attempt whose lease passed is maybe delivered", func() any {
			claim("m3", "a", -time.Second)
			if err := store.MailTransmitting(ctx, "m3", "a"); err != nil {
				t.Fatal(err)
			}
			return claim("m3", "b", time.Minute)
		}, persistence.MailTransmitting, nil},
		{"a mail the relay did not take is given back at once", func() any {
			claim("m4", "a", time.Hour)
			if err := store.MailTransmitting(ctx, "m4", "a"); err != nil {
				t.Fatal(err)
			}
			if err := store.MailNotTransmitted(ctx, "m4", "a"); err != nil {
				t.Fatal(err)
			}
			return claim("m4", "b", time.Minute)
		}, persistence.MailSending, nil},
		{"a sent mail stays sent", func() any {
			if err := store.MailSent(ctx, "m1", nil, ""); err != nil {
				t.Fatal(err)
			}
			return claim("m1", "z", time.Minute)
		}, persistence.MailSent, nil},
	}
	for _, s := range steps {
		if got := s.got(); got != s.want {
			t.Errorf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
}

// A request's record (the recipient SENT, EMAIL_SENT) is written with the mail's, once however
// often it is recorded; a refusal for good is written once too, with the relay's answer on the
// recipient (until a later mail to them is sent) and EMAIL_REFUSED in the audit log.
func TestMailSentAndRefusedAreRecordedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	id := draftWithOneSigner(t, store, "sent once")
	if _, err := store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	rid := e.Recipients[0].ID
	claim := func(msg string) {
		t.Helper()
		if _, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: msg, EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com", Owner: "a", Lease: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(typ string) int {
		t.Helper()
		types, err := store.AuditTypes(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ty := range types {
			if ty == typ {
				n++
			}
		}
		return n
	}
	recipient := func() envelope.Recipient {
		t.Helper()
		e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
		if err != nil {
			t.Fatal(err)
		}
		return e.Recipients[0]
	}

	claim("refused")
	refusal := persistence.MailRefusal{MessageID: "refused", EnvelopeID: id, RecipientID: rid, EmailType: "SIGNING_REQUEST", Answer: "550 5.1.1 no such mailbox"}
	for range 2 {
		if err := store.MailRefused(ctx, refusal); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("EMAIL_REFUSED"); n != 1 {
		t.Errorf("EMAIL_REFUSED written %d times, want once", n)
	}
	if r := recipient(); r.DeliveryError == nil || *r.DeliveryError != refusal.Answer || r.SendStatus != envelope.SendStatusNotSent {
		t.Errorf("recipient after the refusal: delivery error %v, %s; want %q, NOT_SENT", r.DeliveryError, r.SendStatus, refusal.Answer)
	}

	claim("sent")
	mark := &envelope.Sent{EnvelopeID: id, RecipientID: rid, EmailType: "SIGNING_REQUEST", Mailed: true}
	for range 2 {
		if err := store.MailSent(ctx, "sent", mark, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("EMAIL_SENT"); n != 1 {
		t.Errorf("EMAIL_SENT written %d times, want once", n)
	}
	if r := recipient(); r.DeliveryError != nil || r.SendStatus != envelope.SendStatusSent {
		t.Errorf("recipient after a mail sent: delivery error %v, %s; want none, SENT", r.DeliveryError, r.SendStatus)
	}
	// Documenso's clients get the log without Sobre's own types unless they ask.
	for _, ext := range []bool{false, true} {
		list, n, err := store.AuditPage(ctx, persistence.ScopeOf(m), id, 1, 100, true, ext)
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(list, func(e envelope.AuditEntry) bool { return e.Type == "EMAIL_REFUSED" })
		if listed != ext || n != len(list) {
			t.Errorf("extensions %v: EMAIL_REFUSED listed %v, count %d for %d entries", ext, listed, n, len(list))
		}
	}
	types, _ := store.AuditTypes(ctx, id)
	if !slices.Contains(types, "EMAIL_REFUSED") || slices.Index(types, "EMAIL_REFUSED") > slices.Index(types, "EMAIL_SENT") {
		t.Errorf("audit types %v: want EMAIL_REFUSED before EMAIL_SENT", types)
	}
}

// A mail that never reached its claim (it could not be composed, or PostgreSQL was away while
// claiming) and is given up is still recorded: its mail log row is written failed, once, and a
// later attempt at it finds it failed.
func TestMailRefusedWithoutAClaimIsRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	id := draftWithOneSigner(t, store, "unclaimed")
	refusal := persistence.MailRefusal{MessageID: "never-claimed", EnvelopeID: id, EmailType: "owner_completed", Kind: "owner_completed",
		Answer: "not delivered: the template failed"}
	for range 2 {
		if err := store.MailRefused(ctx, refusal); err != nil {
			t.Fatal(err)
		}
	}
	types, err := store.AuditTypes(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ty := range types {
		if ty == "EMAIL_REFUSED" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("EMAIL_REFUSED written %d times, want once", n)
	}
	st, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: "never-claimed", EnvelopeID: id, Kind: "owner_completed", To: "o@x", Owner: "a", Lease: time.Minute})
	if err != nil || st != persistence.MailFailed {
		t.Errorf("a later attempt finds it %s (%v), want failed", st, err)
	}
}

// A request is handed to the relay only while it is due: once its envelope ended, an attempt
// that had claimed it cannot mark it transmitting, a new claim finds it not due, and it counts as
// not handed over; one handed over before the ending counts as handed over, and is found maybe
// delivered by the next claim.
func TestRequestIsHandedOverOnlyWhileDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	handed, stopped := draftWithOneSigner(t, store, "due one"), draftWithOneSigner(t, store, "due two")
	claim := func(id string) (persistence.MailClaim, persistence.MailState) {
		t.Helper()
		snap, err := store.LoadSnapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		lease := time.Minute
		if id == handed {
			lease = -time.Second // its attempt ends while handing it over
		}
		c := persistence.MailClaim{MessageID: "req-" + id, EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com",
			Owner: "a", Lease: lease, RecipientID: snap.Recipients[0].ID}
		st, err := store.ClaimMail(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return c, st
	}
	for _, id := range []string{handed, stopped} {
		if _, err := store.MarkPending(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := claim(handed)
	if err := store.MailTransmitting(ctx, h.MessageID, "a"); err != nil {
		t.Fatal(err)
	}
	s, st := claim(stopped)
	if st != persistence.MailSending {
		t.Fatalf("a due request claimed: %s", st)
	}
	for _, id := range []string{handed, stopped} {
		if err := store.FinishEnvelope(ctx, envelope.CancelledEvent(id, "", time.Now()), envelope.SystemActor()); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.MailTransmitting(ctx, s.MessageID, "a"); !errors.Is(err, persistence.ErrClaimLost) {
		t.Errorf("a request of a cancelled envelope marked transmitting: %v, want ErrClaimLost", err)
	}
	if _, st := claim(stopped); st != persistence.MailNotDue {
		t.Errorf("a request of a cancelled envelope claimed again: %s, want %s", st, persistence.MailNotDue)
	}
	if _, st := claim(handed); st != persistence.MailTransmitting {
		t.Errorf("a request an ended attempt was handing over, claimed again once not due: %s, want %s (maybe delivered)", st, persistence.MailTransmitting)
	}
	for id, want := range map[string]bool{handed: true, stopped: false} {
		snap, _ := store.LoadSnapshot(ctx, id)
		if got, err := store.RequestHandedOver(ctx, id, snap.Recipients[0].ID); err != nil || got != want {
			t.Errorf("envelope %s: request handed over %v (%v), want %v", id, got, err, want)
		}
	}
}

// A signature or a rejection being recorded while a request is about to be handed over comes
// wholly before or after the mark: one committed while the mark waits for it is seen, and the
// request is not handed over. Each outcome is tried twice, the second time on statements the
// pool's connections have prepared (a single-statement mark was caught only then). The store's
// URL asks for REPEATABLE READ, under which the check's snapshot would predate the wait: Open
// keeps every session at READ COMMITTED.
func TestRequestIsNotHandedOverPastAnOutcomeRecordedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := pgtest.NewURL(t)
	store := storeWithSettings(t, dbURL, map[string]string{"default_transaction_isolation": "repeatable read"},
		persistence.WithKeyring(pgtest.Keyring(t)))
	// Whether the mark waits on the envelope's row is read on a connection of its own: a
	// transaction sees the server's activity as it was at its first look.
	watch, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	for i, outcome := range []string{"SIGNED", "REJECTED", "SIGNED", "REJECTED"} {
		id := draftWithOneSigner(t, store, fmt.Sprint("meanwhile ", i))
		if _, err := store.MarkPending(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
		snap, err := store.LoadSnapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rid := snap.Recipients[0].ID
		c := persistence.MailClaim{MessageID: "req-" + id, EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com",
			Owner: "a", Lease: time.Minute, RecipientID: rid}
		if st, err := store.ClaimMail(ctx, c); err != nil || st != persistence.MailSending {
			t.Fatalf("%s: claim: %s, %v", outcome, st, err)
		}
		// The outcome as CompleteRecipient and RejectRecipient record it: the envelope's row for
		// update, then the recipient's status, committed once the mark waits for the row.
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM envelopes WHERE id = $1 FOR UPDATE`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE recipients SET signing_status = $2 WHERE id = $1`, rid, outcome); err != nil {
			t.Fatal(err)
		}
		marked := make(chan error, 1)
		go func() { marked <- store.MailTransmitting(ctx, c.MessageID, "a") }()
		for waiting := false; !waiting; {
			select {
			case err := <-marked:
				t.Fatalf("%s: the mark did not wait for the outcome being recorded: %v", outcome, err)
			case <-time.After(20 * time.Millisecond):
			}
			var n int
			if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR SHARE OF e%'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			waiting = n > 0
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-marked; !errors.Is(err, persistence.ErrClaimLost) {
			t.Errorf("recipient %s while the request was being marked: %v, want ErrClaimLost", outcome, err)
		}
		if got, err := store.RequestHandedOver(ctx, id, rid); err != nil || got {
			t.Errorf("recipient %s: request handed over %v (%v), want false", outcome, got, err)
		}
		conn.Close(ctx)
	}
}

// An attempt killed while its transmitting mark waits for the envelope's row leaves nothing
// committed: the mail stays claimed, not transmitting, and its next attempt sends it. The mark
// runs in a child process (this test binary again), killed with SIGKILL while it waits; its
// server process, which does not notice until it answers, then gets the lock and runs the mark.
func TestMailTransmittingOfAKilledAttempt(t *testing.T) {
	if os.Getenv("SOBRE_TEST_MARK_CHILD") != "" {
		return // the child's own run: TestMailTransmittingChild does its work
	}
	t.Parallel()
	ctx := context.Background()
	store, dbURL := pgtest.NewWithURL(t)
	id := draftWithOneSigner(t, store, "killed mark")
	if _, err := store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	c := persistence.MailClaim{MessageID: "req-" + id, EnvelopeID: id, Kind: "signing_request", To: "zoe@example.com",
		Owner: "a", Lease: time.Minute, RecipientID: snap.Recipients[0].ID}
	if st, err := store.ClaimMail(ctx, c); err != nil || st != persistence.MailSending {
		t.Fatalf("claim: %s, %v", st, err)
	}
	holder, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	watch, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM envelopes WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	child := osexec.Command(os.Args[0], "-test.run=^TestMailTransmittingChild$")
	child.Env = append(os.Environ(), "SOBRE_TEST_MARK_CHILD="+dbURL, "SOBRE_TEST_MARK_MESSAGE="+c.MessageID)
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waiting := func() int {
		var n int
		if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE '%FOR SHARE OF e%' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(30 * time.Second); waiting() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatalf("the child's mark never waited for the envelope:\n%s", out.String())
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); waiting() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed attempt's server process did not end")
		}
	}
	var state string
	if err := watch.QueryRow(ctx, `SELECT state FROM mail_log WHERE message_id = $1`, c.MessageID).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != "sending" {
		t.Fatalf("after the attempt was killed waiting, the mail is %q, want still sending (claimed, not transmitting)", state)
	}
	if err := store.MailTransmitting(ctx, c.MessageID, "a"); err != nil {
		t.Errorf("the next attempt's mark: %v", err)
	}
}

// TestMailTransmittingChild is TestMailTransmittingOfAKilledAttempt's child: it marks the mail
// and is killed while the mark waits.
func TestMailTransmittingChild(t *testing.T) {
	dbURL := os.Getenv("SOBRE_TEST_MARK_CHILD")
	if dbURL == "" {
		t.Skip("run by TestMailTransmittingOfAKilledAttempt")
	}
	store, err := persistence.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	err = store.MailTransmitting(context.Background(), os.Getenv("SOBRE_TEST_MARK_MESSAGE"), "a")
	t.Fatalf("the mark returned (%v) where it should have waited until killed", err)
}
