package ceremony_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	sobreworker "github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// clock is a test's own time for the waits between wrong codes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mailsTo lists the subjects of the mails the sink holds for address.
func mailsTo(t *testing.T, httpURL, address string) []string {
	t.Helper()
	res, err := http.Get(httpURL + "/api/v1/search?limit=200&query=" + url.QueryEscape("to:"+address))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct{ Messages []struct{ Subject string } }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range found.Messages {
		out = append(out, m.Subject)
	}
	return out
}

func countPrefix(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func countOf(list []string, v string) int {
	n := 0
	for _, s := range list {
		if s == v {
			n++
		}
	}
	return n
}

// distributed starts a real worker and distributes an envelope whose one signer must enter a
// mailed code; it returns the ceremony service (on a clock of the test's own), the flows client,
// the envelope and its recipient, and the owner's address.
func distributed(t *testing.T) (*ceremony.Service, *workflows.Client, *clock, *envelope.Envelope, envelope.Recipient, string) {
	t.Helper()
	smtpURL, _ := sink(t)
	store := pgtest.New(t)
	c := temporaltest.Client(t, nil)
	queue := temporaltest.TaskQueue(t)
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	w, err := sobreworker.New(c, sobreworker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log,
		Activities: &activities.Activities{Store: store, Mail: sender, PublicURL: "http://sobre.test", MailHost: "sobre.test", Log: log}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	flows := &workflows.Client{Temporal: c, TaskQueue: queue}

	ctx := context.Background()
	stamp := time.Now().UnixNano()
	owner := fmt.Sprintf("owner-%d@sobre.test", stamp)
	m, err := store.EnsureMember(ctx, "Acme", owner, "Olga", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Arriendo", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal(fmt.Sprintf("lockout %d", stamp)), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: fmt.Sprintf("signer-%d@sobre.test", stamp), Name: "Tomás", Role: envelope.RoleSigner,
			AuthOptions: envelope.RecipientAuthOptions{AccessAuth: []envelope.AccessAuth{envelope.AccessAuthTwoFactorAuth}}},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := flows.Distribute(dctx, id, m.TeamID); err != nil {
		t.Fatal(err)
	}
	// Distribute answers before its request is sent: the envelope is taken once the request is
	// recorded, so that the code mails the test reads come after it.
	var e *envelope.Envelope
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if e, err = store.EnvelopeForRecipient(ctx, id); err != nil {
			t.Fatal(err)
		}
		if e.Recipients[0].SendStatus == envelope.SendStatusSent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the signing request was not recorded sent within 30 s")
		}
	}
	clk := newClock()
	s := &ceremony.Service{Store: store, Mail: sender, PublicURL: "http://127.0.0.1", Log: log, Now: clk.now, TellOwner: flows.Refresh}
	return s, flows, clk, e, e.Recipients[0], owner
}

