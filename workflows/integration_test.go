package workflows_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
	"github.com/sobre-sign/sobre/internal/smtptest"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
	"github.com/sobre-sign/sobre/seal"
	sobreworker "github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// stack is a real worker (real activities, PostgreSQL, SMTP sink) on the dev server.
type stack struct {
	store *persistence.Store
	c     client.Client
	flows *workflows.Client
	queue string
}

func smtpURL(t testing.TB) string {
	u := os.Getenv("SOBRE_TEST_SMTP_URL")
	if u == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_SMTP_URL is not set")
		}
		t.Skip("SOBRE_TEST_SMTP_URL not set: run `make test` for the real mail sink")
	}
	return u
}

// newStack starts the worker; each of override registers, over its real activities, what the
// test puts in their place.
func newStack(t testing.TB, override ...func(sdkworker.Registry, *activities.Activities)) *stack {
	t.Helper()
	return newStackOn(t, pgtest.New(t), smtpURL(t), nil, override...)
}

// newStackRelaying is newStack with its mails sent through relay, which it starts.
func newStackRelaying(t testing.TB, relay *smtptest.Relay) *stack {
	t.Helper()
	relay.Start(t)
	return newStackOn(t, pgtest.New(t), relay.URL(), nil)
}

// newStackWith is newStack on store, its worker's activities changed by tune when set.
func newStackWith(t testing.TB, store *persistence.Store, tune func(*activities.Activities)) *stack {
	t.Helper()
	return newStackOn(t, store, smtpURL(t), tune)
}

// newStackOn starts the worker on store, mailing through relayURL, its activities changed by
// tune when set and then by each of override.
func newStackOn(t testing.TB, store *persistence.Store, relayURL string, tune func(*activities.Activities),
	override ...func(sdkworker.Registry, *activities.Activities)) *stack {
	t.Helper()
	c := temporaltest.Client(t, nil)
	queue := temporaltest.TaskQueue(t)
	sender, err := mail.NewSender(relayURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	acts := &activities.Activities{Store: store, Mail: sender, PublicURL: "http://sobre.test", MailHost: "sobre.test", Log: log, Seal: testSeal(t)}
	if tune != nil {
		tune(acts)
	}
	w, err := sobreworker.New(c, sobreworker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log, Activities: acts})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range override {
		o(w, acts)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	// A workflow working through a backlog (the continue-as-new test's 1,500 signals) on a loaded
	// test machine may take longer than the default call deadline to answer an update.
	flows := &workflows.Client{Temporal: c, TaskQueue: queue, CallTimeout: time.Minute}
	return &stack{store: store, c: c, flows: flows, queue: queue}
}

// draft writes an envelope with two signers, after an approver when approver is set, straight
// to the store.
func (s *stack) draft(t testing.TB, so envelope.SigningOrder, approver bool) (string, []envelope.Recipient) {
	t.Helper()
	ctx := context.Background()
	m, err := s.store.EnsureMember(ctx, "Acme", "owner@acme.test", "Owner", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	meta := envelope.DefaultMeta("")
	meta.SigningOrder = so
	one, two := 1, 2
	sig := func() []persistence.NewField {
		return []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Integración", Meta: meta},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal("integration " + time.Now().Format(time.RFC3339Nano)), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{
			{Recipient: envelope.Recipient{Email: "s1@acme.test", Name: "S1", Role: envelope.RoleSigner, SigningOrder: &two}, Fields: sig()},
			{Recipient: envelope.Recipient{Email: "s2@acme.test", Name: "S2", Role: envelope.RoleSigner, SigningOrder: &two}, Fields: sig()},
		},
	}
	if approver {
		a := persistence.NewRecipient{Recipient: envelope.Recipient{Email: "approver@acme.test", Name: "Approver", Role: envelope.RoleApprover, SigningOrder: &one}}
		in.Recipients = append([]persistence.NewRecipient{a}, in.Recipients...)
	}
	var id string
	if err := s.store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
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

// sign fills the recipient's signature fields as a signing page would.
func (s *stack) sign(t testing.TB, id string, r envelope.Recipient) {
	t.Helper()
	ctx := context.Background()
	e, err := s.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range e.Fields {
		if f.RecipientID == r.ID {
			typed := r.Name
			if _, err := s.store.InsertFieldValue(ctx, r, f.ID, &persistence.FieldValue{CustomText: typed, Typed: &typed}, "", envelope.Actor{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A whole life cycle on the real server, and its history replayed through today's code.
func TestEnvelopeLifeCycleOnTheRealServerReplays(t *testing.T) {
	s := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderSequential, true)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatalf("a second distribute must be harmless: %v", err)
	}
	snap, err := s.store.LoadSnapshot(ctx, id)
	if err != nil || snap.Status != envelope.StatusPending {
		t.Fatalf("after distribute: %v %v", snap.Status, err)
	}
	state, err := s.flows.State(ctx, id)
	if err != nil || len(state.MayActNow) != 1 || state.MayActNow[0] != rs[0].ID {
		t.Fatalf("state %+v %v", state, err)
	}
	err = s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: rs[1].ID})
	if envelope.ErrorCode(err) != envelope.CodeRecipientOutOfTurn {
		t.Fatalf("signer before the approver: %v, want RECIPIENT_OUT_OF_TURN", err)
	}
	for _, r := range rs {
		s.sign(t, id, r)
		if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID}); err != nil {
			t.Fatalf("complete %d: %v", r.ID, err)
		}
	}
	run := s.c.GetWorkflow(ctx, id, "")
	if err := run.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if snap, _ = s.store.LoadSnapshot(ctx, id); snap.Status != envelope.StatusCompleted {
		t.Fatalf("final status %s", snap.Status)
	}
	// Search attributes let ops find it.
	resp, err := s.c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.TypedSearchAttributes; got.Size() == 0 {
		t.Errorf("no search attributes on the workflow")
	} else if v, ok := got.GetKeyword(workflows.AttrStatus); !ok || v != "COMPLETED" {
		t.Errorf("EnvelopeStatus = %q, want COMPLETED", v)
	}

	hist := temporaltest.History(t, s.c, id)
	// The history is kept by Temporal and shown in its Web UI: no signing token may be in it.
	raw, err := proto.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Token == "" || bytes.Contains(raw, []byte(r.Token)) {
			t.Errorf("the workflow's history holds recipient %d's signing token (or the test has none: %q)", r.ID, r.Token)
		}
	}
	if err := temporaltest.Replayer(t).ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("today's code does not replay the history it just wrote: %v", err)
	}
	// SOBRE_RECORD_HISTORY=1 records the history for the replay test, its payloads decrypted
	// (the file is read and reviewed as it is; the replayer takes plain payloads as they are).
	if os.Getenv("SOBRE_RECORD_HISTORY") != "" {
		writeHistory(t, hist, "sequential-approver-two-signers-v5.json")
	}
}

