package persistence_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestAuditChainHoldsAndShowsTampering(t *testing.T) {
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana <Admin> & Co", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "José Ñúñez", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF chain"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoë Łukasz-Ğüç", Role: envelope.RoleSigner}}},
	}
	var id string
	a := persistence.MemberActor(m, "203.0.113.7", "Mozilla/5.0 <test>")
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		if id, err = tx.CreateEnvelope(ctx, m, in, a); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, id, "DOCUMENT_META_UPDATED", map[string]any{"changes": []any{map[string]any{"type": "SUBJECT", "from": nil, "to": "<b>firme</b> ya"}}}, a)
	}); err != nil {
		t.Fatal(err)
	}
	n, final, err := store.VerifyAudit(ctx, id)
	if err != nil || n != 4 || len(final) != 64 {
		t.Fatalf("fresh log: %d entries, final %q, %v", n, final, err)
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, id); err != nil {
			t.Fatal(err)
		}
	}
	// A changed value.
	exec(`UPDATE audit_logs SET data = jsonb_set(data, '{title}', '"Otro"') WHERE envelope_id = $1 AND type = 'DOCUMENT_CREATED'`)
	_, _, err = store.VerifyAudit(ctx, id)
	var br *persistence.ChainBreak
	if !errors.As(err, &br) || br.Type != "DOCUMENT_CREATED" || !strings.Contains(br.Reason, "changed") {
		t.Fatalf("changed entry: %v", err)
	}
	exec(`UPDATE audit_logs SET data = jsonb_set(data, '{title}', '"José Ñúñez"') WHERE envelope_id = $1 AND type = 'DOCUMENT_CREATED'`)
	if _, _, err := store.VerifyAudit(ctx, id); err != nil {
		t.Fatalf("restored entry: %v", err)
	}
	// A changed actor, then a removed entry.
	exec(`UPDATE audit_logs SET ip_address = '198.51.100.1' WHERE envelope_id = $1 AND type = 'RECIPIENT_CREATED'`)
	if _, _, err := store.VerifyAudit(ctx, id); !errors.As(err, &br) || br.Type != "RECIPIENT_CREATED" {
		t.Fatalf("changed actor: %v", err)
	}
	exec(`DELETE FROM audit_logs WHERE envelope_id = $1 AND type = 'RECIPIENT_CREATED'`)
	if _, _, err := store.VerifyAudit(ctx, id); !errors.As(err, &br) || !strings.Contains(br.Reason, "removed") {
		t.Fatalf("removed entry: %v", err)
	}
}

// Entries written before the chain existed (no hashes, older than migration 00004) are a legacy
// prefix: the log still verifies. A newer entry stripped of its hash is a break.
func TestAuditChainAcceptsALegacyPrefix(t *testing.T) {
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Legacy", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF legacy"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, persistence.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The entry as a release before the chain wrote it: no hashes, and older than the migration.
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET hash = NULL, prev_hash = NULL, created_at = '2020-01-01' WHERE envelope_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		return tx.AppendAudit(ctx, id, "DOCUMENT_VIEWED", map[string]any{"n": 1}, persistence.Actor{})
	}); err != nil {
		t.Fatal(err)
	}
	if n, _, err := store.VerifyAudit(ctx, id); err != nil || n < 2 {
		t.Fatalf("legacy prefix then a chained entry: %d, %v", n, err)
	}
	// The same stripping on a recent entry is tampering.
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET hash = NULL, prev_hash = NULL, created_at = now() WHERE envelope_id = $1 AND type = 'DOCUMENT_CREATED'`, id); err != nil {
		t.Fatal(err)
	}
	var br *persistence.ChainBreak
	if _, _, err := store.VerifyAudit(ctx, id); !errors.As(err, &br) {
		t.Fatalf("a recent entry without a hash: %v", err)
	}
}
