package workflows_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/smtptest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/workflows"
)

// requestID is the Message-ID of recipient rid's first signing request.
func requestID(envelopeID string, rid int64) string {
	return activities.MessageID(envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: envelopeID, RecipientID: rid}, "sobre.test")
}

// waitFor polls cond every 100 ms until it holds or a minute passes, and says how long it took.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > time.Minute {
			t.Fatalf("%s: not within a minute", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

// A mailbox the relay refuses for good ("550 no such mailbox") costs the envelope nothing: the
// refusal is recorded on the recipient and in the audit log, the approver approves by the link
// they got some other way, and the signers' requests go out at once.
func TestRefusedMailboxDelaysNobody(t *testing.T) {
	relay := &smtptest.Relay{Rcpt: func(addr string) string {
		if addr == "approver@acme.test" {
			return "550 5.1.1 no such mailbox"
		}
		return ""
	}}
	s := newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderSequential, true)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "the refusal recorded", func() bool {
		snap, err := s.store.LoadSnapshot(ctx, id)
		return err == nil && snap.Recipient(rs[0].ID).DeliveryError != nil
	})
	snap, _ := s.store.LoadSnapshot(ctx, id)
	if got := *snap.Recipient(rs[0].ID).DeliveryError; got != "550 5.1.1 no such mailbox" {
		t.Errorf("delivery error %q, want the relay's answer", got)
	}
	if snap.Recipient(rs[0].ID).SendStatus != envelope.SendStatusNotSent {
		t.Error("a refused request counted as sent")
	}
	types, err := s.store.AuditTypes(ctx, id)
	if err != nil || !contains(types, "EMAIL_REFUSED") {
		t.Errorf("audit types %v (%v), want EMAIL_REFUSED", types, err)
	}
	t.Logf("refusal recorded %v after distribute", took.Round(time.Millisecond))

	start := time.Now()
	if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: rs[0].ID}); err != nil {
		t.Fatal(err)
	}
	next := waitFor(t, "the signers' requests", func() bool {
		return relay.AcceptedTo(requestID(id, rs[1].ID)) == 1 && relay.AcceptedTo(requestID(id, rs[2].ID)) == 1
	})
	t.Logf("the next requests were accepted by the relay %v after the approval (%v for the approval's call)", (time.Since(start)).Round(time.Millisecond), (time.Since(start) - next).Round(time.Millisecond))
}

// A relay that takes a message's content and then answers "451 try later" did not take it: the
// mail is sent again, and accepted once; the request is recorded once.
func TestRefusalAfterDataIsRetriedAndSentOnce(t *testing.T) {
	relay := &smtptest.Relay{DataEnd: func(_ string, before int) string {
		if before == 0 {
			return "451 4.3.0 queue full, try later"
		}
		return ""
	}}
	s := newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both requests recorded sent", func() bool {
		snap, err := s.store.LoadSnapshot(ctx, id)
		return err == nil && snap.Recipient(rs[0].ID).SendStatus == envelope.SendStatusSent && snap.Recipient(rs[1].ID).SendStatus == envelope.SendStatusSent
	})
	for _, r := range rs {
		if n := relay.AcceptedTo(requestID(id, r.ID)); n != 1 {
			t.Errorf("recipient %d's request accepted %d times, want once", r.ID, n)
		}
	}
	types, _ := s.store.AuditTypes(ctx, id)
	if n := count(types, "EMAIL_SENT"); n != 2 {
		t.Errorf("EMAIL_SENT written %d times, want once per request", n)
	}
}