// writeHistory records hist under testdata as file, its payloads decrypted.
func writeHistory(t *testing.T, hist *historypb.History, file string) {
	t.Helper()
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(decrypted(t, hist))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", file), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// decrypted is a copy of hist with its payloads decrypted, as recorded for the replay tests
// (the file is read and reviewed as it is; the replayer takes plain payloads as they are).
func decrypted(t *testing.T, hist *historypb.History) *historypb.History {
	t.Helper()
	plain := proto.Clone(hist).(*historypb.History)
	codec := payloadcodec.New(temporaltest.Keys())
	eachPayload(plain.ProtoReflect(), false, func(p *commonpb.Payload, _ bool) {
		if !payloadcodec.Encrypted(p) {
			return
		}
		d, err := codec.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		p.Metadata, p.Data = d.Metadata, d.Data
	})
	return plain
}

// testSeal is a self-signed seal made for the test.
func testSeal(t testing.TB) *seal.Signer {
	t.Helper()
	s, _, err := seal.DevSeal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The complete Update is decided by the activity that records it, under the envelope's lock:
// without the session that holds the recipient's proofs, with another recipient's session, or
// through a link replaced since, it completes nothing.
func TestTheCompleteUpdateChecksTheSessionsProofs(t *testing.T) {
	s := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs := s.draft(t, envelope.SigningOrderParallel, false)
	next := rs[0]
	next.AuthOptions.ActionAuth = []envelope.ActionAuth{envelope.ActionAuthClaveUnica}
	if err := s.store.InTx(ctx, func(tx *persistence.Tx) error {
		_, err := tx.UpdateRecipient(ctx, next)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	signer, err := s.store.RecipientForSigning(ctx, rs[0].ID)
	if err != nil || signer.LinkVersion != 1 {
		t.Fatalf("after the auth change: link version %d, %v", signer.LinkVersion, err)
	}
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	s.sign(t, id, signer)
	other := []byte("another-recipients-session-00000")
	if err := s.store.StartCeremony(ctx, other, rs[1].ID, rs[1].Token, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	otherSession, err := s.store.CeremonyByHash(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	current, replaced := 1, 0
	for _, c := range []struct {
		name string
		req  workflows.CompleteRequest
		want envelope.Code
	}{
		{"no session", workflows.CompleteRequest{RecipientID: signer.ID, LinkVersion: &current}, envelope.CodeUnauthorized},
		{"an unknown session", workflows.CompleteRequest{RecipientID: signer.ID, LinkVersion: &current, SessionID: strings.Repeat("ab", 32)}, envelope.CodeUnauthorized},
		{"another recipient's session", workflows.CompleteRequest{RecipientID: signer.ID, LinkVersion: &current, SessionID: otherSession.ID}, envelope.CodeUnauthorized},
		{"a replaced link", workflows.CompleteRequest{RecipientID: signer.ID, LinkVersion: &replaced}, envelope.CodeLinkReplaced},
	} {
		if err := s.flows.Complete(ctx, id, c.req); envelope.ErrorCode(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if snap, err := s.store.LoadSnapshot(ctx, id); err != nil || snap.Recipient(signer.ID).SigningStatus != envelope.SigningStatusNotSigned {
		t.Fatalf("after the refusals the signer is %v (%v)", snap.Recipient(signer.ID).SigningStatus, err)
	}
	// The recipient without proofs to give completes through its link as before.
	s.sign(t, id, rs[1])
	if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: rs[1].ID}); err != nil {
		t.Fatalf("the other signer: %v", err)
	}
}
