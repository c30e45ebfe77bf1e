package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// New keys expire after SOBRE_API_KEY_DAYS days, or --expires-in, unless made with --no-expiry;
// ensure-key replaces a stored key once it expired.
func TestAdminKeysExpire(t *testing.T) {
	url := pgtest.NewEmpty(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("SOBRE_LOG_LEVEL", "error")
	ctx := context.Background()
	create := func(extra ...string) (string, error) {
		var out bytes.Buffer
		err := run(append([]string{"admin", "create-key", "--team", "Acme", "--email", "ana@acme.cl"}, extra...), &out, &out)
		return lastLine(out.String()), err
	}
	// The store is opened after the first command migrated the empty database.
	defaultKey, err := create()
	if err != nil {
		t.Fatal(err)
	}
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	keys := &auth.Keys{Store: store}
	expiresAt := func(key string) *time.Time {
		t.Helper()
		k, err := keys.Resolve(ctx, key)
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		return k.ExpiresAt
	}
	near := func(got *time.Time, want time.Duration) bool {
		return got != nil && got.Sub(time.Now().Add(want)).Abs() < time.Minute
	}
	if got := expiresAt(defaultKey); !near(got, 365*24*time.Hour) {
		t.Errorf("default key expires %v, want in 365 days", got)
	}
	t.Setenv("SOBRE_API_KEY_DAYS", "2")
	twoDays, err := create()
	if err != nil {
		t.Fatal(err)
	}
	if got := expiresAt(twoDays); !near(got, 48*time.Hour) {
		t.Errorf("SOBRE_API_KEY_DAYS=2: key expires %v, want in 2 days", got)
	}
	hour, err := create("--expires-in", "1h")
	if err != nil {
		t.Fatal(err)
	}
	if got := expiresAt(hour); !near(got, time.Hour) {
		t.Errorf("--expires-in 1h: key expires %v", got)
	}
	forever, err := create("--no-expiry")
	if err != nil {
		t.Fatal(err)
	}
	if got := expiresAt(forever); got != nil {
		t.Errorf("--no-expiry: key expires %v", got)
	}
	if _, err := create("--no-expiry", "--expires-in", "1h"); err == nil {
		t.Error("--no-expiry with --expires-in accepted")
	}
	t.Setenv("SOBRE_API_KEY_DAYS", "0")
	if _, err := create(); err == nil || !strings.Contains(err.Error(), "SOBRE_API_KEY_DAYS") {
		t.Errorf("SOBRE_API_KEY_DAYS=0: %v", err)
	}
	t.Setenv("SOBRE_API_KEY_DAYS", "")

	// ensure-key: a key that expired is replaced by a new one, which expires in turn.
	file := filepath.Join(t.TempDir(), "dev-api-key")
	ensure := func() string {
		t.Helper()
		var out bytes.Buffer
		if err := run([]string{"admin", "ensure-key", "--file", file, "--team", "Dev", "--email", "dev@sobre.localhost"}, &out, &out); err != nil {
			t.Fatal(err)
		}
		return lastLine(out.String())
	}
	first := ensure()
	if got := expiresAt(first); !near(got, 365*24*time.Hour) {
		t.Errorf("ensure-key's key expires %v", got)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE key_hash = $1`, auth.HashKey(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Resolve(ctx, first); err != auth.ErrExpiredKey {
		t.Fatalf("expired key resolves: %v", err)
	}
	second := ensure()
	if second == first || expiresAt(second) == nil {
		t.Errorf("ensure-key kept the expired key or made one without expiry")
	}
	if stored, _ := os.ReadFile(file); strings.TrimSpace(string(stored)) != second {
		t.Errorf("file holds %q, want the new key", stored)
	}
}
