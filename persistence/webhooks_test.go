package persistence_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// webhookFixture is a store with a database connection behind its back, Acme's admin and a
// webhook of Acme's subscribed to triggers.
type webhookFixture struct {
	t      *testing.T
	store  *persistence.Store
	conn   *pgx.Conn
	admin  envelope.Member
	hookID string
}

func newWebhookFixture(t *testing.T, triggers ...envelope.WebhookEvent) *webhookFixture {
	t.Helper()
	ctx := context.Background()
	store, url := pgtest.NewWithURL(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	admin, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	f := &webhookFixture{t: t, store: store, conn: conn, admin: admin}
	f.hookID = f.create(triggers...).ID
	return f
}

func (f *webhookFixture) create(triggers ...envelope.WebhookEvent) persistence.Webhook {
	f.t.Helper()
	w, err := f.store.CreateWebhook(context.Background(), f.admin, persistence.NewWebhook{URL: "https://hooks.example.com/in",
		EventTriggers: triggers, Enabled: true, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})
	if err != nil {
		f.t.Fatal(err)
	}
	return w
}

// events are the outbox's events of envelope id, in the order of their calls to the fixture's
// webhook, with each payload.
func (f *webhookFixture) events(id string) ([]string, []map[string]any) {
	f.t.Helper()
	rows, err := f.conn.Query(context.Background(), `SELECT e.event, e.payload::text FROM webhook_calls c JOIN webhook_events e ON e.id = c.event_id
		WHERE c.envelope_id = $1 AND c.webhook_id = $2 ORDER BY c.seq`, id, f.hookID)
	if err != nil {
		f.t.Fatal(err)
	}
	var names []string
	var payloads []map[string]any
	for rows.Next() {
		var name, raw string
		if err := rows.Scan(&name, &raw); err != nil {
			f.t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			f.t.Fatal(err)
		}
		names, payloads = append(names, name), append(payloads, p)
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return names, payloads
}

// Each change writes the events its webhooks subscribe to, in the transaction of the change and
// in order, with the envelope as it was then and without any signing token; an event nobody
// subscribes to writes nothing, and a change rolled back writes nothing either.
func TestWebhookOutbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentCreated, envelope.WebhookDocumentSent, envelope.WebhookDocumentCancelled)
	id := draftWithOneSigner(t, f.store, "outbox")
	if _, err := f.store.MarkPending(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	names, payloads := f.events(id)
	if !slices.Equal(names, []string{"DOCUMENT_CREATED", "DOCUMENT_SENT"}) {
		t.Fatalf("events %v, want DOCUMENT_CREATED, DOCUMENT_SENT", names)
	}
	if payloads[0]["status"] != "DRAFT" || payloads[1]["status"] != "PENDING" || payloads[1]["id"] != id {
		t.Errorf("payloads are not the envelope as it was: %v / %v, id %v", payloads[0]["status"], payloads[1]["status"], payloads[1]["id"])
	}
	for _, p := range payloads {
		recipients, _ := p["recipients"].([]any)
		if len(recipients) != 1 {
			t.Fatalf("payload recipients: %v", p["recipients"])
		}
		if tok := recipients[0].(map[string]any)["token"]; tok != "" {
			t.Errorf("a payload carries the recipient's token %q", tok)
		}
	}
	e, err := f.store.GetEnvelope(ctx, persistence.ScopeOf(f.admin), id)
	if err != nil || e.Recipients[0].Token == "" {
		t.Fatalf("the owner reads no token: %v", err)
	}
	var raw string
	if err := f.conn.QueryRow(ctx, `SELECT string_agg(payload::text, '') FROM webhook_events WHERE envelope_id = $1`, id).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw, e.Recipients[0].Token) {
		t.Error("an outbox payload holds the recipient's token")
	}

	// A change rolled back leaves no event behind.
	boom := errors.New("boom")
	err = f.store.InTx(ctx, func(tx *persistence.Tx) error {
		if err := tx.Record(ctx, envelope.CancelledEvent(id, "no", time.Now()), envelope.SystemActor()); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if names, _ := f.events(id); len(names) != 2 {
		t.Errorf("after a rollback: %v", names)
	}
	// A disabled webhook gets nothing.
	off := false
	if _, err := f.store.UpdateWebhook(ctx, f.admin.TeamID, f.hookID, persistence.WebhookUpdate{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.FinishEnvelope(ctx, envelope.CancelledEvent(id, "no", time.Now()), envelope.SystemActor()); err != nil {
		t.Fatal(err)
	}
	if names, _ := f.events(id); len(names) != 2 {
		t.Errorf("a disabled webhook was sent %v", names)
	}
}

// Deleting a template sends TEMPLATE_DELETED, and removing a PENDING document (its owner deleted
// it) DOCUMENT_CANCELLED, each with the envelope as it was just before; a removed draft sends
// nothing, and a removal run again sends nothing more.
func TestWebhookOnHardDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentCancelled, envelope.WebhookTemplateDeleted)
	pending := draftWithOneSigner(t, f.store, "pending")
	if _, err := f.store.MarkPending(ctx, pending, nil); err != nil {
		t.Fatal(err)
	}
	draft := draftWithOneSigner(t, f.store, "draft")
	for range 2 {
		for _, id := range []string{pending, draft} {
			if err := f.store.HardDelete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if names, payloads := f.events(pending); !slices.Equal(names, []string{"DOCUMENT_CANCELLED"}) || payloads[0]["status"] != "PENDING" {
		t.Errorf("removed pending document: %v", names)
	}
	if names, _ := f.events(draft); len(names) != 0 {
		t.Errorf("removed draft: %v", names)
	}
}

// A webhook's secret is kept sealed, read back by the delivery only, and after a rotation both
// secrets sign until the old one's time is up; another team never reaches the webhook.
func TestWebhookSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentSent)
	var sealed []byte
	if err := f.conn.QueryRow(ctx, `SELECT secret FROM webhooks WHERE id = $1`, f.hookID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")) {
		t.Fatal("the secret is stored in clear")
	}
	secrets, compat, err := f.store.WebhookSecrets(ctx, f.hookID, time.Now())
	if err != nil || !slices.Equal(secrets, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}) || compat != "" {
		t.Fatalf("secrets %v %q %v", secrets, compat, err)
	}
	if _, err := f.store.RotateWebhookSecret(ctx, f.admin.TeamID, f.hookID, "whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=", time.Hour); err != nil {
		t.Fatal(err)
	}
	secrets, _, _ = f.store.WebhookSecrets(ctx, f.hookID, time.Now())
	if len(secrets) != 2 || secrets[0] != "whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=" {
		t.Fatalf("after a rotation: %v", secrets)
	}
	if secrets, _, _ = f.store.WebhookSecrets(ctx, f.hookID, time.Now().Add(2*time.Hour)); len(secrets) != 1 {
		t.Fatalf("after the old secret's time: %v", secrets)
	}
	other, err := f.store.EnsureMember(ctx, "Other", "olga@other.cl", "Olga", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Webhook(ctx, other.TeamID, f.hookID); !envelope.IsNotFound(err) {
		t.Errorf("another team reads the webhook: %v", err)
	}
	if _, err := f.store.RotateWebhookSecret(ctx, other.TeamID, f.hookID, "whsec_x", time.Hour); !envelope.IsNotFound(err) {
		t.Errorf("another team rotates the secret: %v", err)
	}
	if err := f.store.DeleteWebhook(ctx, other.TeamID, f.hookID); !envelope.IsNotFound(err) {
		t.Errorf("another team deletes the webhook: %v", err)
	}
}

// An attempt is made by one worker at a time: another is held off while the lease runs, takes it
// over once it passed (the first worker died), and the first can then no longer record it; an
// attempt recorded is never made again.
func TestWebhookAttemptClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentCreated)
	id := draftWithOneSigner(t, f.store, "claims")
	callID, attempts, found, err := f.store.NextWebhookCall(ctx, f.hookID, id)
	if err != nil || !found || attempts != 0 {
		t.Fatalf("next call: %v %v %v", found, attempts, err)
	}
	d, err := f.store.ClaimWebhookAttempt(ctx, callID, 1, "a", -time.Second)
	if err != nil || d.Done != "" || !d.Enabled || d.Event != envelope.WebhookDocumentCreated || d.URL != "https://hooks.example.com/in" {
		t.Fatalf("first claim: %+v %v", d, err)
	}
	if _, err := f.store.ClaimWebhookAttempt(ctx, callID, 1, "b", time.Minute); err != nil {
		t.Fatalf("a lease passed is taken over: %v", err)
	}
	if _, err := f.store.ClaimWebhookAttempt(ctx, callID, 1, "c", time.Minute); !errors.Is(err, persistence.ErrAttemptHeld) {
		t.Fatalf("a held attempt: %v", err)
	}
	if err := f.store.FinishWebhookAttempt(ctx, callID, 1, "a", persistence.AttemptResult{Outcome: envelope.WebhookFailed}); !errors.Is(err, persistence.ErrAttemptLost) {
		t.Fatalf("the worker that lost it records it: %v", err)
	}
	if err := f.store.FinishWebhookAttempt(ctx, callID, 1, "b", persistence.AttemptResult{Outcome: envelope.WebhookSuccess, ResponseCode: 204}); err != nil {
		t.Fatal(err)
	}
	if d, err := f.store.ClaimWebhookAttempt(ctx, callID, 1, "d", time.Minute); err != nil || d.Done != envelope.WebhookSuccess {
		t.Fatalf("an attempt made is not made again: %+v %v", d, err)
	}
	if _, _, found, _ := f.store.NextWebhookCall(ctx, f.hookID, id); found {
		t.Error("a delivered call is still next")
	}
	calls, n, err := f.store.WebhookCalls(ctx, f.admin.TeamID, f.hookID, "", 1, 10)
	if err != nil || n != 1 || calls[0].Status != persistence.CallSuccess || len(calls[0].History) != 1 || *calls[0].History[0].ResponseCode != 204 {
		t.Fatalf("calls: %+v %d %v", calls, n, err)
	}
	again, err := f.store.ResendWebhookCall(ctx, f.admin.TeamID, callID)
	if err != nil || again.EventID != calls[0].EventID || again.Status != persistence.CallPending {
		t.Fatalf("resend: %+v %v", again, err)
	}
	// The delivered call goes; the resent one, still to deliver, stays.
	purged, err := f.store.PurgeWebhookCalls(ctx, time.Now().Add(time.Minute))
	if err != nil || purged != 1 {
		t.Fatalf("purge: %d %v", purged, err)
	}
}

