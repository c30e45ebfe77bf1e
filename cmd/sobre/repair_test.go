package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/seal"
	sobreworker "github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// repairStack is a real worker (PostgreSQL, Temporal dev server, SMTP sink) whose LoadSnapshot
// fails for good while unreadable is set: a non-retryable activity error fails the workflow.
type repairStack struct {
	finder     stuckFinder
	dbURL      string
	unreadable atomic.Bool
	sink       string
}

func newRepairStack(t *testing.T) *repairStack {
	smtpURL, sink := os.Getenv("SOBRE_TEST_SMTP_URL"), os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if smtpURL == "" || sink == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL and SOBRE_TEST_MAILPIT_URL must be set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	store, dbURL := pgtest.NewWithURL(t)
	c := temporaltest.Client(t, nil)
	queue := temporaltest.TaskQueue(t)
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	sealer, _, err := seal.DevSeal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	acts := &activities.Activities{Store: store, Mail: sender, PublicURL: "http://sobre.test", MailHost: "sobre.test", Log: log, Seal: sealer}
	w, err := sobreworker.New(c, sobreworker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log, Activities: acts})
	if err != nil {
		t.Fatal(err)
	}
	s := &repairStack{sink: sink, dbURL: dbURL}
	w.RegisterActivityWithOptions(func(ctx context.Context, id string) (envelope.Progress, error) {
		if s.unreadable.Load() {
			return envelope.Progress{}, temporal.NewNonRetryableApplicationError("the snapshot cannot be read", "TEST_UNREADABLE", nil)
		}
		return acts.LoadSnapshot(ctx, id)
	}, activity.RegisterOptions{Name: "LoadSnapshot", DisableAlreadyRegisteredCheck: true})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	s.finder = stuckFinder{store: store, flows: &workflows.Client{Temporal: c, TaskQueue: queue, CallTimeout: time.Minute}}
	return s
}