// Twenty wrong codes in all lock a recipient's code entry: the right code is refused after it,
// whichever browser types it, guesses sent at once never pass the ceiling, the audit log says so
// and the owner gets one mail. Between wrong codes the wait grows, and a redistribute opens
// the entry again.
func TestAccessCodeLockout(t *testing.T) {
	t.Parallel()
	_, httpURL := sink(t)
	s, flows, clk, e, rec, owner := distributed(t)
	ctx := context.Background()
	actor := envelope.RecipientActor(rec, "127.0.0.1", "test")
	max := envelope.DefaultMaxCodeFailures

	// Browser A asks for a code and keeps it; browser B guesses.
	var a, b browser
	a.begin(t, s, rec)
	b.begin(t, s, rec)
	if err := s.RequestCode(ctx, a.request(), e, rec, actor); err != nil {
		t.Fatal(err)
	}
	right := lastCode(t, httpURL, rec.Email)
	wrong := func(code string) string {
		for _, w := range []string{"000000", "111111"} {
			if w != code {
				return w
			}
		}
		return ""
	}
	var code string
	failures := 0
	for failures < max-1 {
		if wait := envelope.CodeBackoff(failures); wait > 0 {
			// Too early: refused with the wait, and not counted.
			err := s.VerifyCode(ctx, b.request(), rec, wrong(code), actor)
			var de *envelope.Error
			if !errors.As(err, &de) || de.Code != envelope.CodeTooManyRequests || de.RetryAfter != wait {
				t.Fatalf("a code right after wrong code %d: %v, want TOO_MANY_REQUESTS with a wait of %v", failures, err, wait)
			}
			if err := s.RequestCode(ctx, b.request(), e, rec, actor); envelope.ErrorCode(err) != envelope.CodeTooManyRequests {
				t.Fatalf("a code request during the wait: %v", err)
			}
			clk.add(wait - time.Millisecond)
			if err := s.VerifyCode(ctx, b.request(), rec, wrong(code), actor); envelope.ErrorCode(err) != envelope.CodeTooManyRequests {
				t.Fatalf("a code a millisecond before the wait ends: %v", err)
			}
			clk.add(time.Millisecond)
		}
		if failures%ceremony.AccessCodes.MaxAttempts == 0 { // the code is spent: a new one
			if err := s.RequestCode(ctx, b.request(), e, rec, actor); err != nil {
				t.Fatalf("code request after %d wrong codes: %v", failures, err)
			}
			code = lastCode(t, httpURL, rec.Email)
		}
		if err := s.VerifyCode(ctx, b.request(), rec, wrong(code), actor); envelope.ErrorCode(err) != envelope.CodeVerificationFailed {
			t.Fatalf("wrong code %d: %v", failures+1, err)
		}
		failures++
	}

	// The twentieth: five guesses at once, after the wait; one counts and locks, the rest are refused.
	clk.add(envelope.CodeBackoff(failures))
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.VerifyCode(ctx, b.request(), rec, wrong(code), actor)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if envelope.ErrorCode(err) != envelope.CodeAccessCodeLocked {
			t.Fatalf("guess %d at the ceiling: %v, want ACCESS_CODE_LOCKED", i, err)
		}
	}

	// The twenty-first, with the right code and in the other browser, hours later: refused.
	clk.add(3 * time.Hour)
	if err := s.VerifyCode(ctx, a.request(), rec, right, actor); envelope.ErrorCode(err) != envelope.CodeAccessCodeLocked {
		t.Fatalf("the right code on a locked entry: %v", err)
	}
	if err := s.RequestCode(ctx, a.request(), e, rec, actor); envelope.ErrorCode(err) != envelope.CodeAccessCodeLocked {
		t.Fatalf("a code request on a locked entry: %v", err)
	}
	if locked, err := s.CodeEntryLocked(ctx, rec); err != nil || !locked {
		t.Fatalf("CodeEntryLocked = %v, %v", locked, err)
	}
	types, err := s.Store.AuditTypes(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := countOf(types, "DOCUMENT_ACCESS_AUTH_2FA_FAILED"); n != max {
		t.Errorf("%d DOCUMENT_ACCESS_AUTH_2FA_FAILED entries, want %d", n, max)
	}
	if n := countOf(types, "DOCUMENT_ACCESS_AUTH_2FA_LOCKED"); n != 1 {
		t.Errorf("%d DOCUMENT_ACCESS_AUTH_2FA_LOCKED entries, want 1", n)
	}
	if n := countOf(types, "DOCUMENT_ACCESS_AUTH_2FA_VALIDATED"); n != 0 {
		t.Errorf("a code was validated on a locked entry")
	}

	// The owner is mailed once, however often the workflow is told.
	const subject = "Too many wrong codes on Tomás's link"
	deadline := time.Now().Add(30 * time.Second)
	for countPrefix(mailsTo(t, httpURL, owner), subject) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no lockout mail to the owner; the owner has %q", mailsTo(t, httpURL, owner))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for range 3 {
		if err := flows.Refresh(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second)
	if n := countPrefix(mailsTo(t, httpURL, owner), subject); n != 1 {
		t.Fatalf("%d lockout mails to the owner, want 1", n)
	}

	// A redistribute opens the entry, through a new link: the guessed one only says it was
	// replaced, its sessions (browser A's code with them) are gone, and the new link takes codes.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := flows.Resend(rctx, e.ID, workflows.ResendRequest{RecipientIDs: []int64{rec.ID}}); err != nil {
		t.Fatal(err)
	}
	if replaced, err := s.Store.LinkReplaced(ctx, rec.Token); err != nil || !replaced {
		t.Fatalf("after a redistribute the guessed link: replaced %v, %v", replaced, err)
	}
	if err := s.VerifyCode(ctx, a.request(), rec, right, actor); err == nil {
		t.Fatal("browser A's code, from the replaced link's session, still works")
	}
	fresh, err := s.Store.RecipientForSigning(ctx, rec.ID)
	if err != nil || fresh.Token == rec.Token {
		t.Fatalf("after a redistribute: token %q (was %q), %v", fresh.Token, rec.Token, err)
	}
	if locked, err := s.CodeEntryLocked(ctx, fresh); err != nil || locked {
		t.Fatalf("after a redistribute CodeEntryLocked = %v, %v", locked, err)
	}
	var c browser
	c.begin(t, s, fresh)
	if err := s.RequestCode(ctx, c.request(), e, fresh, actor); err != nil {
		t.Fatal(err)
	}
	if err := s.VerifyCode(ctx, c.request(), fresh, lastCode(t, httpURL, rec.Email), actor); err != nil {
		t.Fatalf("the right code through the new link: %v", err)
	}

	// The workflow's history, the lock's mail included, replays through today's code.
	hist := temporaltest.History(t, flows.Temporal, e.ID)
	if err := temporaltest.Replayer(t).ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("the history does not replay: %v", err)
	}
}
