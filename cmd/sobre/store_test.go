package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A process that opens the store seals the tokens that migration 00011 left in the clear, with
// the keys of SOBRE_PAYLOAD_KEYS_FILE, and then reads them back through the seal.
func TestOpenStoreSealsPlainTokens(t *testing.T) {
	url := pgtest.NewURL(t)
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte(keyring.NewKeyLine("k1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": url, "SOBRE_PAYLOAD_KEYS_FILE": keys, "SOBRE_SEAL_DEV_DIR": t.TempDir()}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	// A recipient as migration 00011 leaves a row written before it: hash and plain token.
	store0, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := store0.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoe", Role: envelope.RoleSigner}}},
	}
	var id string
	if err := store0.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	store0.Close()
	const old = "PlainTokenFromBeforeMigration011"
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE recipients SET token = $1, token_hash = sha256(convert_to($1, 'UTF8')), token_sealed = NULL, token_key_id = NULL`, old); err != nil {
		t.Fatal(err)
	}

	store, err := openTokenStore(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var plain int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM recipients WHERE token IS NOT NULL OR token_key_id <> 'k1'`).Scan(&plain); err != nil {
			t.Fatal(err)
		}
		if plain == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tokens still in the clear", plain)
		}
		time.Sleep(50 * time.Millisecond)
	}
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil || e.Recipients[0].Token != old {
		t.Fatalf("after sealing: %v, token %q", err, e.Recipients[0].Token)
	}
	if r, err := store.RecipientByToken(ctx, old); err != nil || r.ID != e.Recipients[0].ID {
		t.Errorf("the old link after sealing: %v", err)
	}
}
