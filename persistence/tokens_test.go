package persistence_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// tablesHolding returns the tables of the database at url that hold s anywhere in a row's text
// form (bytea columns appear as hex, so a hash or a sealed value of s does not match).
func tablesHolding(t *testing.T, url, s string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, table := range tables {
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %s x WHERE strpos(x::text, $1) > 0`, pgx.Identifier{table}.Sanitize())
		if err := conn.QueryRow(ctx, q, s).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n > 0 {
			out = append(out, table)
		}
	}
	return out
}

func TestTokensAreKeptAsHashAndSealed(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	id := draftWithOneSigner(t, store, "tokens")
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := e.Recipients[0]
	if len(rec.Token) != 32 {
		t.Fatalf("the owner's read gives token %q", rec.Token)
	}
	if where := tablesHolding(t, url, rec.Token); len(where) > 0 {
		t.Errorf("the token is in the clear in %v", where)
	}
	got, err := store.RecipientByToken(ctx, rec.Token)
	if err != nil || got.ID != rec.ID {
		t.Fatalf("RecipientByToken = %d, %v; want %d", got.ID, err, rec.ID)
	}
	if _, err := store.RecipientByToken(ctx, strings.ToLower(rec.Token)); !envelope.IsNotFound(err) {
		t.Errorf("a different token found a recipient: %v", err)
	}

	// A replaced link: the new token is kept the same way, the old one no longer signs.
	if err := store.InTx(ctx, func(tx *persistence.Tx) error { return tx.ReplaceLink(ctx, rec) }); err != nil {
		t.Fatal(err)
	}
	after, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fresh := after.Recipients[0].Token
	if len(fresh) != 32 || fresh == rec.Token {
		t.Fatalf("after the replacement: token %q (was %q)", fresh, rec.Token)
	}
	if where := tablesHolding(t, url, fresh); len(where) > 0 {
		t.Errorf("the new token is in the clear in %v", where)
	}
	if _, err := store.RecipientByToken(ctx, rec.Token); !envelope.IsNotFound(err) {
		t.Errorf("the replaced token still finds its recipient: %v", err)
	}
	if got, err := store.RecipientByToken(ctx, fresh); err != nil || got.ID != rec.ID {
		t.Errorf("the new token: %d, %v", got.ID, err)
	}

	// A Store with other keys cannot open the token; one without keys reads no token and
	// makes none.
	other, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.EnvelopeForRecipient(ctx, id); err == nil {
		t.Error("a Store with another key opened the token")
	}
	bare, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if e, err := bare.EnvelopeForRecipient(ctx, id); err != nil || e.Recipients[0].Token != "" {
		t.Errorf("a Store without keys: %v, token %q", err, e.Recipients[0].Token)
	}
	if _, err := bare.RecipientByToken(ctx, fresh); err != nil {
		t.Errorf("a Store without keys still looks tokens up by hash: %v", err)
	}
	if err := bare.InTx(ctx, func(tx *persistence.Tx) error { return tx.ReplaceLink(ctx, rec) }); !errors.Is(err, persistence.ErrNoKeyring) {
		t.Errorf("a Store without keys replaced a link: %v", err)
	}
}

// TestSealedTokenIsBoundToItsRecipient: a sealed token copied onto another recipient's row does
// not open there.
func TestSealedTokenIsBoundToItsRecipient(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	a := draftWithOneSigner(t, store, "bound a")
	b := draftWithOneSigner(t, store, "bound b")
	exec(t, url, `UPDATE recipients SET token_sealed = (SELECT token_sealed FROM recipients r JOIN envelopes e ON e.id = r.envelope_id WHERE e.id = $1)
		WHERE envelope_id = $2`, a, b)
	if _, err := store.EnvelopeForRecipient(ctx, a); err != nil {
		t.Fatalf("the original row: %v", err)
	}
	if _, err := store.EnvelopeForRecipient(ctx, b); err == nil {
		t.Error("a token sealed for one recipient opened as another's")
	}
}

func exec(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestMigrationThenSealingLeavesNoPlainToken starts from the schema before 00011 with plain
// tokens (more than one sealing batch of them), migrates, and seals: every link keeps working at
// each step, and at the end the database holds no token in the clear while the owner's reads
// still give each one.
func TestMigrationThenSealingLeavesNoPlainToken(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if v, err := persistence.MigrateTo(ctx, url, log, 10); err != nil || v != 10 {
		t.Fatalf("migrate to 10: %d, %v", v, err)
	}
	const n = 1201
	exec(t, url, `INSERT INTO teams (name, url) VALUES ('Acme', 'acme')`)
	exec(t, url, `INSERT INTO users (email, name) VALUES ('ana@acme.cl', 'Ana')`)
	exec(t, url, `INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, user_id, team_id, document_meta)
		VALUES ('envelope_old', 'document_1', 1, 'DOCUMENT', 'PENDING', 'DOCUMENT', 'EVERYONE', 'Antiguo',
		(SELECT id FROM users), (SELECT id FROM teams), '{}')`)
	exec(t, url, `INSERT INTO recipients (envelope_id, email, name, role, token)
		SELECT 'envelope_old', 'r' || g || '@acme.cl', 'R' || g, 'SIGNER', 'OldToken' || lpad(g::text, 24, '0') FROM generate_series(1, $1) g`, n)
	token := func(i int) string { return fmt.Sprintf("OldToken%024d", i) }

	if _, err := persistence.Migrate(ctx, url, log); err != nil {
		t.Fatal(err)
	}
	ring := pgtest.Keyring(t)
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(ring))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// Migrated, not sealed yet: found by the hash the migration computed.
	for _, i := range []int{1, 600, n} {
		r, err := store.RecipientByToken(ctx, token(i))
		if err != nil || r.Email != fmt.Sprintf("r%d@acme.cl", i) {
			t.Fatalf("before sealing, token %d: %v %v", i, r.Email, err)
		}
	}
	h := sha256.Sum256([]byte(token(7)))
	var hashed int
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM recipients WHERE token_hash = $1 AND email = 'r7@acme.cl'`, h[:]).Scan(&hashed); err != nil || hashed != 1 {
		t.Fatalf("the migration's hash of token 7: %d rows, %v", hashed, err)
	}

	sealed, err := store.SealPlainTokens(ctx)
	if err != nil || sealed != n {
		t.Fatalf("SealPlainTokens = %d, %v; want %d", sealed, err, n)
	}
	if again, err := store.SealPlainTokens(ctx); err != nil || again != 0 {
		t.Fatalf("SealPlainTokens again = %d, %v; want 0", again, err)
	}
	var plain int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM recipients WHERE token IS NOT NULL OR token_sealed IS NULL`).Scan(&plain); err != nil || plain != 0 {
		t.Fatalf("%d rows still plain or unsealed, %v", plain, err)
	}
	for _, i := range []int{1, 600, n} {
		if where := tablesHolding(t, url, token(i)); len(where) > 0 {
			t.Errorf("token %d is in the clear in %v", i, where)
		}
		if r, err := store.RecipientByToken(ctx, token(i)); err != nil || r.Email != fmt.Sprintf("r%d@acme.cl", i) {
			t.Errorf("after sealing, token %d: %v %v", i, r.Email, err)
		}
	}
	e, err := store.EnvelopeForRecipient(ctx, "envelope_old")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range e.Recipients {
		if r.Token != token(i+1) {
			t.Fatalf("recipient %d reads token %q, want %q", r.ID, r.Token, token(i+1))
		}
	}
	var keyID string
	if err := conn.QueryRow(ctx, `SELECT DISTINCT token_key_id FROM recipients`).Scan(&keyID); err != nil || keyID != ring.PrimaryID() {
		t.Errorf("sealed with key %q, %v; want %q", keyID, err, ring.PrimaryID())
	}
	var plan string
	if err := conn.QueryRow(ctx, `EXPLAIN SELECT id FROM recipients WHERE token_hash = $1`, h[:]).Scan(&plan); err != nil || !strings.Contains(plan, "Index") {
		t.Errorf("a lookup by hash is planned as %q (%v), want an index scan", plan, err)
	}
}

// TestKeyRotationOpensOldTokens: a ring whose new first key seals still opens tokens sealed with
// the key before it.
func TestKeyRotationOpensOldTokens(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	oldLine := keyring.NewKeyLine("k1")
	oldRing, err := keyring.Parse([]byte(oldLine))
	if err != nil {
		t.Fatal(err)
	}
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(oldRing))
	if err != nil {
		t.Fatal(err)
	}
	id := draftWithOneSigner(t, store, "rotation")
	e, err := store.EnvelopeForRecipient(ctx, id)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := keyring.Parse([]byte(keyring.NewKeyLine("k2") + "\n" + oldLine))
	if err != nil {
		t.Fatal(err)
	}
	store, err = persistence.Open(ctx, url, persistence.WithKeyring(rotated))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	again, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil || again.Recipients[0].Token != e.Recipients[0].Token {
		t.Fatalf("after rotation: %v, token %q want %q", err, again.Recipients[0].Token, e.Recipients[0].Token)
	}
}

// An envelope a scope cannot see is not found, even when reading its children fails (here its
// signer's token, sealed under other keys): the failure would tell it apart from an envelope
// that does not exist. Its own team meets the failure.
func TestUnseenEnvelopeIsNotFoundWhateverItsChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, url := pgtest.NewWithURL(t)
	id := draftWithOneSigner(t, store, "unseen")
	other, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stranger, err := other.EnsureMember(ctx, "Globex", "eve@globex.cl", "Eve", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetEnvelope(ctx, persistence.ScopeOf(stranger), id); !envelope.IsNotFound(err) {
		t.Errorf("another team's read of an envelope whose token does not open: %v, want not found", err)
	}
	owner, err := other.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetEnvelope(ctx, persistence.ScopeOf(owner), id); err == nil || envelope.IsNotFound(err) {
		t.Errorf("its own team's read: %v, want the token's failure", err)
	}
}