// draft writes a parallel envelope with two signers whose addresses are the test's own.
func (s *repairStack) draft(t *testing.T, tag string) (string, []envelope.Recipient) {
	ctx := context.Background()
	store := s.finder.store
	m, err := store.EnsureMember(ctx, "Acme", "owner-"+tag+"@acme.test", "Owner", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	sig := func() []persistence.NewField {
		return []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Reparación", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal("repair " + tag), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{
			{Recipient: envelope.Recipient{Email: "s1-" + tag + "@acme.test", Name: "S1", Role: envelope.RoleSigner}, Fields: sig()},
			{Recipient: envelope.Recipient{Email: "s2-" + tag + "@acme.test", Name: "S2", Role: envelope.RoleSigner}, Fields: sig()},
		},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	return id, e.Recipients
}

// sign fills recipient r's fields and completes through the workflow client.
func (s *repairStack) sign(t *testing.T, id string, r envelope.Recipient) {
	ctx := context.Background()
	e, err := s.finder.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range e.Fields {
		if f.RecipientID == r.ID {
			typed := r.Name
			if _, err := s.finder.store.InsertFieldValue(ctx, r, f.ID, &persistence.FieldValue{CustomText: typed, Typed: &typed}, "", envelope.Actor{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.finder.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
		t.Fatalf("complete %d: %v", r.ID, err)
	}
}

// repair runs the command's entry point on what and returns its output.
func (s *repairStack) repair(t *testing.T, what string) string {
	var out bytes.Buffer
	if err := repairWith(context.Background(), s.finder, what, &out); err != nil {
		t.Fatalf("repair %s: %v (%s)", what, err, out.String())
	}
	return out.String()
}

// messageIDs lists the Message-IDs of the mails the sink holds for address to.
func (s *repairStack) messageIDs(t *testing.T, to string) []string {
	res, err := http.Get(s.sink + "/api/v1/search?limit=200&query=" + url.QueryEscape("to:"+to))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var found struct{ Messages []struct{ MessageID string } }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range found.Messages {
		out = append(out, m.MessageID)
	}
	return out
}

// waitStatus waits until envelope id has status want in PostgreSQL.
func (s *repairStack) waitStatus(t *testing.T, id string, want envelope.Status) {
	deadline := time.Now().Add(time.Minute)
	for {
		snap, err := s.finder.store.LoadSnapshot(context.Background(), id)
		if err == nil && snap.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("envelope %s: status %s (%v), want %s", id, snap.Status, err, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A workflow terminated through the client and one failed by a non-retryable activity error
// leave their envelopes stuck; `sobre repair` starts new runs that pick them up, the signers
// complete them, and no mail is sent twice. A signer of an envelope whose workflow is closed is
// not told the envelope is a draft: the client starts a new run itself.
func TestRepairStuckEnvelopes(t *testing.T) {
	s := newRepairStack(t)
	ctx := context.Background()
	tag := fmt.Sprint(time.Now().UnixNano())
	killed, killedRs := s.draft(t, "k"+tag)
	failed, failedRs := s.draft(t, "f"+tag)
	for _, id := range []string{killed, failed} {
		if err := s.finder.flows.Distribute(ctx, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.finder.flows.Temporal.TerminateWorkflow(ctx, killed, "", "killed by an operator"); err != nil {
		t.Fatal(err)
	}
	s.unreadable.Store(true)
	if err := s.finder.flows.Refresh(ctx, failed); err != nil {
		t.Fatal(err)
	}
	if err := s.finder.flows.Temporal.GetWorkflow(ctx, failed, "").Get(ctx, nil); err == nil {
		t.Fatal("the workflow with an unreadable snapshot did not fail")
	}
	s.unreadable.Store(false)

	for _, id := range []string{killed, failed} {
		v, err := s.finder.examine(ctx, id, time.Now())
		if err != nil || !v.Stuck || v.Run != workflows.RunFailed {
			t.Fatalf("%s: %+v %v, want stuck with a failed run", id, v, err)
		}
	}
	stuck, err := s.finder.stuck(ctx, time.Now())
	if err != nil || len(stuck) != 2 {
		t.Fatalf("stuck %+v %v, want the two envelopes", stuck, err)
	}
	if out := s.repair(t, killed); !strings.Contains(out, "started a new run") {
		t.Errorf("repair %s: %q", killed, out)
	}
	if out := s.repair(t, "--all-stuck"); !strings.Contains(out, failed+": PENDING, workflow failed: started a new run") || !strings.Contains(out, "1 stuck envelopes found") {
		t.Errorf("repair --all-stuck: %q", out)
	}
	if out := s.repair(t, killed); !strings.Contains(out, "not stuck, nothing done") {
		t.Errorf("repair again: %q, want nothing done", out)
	}
	if out := s.repair(t, "--all-stuck"); !strings.Contains(out, "0 stuck envelopes found") {
		t.Errorf("repair --all-stuck again: %q", out)
	}

	s.sign(t, killed, killedRs[0])
	s.sign(t, failed, failedRs[0])
	// Killed again: the last signer's completion starts a new run by itself.
	if err := s.finder.flows.Temporal.TerminateWorkflow(ctx, killed, "", "killed again"); err != nil {
		t.Fatal(err)
	}
	s.sign(t, killed, killedRs[1])
	s.sign(t, failed, failedRs[1])
	s.waitStatus(t, killed, envelope.StatusCompleted)
	s.waitStatus(t, failed, envelope.StatusCompleted)

	for _, rs := range [][]envelope.Recipient{killedRs, failedRs} {
		for _, r := range rs {
			var ids []string
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				ids = s.messageIDs(t, r.Email)
				if slices.ContainsFunc(ids, isKind(envelope.MailDocumentCompleted)) || time.Now().After(deadline) {
					break
				}
			}
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("%s was sent %s twice", r.Email, id)
				}
				seen[id] = true
			}
			requests := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !isKind(envelope.MailSigningRequest)(id) })
			if len(requests) != 1 || !slices.ContainsFunc(ids, isKind(envelope.MailDocumentCompleted)) {
				t.Errorf("%s got %q: want one signing request and the completion", r.Email, ids)
			}
		}
	}
}

// isKind reports whether a Message-ID is of a mail of kind.
func isKind(kind envelope.Mail) func(string) bool {
	return func(id string) bool { return strings.HasPrefix(strings.TrimPrefix(id, "<"), string(kind)+".") }
}

// A direct link's visitor's submit made its document PENDING, with the visitor signed, and then
// could not start its workflow (Temporal away, the API killed): the worker's check starts that
// run by itself, and the other signer is sent the document once.
func TestWatcherStartsTheRunOwedToADirectLinkDocument(t *testing.T) {
	s := newRepairStack(t)
	ctx := context.Background()
	tag := fmt.Sprint(time.Now().UnixNano())
	id, rs := s.draft(t, "d"+tag)
	other, _ := s.draft(t, "o"+tag) // PENDING with no workflow too, but no direct link's: left to an operator
	conn, err := pgx.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE envelopes SET status = 'PENDING' WHERE id = $1 OR id = $2`, []any{id, other}},
		{`UPDATE recipients SET signing_status = 'SIGNED', signed_at = now(), read_status = 'OPENED' WHERE envelope_id = $1 AND id = $2`, []any{id, rs[0].ID}},
		{`INSERT INTO direct_link_documents (envelope_id, template_envelope_id, visitor_recipient_id) VALUES ($1, 'envelope_template', $2)`, []any{id, rs[0].ID}},
	} {
		if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if v, err := s.finder.examine(ctx, id, time.Now()); err != nil || !v.Owed || v.Run != workflows.RunMissing {
		t.Fatalf("examine: %+v %v, want a run owed", v, err)
	}
	if v, err := s.finder.examine(ctx, other, time.Now()); err != nil || v.Owed || !v.Stuck {
		t.Fatalf("examine the other: %+v %v, want stuck and no run owed", v, err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if left, err := s.finder.tend(ctx, time.Now(), log); err != nil || left != 1 {
		t.Fatalf("tend: %d left, %v; want the other envelope alone", left, err)
	}
	if run, err := s.finder.flows.RunOf(ctx, id); err != nil || run != workflows.RunRunning {
		t.Fatalf("run of %s: %s %v, want running", id, run, err)
	}
	var ids []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ids = s.messageIDs(t, rs[1].Email); len(ids) > 0 {
			break
		}
	}
	if len(ids) != 1 || !isKind(envelope.MailSigningRequest)(ids[0]) {
		t.Errorf("the other signer got %q, want one signing request", ids)
	}
	if got := s.messageIDs(t, rs[0].Email); len(got) != 0 {
		t.Errorf("the visitor, who signed already, got %q", got)
	}
	if left, err := s.finder.tend(ctx, time.Now(), log); err != nil || left != 1 {
		t.Errorf("tend again: %d left, %v; want the other envelope alone", left, err)
	}
}
