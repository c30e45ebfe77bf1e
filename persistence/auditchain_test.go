package persistence_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestAuditChainHoldsAndShowsTampering(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
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
	a := envelope.MemberActor(m, "203.0.113.7", "Mozilla/5.0 <test>")
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		if id, err = tx.CreateEnvelope(ctx, m, in, a); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, id, envelope.MetaUpdatedAudit([]envelope.AuditChange{{Type: "SUBJECT", From: nil, To: "<b>firme</b> ya"}}), a)
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

// Entries written before the chain existed (no hashes), below the configured cut-over, are a
// legacy prefix: the log still verifies. An entry at or above the cut-over stripped of its hash
// is a break, and a strict verifier (the default cut-over, 0) refuses the legacy prefix.
func TestAuditChainAcceptsALegacyPrefix(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
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
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The entry as a release before the chain wrote it: no hashes.
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET hash = NULL, prev_hash = NULL WHERE envelope_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	// The cut-over an operator configures: the entries from the next one on must be chained.
	var from int64
	if err := conn.QueryRow(ctx, `SELECT max(seq) + 1 FROM audit_logs`).Scan(&from); err != nil {
		t.Fatal(err)
	}
	verifier, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer verifier.Close()
	verifier.SetAuditKeyedFrom(from)
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		return tx.AppendAudit(ctx, id, envelope.Audit{Type: envelope.AuditViewed, Data: map[string]any{"n": 1}}, envelope.Actor{})
	}); err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyAuditChain(ctx, id)
	if err != nil || rep.Entries < 2 || rep.Legacy != rep.Entries-1 {
		t.Fatalf("legacy prefix then a chained entry: %+v, %v", rep, err)
	}
	var br *persistence.ChainBreak
	if _, _, err := store.VerifyAudit(ctx, id); !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "no hash") {
		t.Fatalf("a legacy prefix, verified strictly: %v", err)
	}
	// The same stripping on an entry at or above the cut-over is tampering.
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET hash = NULL, prev_hash = NULL WHERE envelope_id = $1 AND type = 'DOCUMENT_VIEWED'`, id); err != nil {
		t.Fatal(err)
	}
	if _, _, err := verifier.VerifyAudit(ctx, id); !errors.As(err, &br) || br.Type != "DOCUMENT_VIEWED" || !strings.Contains(br.Reason, "no hash") {
		t.Fatalf("an entry above the cut-over without a hash: %v", err)
	}
}

// TestSealReadsNeedOneConnection reads what a seal reads through a pool of one connection: a
// read that queried while holding rows open would need two, and as many concurrent seals as
// the pool has connections would then wait for each other forever (the worker's seals did,
// after a restart, with four).
func TestSealReadsNeedOneConnection(t *testing.T) {
	t.Parallel()
	raw := pgtest.NewURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	store, err := persistence.Open(ctx, u.String(), persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	id := draftWithOneSigner(t, store, "one")
	if _, _, err := store.VerifyAudit(ctx, id); err != nil {
		t.Errorf("VerifyAudit with one connection: %v", err)
	}
	if _, err := store.LoadSealSource(ctx, id); err != nil {
		t.Errorf("LoadSealSource with one connection: %v", err)
	}
}

// TestReplacingALinkEndsItsSessions changes a recipient's email: its token changes, the old one
// is only known as replaced, and the sessions opened through it (and what they proved) end. A
// name change replaces nothing.
func TestReplacingALinkEndsItsSessions(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	id := draftWithOneSigner(t, store, "links")
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := snap.Recipients[0]
	session := []byte("0123456789abcdef0123456789abcdef")
	if err := store.StartCeremony(ctx, session, rec.ID, rec.Token, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	update := func(change func(*envelope.Recipient)) bool {
		t.Helper()
		next := rec
		change(&next)
		var replaced bool
		if err := store.InTx(ctx, func(tx *persistence.Tx) error {
			replaced, err = tx.UpdateRecipient(ctx, next)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return replaced
	}
	if update(func(r *envelope.Recipient) { r.Name = "Zoë" }) {
		t.Fatal("a name change replaced the link")
	}
	if _, err := store.CeremonyByHash(ctx, session); err != nil {
		t.Fatalf("a name change ended the session: %v", err)
	}
	if !update(func(r *envelope.Recipient) { r.Email = "zoe@otro.cl" }) {
		t.Fatal("an email change did not replace the link")
	}
	if _, err := store.CeremonyByHash(ctx, session); !envelope.IsNotFound(err) {
		t.Errorf("the session opened through the old link: %v, want it gone", err)
	}
	if _, err := store.RecipientByToken(ctx, rec.Token); !envelope.IsNotFound(err) {
		t.Errorf("the old token still opens the recipient: %v", err)
	}
	if replaced, err := store.LinkReplaced(ctx, rec.Token); err != nil || !replaced {
		t.Errorf("LinkReplaced(old) = %v, %v", replaced, err)
	}
	after, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Recipients[0]; got.Token == rec.Token || got.Token == "" || after.LinkVersions[rec.ID] != 1 {
		t.Errorf("after the email change: token %q (was %q), link version %d", got.Token, rec.Token, after.LinkVersions[rec.ID])
	}
	if replaced, _ := store.LinkReplaced(ctx, after.Recipients[0].Token); replaced {
		t.Error("the new token counts as replaced")
	}
	// What was read through the old link starts, fills and completes nothing any more.
	if err := store.StartCeremony(ctx, []byte("fedcba9876543210fedcba9876543210"), rec.ID, rec.Token, time.Now().Add(time.Hour)); !errors.Is(err, persistence.ErrLinkReplaced) {
		t.Errorf("a session started through the old link: %v, want ErrLinkReplaced", err)
	}
	if _, err := store.InsertFieldValue(ctx, rec, 1, nil, "", envelope.Actor{}); !errors.Is(err, persistence.ErrLinkReplaced) {
		t.Errorf("a value written through the old link: %v, want ErrLinkReplaced", err)
	}
	if err := store.StartCeremony(ctx, []byte("fedcba9876543210fedcba9876543210"), rec.ID, after.Recipients[0].Token, time.Now().Add(time.Hour)); err != nil {
		t.Errorf("a session started through the new link: %v", err)
	}
}

// draftWithOneSigner writes a draft envelope with one signer and a document holding text, and
// returns its id.
func draftWithOneSigner(t testing.TB, store *persistence.Store, text string) string {
	t.Helper()
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF " + text), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.MemberActor(m, "", ""))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return id
}