// A reminder mailed sends DOCUMENT_REMINDER_SENT (a request sends nothing), and a deadline
// passing RECIPIENT_EXPIRED, once.
func TestWebhookReminderAndExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentReminderSent, envelope.WebhookRecipientExpired)
	id := draftWithOneSigner(t, f.store, "deadlines")
	past := time.Now().Add(-time.Minute)
	if _, err := f.store.MarkPending(ctx, id, &past); err != nil {
		t.Fatal(err)
	}
	e, err := f.store.GetEnvelope(ctx, persistence.ScopeOf(f.admin), id)
	if err != nil {
		t.Fatal(err)
	}
	rid := e.Recipients[0].ID
	if err := f.store.MarkSent(ctx, id, rid, "SIGNING_REQUEST", true, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.store.MarkSent(ctx, id, rid, envelope.EmailTypeReminder, true, false, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.store.ExpireRecipients(ctx, id, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	names, payloads := f.events(id)
	if !slices.Equal(names, []string{"DOCUMENT_REMINDER_SENT", "RECIPIENT_EXPIRED"}) {
		t.Fatalf("events %v", names)
	}
	if r := payloads[1]["recipients"].([]any)[0].(map[string]any); r["expirationNotifiedAt"] == nil {
		t.Errorf("RECIPIENT_EXPIRED's payload does not show the expiry: %v", r)
	}
}

// A webhook carries only what the member who made it may read: a MANAGER's gets no event of an
// envelope only ADMINs see, an ADMIN's does.
func TestWebhookCarriesWhatItsMakerMaySee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWebhookFixture(t, envelope.WebhookDocumentCreated)
	manager, err := f.store.EnsureMember(ctx, "Acme", "mario@acme.cl", "Mario", envelope.TeamRoleManager)
	if err != nil {
		t.Fatal(err)
	}
	managers, err := f.store.CreateWebhook(ctx, manager, persistence.NewWebhook{URL: "https://hooks.example.com/manager",
		EventTriggers: []envelope.WebhookEvent{envelope.WebhookDocumentCreated}, Enabled: true, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})
	if err != nil {
		t.Fatal(err)
	}
	create := func(v envelope.Visibility) string {
		var id string
		in := persistence.NewEnvelope{Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: v,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
			Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF " + string(v)), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}}}
		if err := f.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
			id, err = tx.CreateEnvelope(ctx, f.admin, in, envelope.SystemActor())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	hidden, shared := create(envelope.VisibilityAdmin), create(envelope.VisibilityManagerAndAbove)
	count := func(hook, id string) (n int) {
		if err := f.conn.QueryRow(ctx, `SELECT count(*) FROM webhook_calls WHERE webhook_id = $1 AND envelope_id = $2`, hook, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		hook, id string
		want     int
	}{{managers.ID, hidden, 0}, {managers.ID, shared, 1}, {f.hookID, hidden, 1}, {f.hookID, shared, 1}} {
		if got := count(c.hook, c.id); got != c.want {
			t.Errorf("webhook %s, envelope %s: %d calls, want %d", c.hook, c.id, got, c.want)
		}
	}
}