// Two attempts at the same mail at once (an attempt that outlived its deadline, and its retry)
// send it once: the second is held off while the first holds the claim, and finds it sent after.
func TestOverlappingAttemptsSendOnce(t *testing.T) {
	relay := &smtptest.Relay{Delay: time.Second}
	s := newStackRelaying(t, relay)
	ctx := context.Background()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	if _, err := s.store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	acts := s.activities(t, relay.URL())
	n := envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: id, RecipientID: rs[0].ID,
		Mark: &envelope.Sent{EnvelopeID: id, RecipientID: rs[0].ID, EmailType: "SIGNING_REQUEST", Mailed: true}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = acts.SendNotice(ctx, n) })
	}
	wg.Wait()
	held := 0
	for _, err := range errs {
		if err != nil && strings.Contains(err.Error(), "another attempt") {
			held++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if err := acts.SendNotice(ctx, n); err != nil {
		t.Fatalf("the retry after both: %v", err)
	}
	if got := relay.AcceptedTo(requestID(id, rs[0].ID)); got != 1 || held != 1 {
		t.Errorf("accepted %d times with %d attempts held off; want once, one held off", got, held)
	}
	types, _ := s.store.AuditTypes(ctx, id)
	if n := count(types, "EMAIL_SENT"); n != 1 {
		t.Errorf("EMAIL_SENT written %d times, want once", n)
	}
}

// Twenty signers completing at once on one envelope while the relay takes two seconds a mail
// all get their answer within the call deadline: no completion waits for a mail.
func TestBurstOfCompletionsWithASlowRelay(t *testing.T) {
	relay := &smtptest.Relay{Delay: 2 * time.Second}
	s := newStackRelaying(t, relay)
	s.flows.CallTimeout = 10 * time.Second
	ctx := context.Background()
	id, rs := s.draftWith(t, 20)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	took := make([]time.Duration, len(rs))
	errs := make([]error, len(rs))
	for i, r := range rs {
		s.sign(t, id, r)
		wg.Go(func() {
			start := time.Now()
			errs[i] = s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID})
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	slowest := time.Duration(0)
	for i, err := range errs {
		if err != nil {
			t.Errorf("signer %d: %v", rs[i].ID, err)
		}
		slowest = max(slowest, took[i])
	}
	t.Logf("20 completions with a relay taking 2 s a mail: the slowest answered in %v", slowest.Round(time.Millisecond))
	waitFor(t, "the envelope completed", func() bool {
		snap, err := s.store.LoadSnapshot(ctx, id)
		return err == nil && snap.Status == envelope.StatusCompleted
	})
}

// activities are the stack's activities, called directly.
func (s *stack) activities(t *testing.T, relayURL string) *activities.Activities {
	t.Helper()
	sender, err := mail.NewSender(relayURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	return &activities.Activities{Store: s.store, Mail: sender, PublicURL: "http://sobre.test", MailHost: "sobre.test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// draftWith writes an envelope with n signers in parallel, each with a signature field.
func (s *stack) draftWith(t *testing.T, n int) (string, []envelope.Recipient) {
	t.Helper()
	ctx := context.Background()
	m, err := s.store.EnsureMember(ctx, "Acme", "owner@acme.test", "Owner", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Ráfaga", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal("burst " + time.Now().Format(time.RFC3339Nano)), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
	}
	for i := range n {
		in.Recipients = append(in.Recipients, persistence.NewRecipient{
			Recipient: envelope.Recipient{Email: fmt.Sprintf("s%d@acme.test", i), Name: fmt.Sprintf("S%d", i), Role: envelope.RoleSigner},
			Fields:    []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}})
	}
	var id string
	if err := s.store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := s.store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	return id, e.Recipients
}

func contains(list []string, s string) bool { return count(list, s) > 0 }

func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// A cancel tells every recipient who was sent the envelope, even though the workflow no longer
// waits for a request's mail before reading the envelope again (which then still said NOT_SENT).
func TestCancelTellsTheRecipientsWhoWereSentIt(t *testing.T) {
	relay := &smtptest.Relay{}
	s := newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.flows.Cancel(ctx, id, workflows.CancelRequest{Reason: "ya no"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both told of the cancel", func() bool {
		told := 0
		for _, r := range rs {
			told += relay.AcceptedTo(activities.MessageID(envelope.Mailing{Kind: envelope.MailEnvelopeCancelled, EnvelopeID: id, RecipientID: r.ID}, "sobre.test"))
		}
		return told == len(rs)
	})
}

// A request still being retried when its envelope ended is not sent: it would ask to sign what
// can no longer be signed, and record the recipient SENT on a finished envelope.
func TestNoRequestOnceTheEnvelopeEnded(t *testing.T) {
	relay := &smtptest.Relay{}
	s := newStackRelaying(t, relay)
	ctx := context.Background()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	if _, err := s.store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.store.FinishEnvelope(ctx, envelope.CancelledEvent(id, "ya no", time.Now()), envelope.SystemActor()); err != nil {
		t.Fatal(err)
	}
	n := envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: id, RecipientID: rs[0].ID,
		Mark: &envelope.Sent{EnvelopeID: id, RecipientID: rs[0].ID, EmailType: "SIGNING_REQUEST", Mailed: true}}
	if err := s.activities(t, relay.URL()).SendNotice(ctx, n); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.store.LoadSnapshot(ctx, id)
	if got := relay.AcceptedTo(requestID(id, rs[0].ID)); got != 0 || snap.Recipient(rs[0].ID).SendStatus != envelope.SendStatusNotSent {
		t.Errorf("a request after the cancel: accepted %d times, recipient %s; want none, NOT_SENT", got, snap.Recipient(rs[0].ID).SendStatus)
	}
}

// A step's notices go out in one SendNotices: a mailbox refused for good is recorded and done, a
// relay's "try later" on another fails the attempt without holding up the third, and the retry
// sends only the one left. Each is accepted once.
func TestSendNoticesRetriesOnlyWhatIsLeft(t *testing.T) {
	var later atomic.Value // the Message-ID the relay asks to try later, once
	relay := &smtptest.Relay{
		Rcpt: func(addr string) string {
			if addr == "s0@acme.test" {
				return "550 5.1.1 no such mailbox"
			}
			return ""
		},
		DataEnd: func(messageID string, before int) string {
			if messageID == later.Load() && before == 0 {
				return "451 4.3.0 queue full, try later"
			}
			return ""
		},
	}
	s := newStackRelaying(t, relay)
	ctx := context.Background()
	id, rs := s.draftWith(t, 3)
	if _, err := s.store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	later.Store(requestID(id, rs[1].ID))
	acts := s.activities(t, relay.URL())
	var ns []envelope.Mailing
	for _, r := range rs {
		ns = append(ns, envelope.Mailing{Kind: envelope.MailSigningRequest, EnvelopeID: id, RecipientID: r.ID,
			Mark: &envelope.Sent{EnvelopeID: id, RecipientID: r.ID, EmailType: "SIGNING_REQUEST", Mailed: true}})
	}
	if err := acts.SendNotices(ctx, ns); err == nil || !strings.Contains(err.Error(), "451") {
		t.Fatalf("first attempt: %v, want the relay's 451", err)
	}
	if got := relay.AcceptedTo(requestID(id, rs[2].ID)); got != 1 {
		t.Fatalf("the third request accepted %d times on the first attempt, want once: the 451 held it up", got)
	}
	if err := acts.SendNotices(ctx, ns); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	for i, want := range []int{0, 1, 1} {
		if got := relay.AcceptedTo(requestID(id, rs[i].ID)); got != want {
			t.Errorf("request %d accepted %d times, want %d", i, got, want)
		}
	}
	snap, err := s.store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Recipient(rs[0].ID).DeliveryError == nil {
		t.Error("the refused mailbox is not recorded on its recipient")
	}
	types, _ := s.store.AuditTypes(ctx, id)
	if n := count(types, "EMAIL_SENT"); n != 2 {
		t.Errorf("EMAIL_SENT written %d times, want once per request sent", n)
	}
}
