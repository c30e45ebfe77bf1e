package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// The admin command migrates an empty database, makes the team, user and key, and prints the
// key alone on the last line.
func TestAdminCreateEnsureListRevoke(t *testing.T) {
	url := pgtest.NewEmpty(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("SOBRE_LOG_LEVEL", "error")
	ctx := context.Background()

	var out bytes.Buffer
	if err := run([]string{"admin", "create-key", "--team", "Acme", "--email", "ana@acme.cl", "--role", "manager"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	key := lastLine(out.String())
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	keys := &auth.Keys{Store: store}
	got, err := keys.Resolve(ctx, key)
	if err != nil {
		t.Fatalf("printed key %q does not resolve: %v", key, err)
	}
	if got.Member.Role != envelope.TeamRoleManager || got.Member.TeamName != "Acme" {
		t.Errorf("member %+v", got.Member)
	}

	file := filepath.Join(t.TempDir(), "dev-api-key")
	out.Reset()
	if err := run([]string{"admin", "ensure-key", "--file", file, "--team", "Dev", "--email", "dev@sobre.localhost", "--role", "ADMIN"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	first := lastLine(out.String())
	stored, _ := os.ReadFile(file)
	if strings.TrimSpace(string(stored)) != first {
		t.Errorf("file holds %q, printed %q", stored, first)
	}
	out.Reset()
	if err := run([]string{"admin", "ensure-key", "--file", file, "--team", "Dev", "--email", "dev@sobre.localhost"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if again := lastLine(out.String()); again != first {
		t.Errorf("ensure-key made a new key %q though %q is valid", again, first)
	}

	out.Reset()
	if err := run([]string{"admin", "list-keys", "--team", "Acme"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "ID\tPREFIX\tOWNER\tSTATE") || !strings.Contains(out.String(), "ana@acme.cl") || strings.Contains(out.String(), key) {
		t.Errorf("list-keys output %q: want the owner, never the key", out.String())
	}
	out.Reset()
	if err := run([]string{"admin", "revoke-key", "--team", "Acme", "--id", "1"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Resolve(ctx, key); err != auth.ErrRevokedKey {
		t.Errorf("after revoke-key: %v, want ErrRevokedKey", err)
	}

	for _, bad := range [][]string{
		{"admin", "create-key", "--team", "Acme"},
		{"admin", "create-key", "--team", "Acme", "--email", "x@y.z", "--role", "OWNER"},
		{"admin", "frobnicate"},
		{"nonsense"},
	} {
		if err := run(bad, &out, &out); err == nil {
			t.Errorf("run(%v) succeeded, want an error", bad)
		}
	}
}

// sobre audit verify checks the hash chain and the HMACs with SOBRE_AUDIT_KEY_FILE, says how far
// a log is keyed, and names the first entry that does not hold.
func TestAuditVerifyCommand(t *testing.T) {
	url := pgtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("SOBRE_LOG_LEVEL", "error")
	keyFile := filepath.Join(t.TempDir(), "audit.key")
	if err := os.WriteFile(keyFile, []byte(keyring.NewKeyLine("k1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOBRE_AUDIT_KEY_FILE", keyFile)
	keys, err := persistence.LoadAuditKeys(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	keyless, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer keyless.Close()
	store.SetAuditKeys(keys)
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	create := func(s *persistence.Store) string {
		var id string
		if err := s.InTx(ctx, func(tx *persistence.Tx) error {
			var err error
			id, err = tx.CreateEnvelope(ctx, m, persistence.NewEnvelope{Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument,
				Visibility: envelope.VisibilityEveryone, TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")}}, envelope.Actor{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := create(store)
	var out bytes.Buffer
	if err := run([]string{"audit", "verify", id}, &out, &out); err != nil || !strings.Contains(out.String(), "1 entries") || !strings.Contains(out.String(), "by key k1") {
		t.Fatalf("verify: %v %s", err, out.String())
	}
	// A log written before audit keys existed (by a store without them) breaks under the default
	// cut-over, and verifies, said to be unkeyed, once SOBRE_AUDIT_KEYED_FROM is past it.
	old := create(keyless)
	out.Reset()
	if err := run([]string{"audit", "verify", old}, &out, &out); err == nil || !strings.Contains(err.Error(), "no HMAC") {
		t.Fatalf("verify an unkeyed log strictly: %v %s", err, out.String())
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var from int64
	if err := conn.QueryRow(ctx, `SELECT max(seq) + 1 FROM audit_logs WHERE mac IS NULL`).Scan(&from); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOBRE_AUDIT_KEYED_FROM", strconv.FormatInt(from, 10))
	out.Reset()
	if err := run([]string{"audit", "verify", old}, &out, &out); err != nil || !strings.Contains(out.String(), "unkeyed up to entry 1") {
		t.Fatalf("verify an unkeyed log below SOBRE_AUDIT_KEYED_FROM: %v %s", err, out.String())
	}
	// A keyed log above the cut-over, stripped of its HMAC, with goose's record of migrations
	// 00015 and 00004 moved into the future: the cut-over is not read from there.
	fresh := create(store)
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET mac = NULL, mac_key = NULL WHERE envelope_id = $1`, fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE goose_db_version SET tstamp = '2100-01-01' WHERE version_id IN (4, 15)`); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"audit", "verify", fresh}, &out, &out); err == nil || !strings.Contains(err.Error(), "no HMAC") {
		t.Fatalf("verify a log stripped of its HMAC: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET hash = NULL, prev_hash = NULL WHERE envelope_id = $1`, fresh); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"audit", "verify", fresh}, &out, &out); err == nil || !strings.Contains(err.Error(), "no hash") {
		t.Fatalf("verify a log stripped of its hashes: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET type = 'DOCUMENT_SENT' WHERE envelope_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"audit", "verify", id}, &out, &out); err == nil || !strings.Contains(err.Error(), "audit entry 1 (DOCUMENT_SENT") || !strings.Contains(err.Error(), "breaks the chain") {
		t.Fatalf("verify after tampering: %v", err)
	}
	// The same log with another key file: the HMAC does not hold.
	if err := os.WriteFile(keyFile, []byte(keyring.NewKeyLine("k1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE audit_logs SET type = 'DOCUMENT_CREATED' WHERE envelope_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"audit", "verify", id}, &out, &out); err == nil || !strings.Contains(err.Error(), "HMAC does not match") {
		t.Fatalf("verify with another key: %v", err)
	}
	if err := run([]string{"audit", "verify"}, &out, &out); err == nil {
		t.Error("verify without an id succeeded")
	}
}

// -h or --help after a command prints the usage, without reading the configuration or acting;
// as a flag's value it is the value.
func TestHelpAfterACommand(t *testing.T) {
	for args, want := range map[string]bool{"admin --help": true, "audit verify -h": true, "--help": true,
		"migrate -h": true, "dev --help": true, "keygen -h": true, "webhook-listen --help": true, "seed -h": true,
		"admin create-key --team -h": false, "admin --team -h": false, "audit verify envelope_x": false} {
		if asksForHelp(strings.Fields(args)) != want {
			t.Errorf("asksForHelp(%s) is %v", args, !want)
		}
	}
	for _, args := range [][]string{{"admin", "--help"}, {"audit", "verify", "--help"}, {"admin", "create-key", "-h"}, {"--help"}, {"migrate", "-h"}, {"keygen", "-h"}} {
		var out bytes.Buffer
		if err := run(args, &out, &out); err != nil || !strings.Contains(out.String(), "admin create-key") || !strings.Contains(out.String(), "audit verify") {
			t.Errorf("%v: %v\n%s", args, err, out.String())
		}
	}
}
