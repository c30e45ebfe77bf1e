// Package pgtest gives tests a database of their own on the real PostgreSQL that `make test`
// starts: each call to New makes a fresh database from a migrated template (a file copy, fast)
// and drops it when the test ends, so tests may run in parallel.
//
// SOBRE_TEST_DATABASE_URL names the server (any database on it). When it is unset the test is
// skipped, unless SOBRE_TEST_REQUIRE_SERVICES is set (as `make test` does), when it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
)

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// ServerURL returns the test server's URL or skips (fails, when services are required).
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("SOBRE_TEST_DATABASE_URL")
	if u == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_DATABASE_URL is not set")
		}
		t.Skip("SOBRE_TEST_DATABASE_URL not set: run `make test` for the real PostgreSQL")
	}
	return u
}

// WithDatabase returns url pointing at database name.
func WithDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func admin(ctx context.Context, server string, sql string) error {
	conn, err := pgx.Connect(ctx, WithDatabase(server, "postgres"))
	if err != nil {
		return fmt.Errorf("connect to test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// NewEmpty creates an empty database, dropped at the end of the test, and returns its URL.
func NewEmpty(t testing.TB) string {
	t.Helper()
	server := ServerURL(t)
	name := "sobre_t_" + randomSuffix()
	ctx := context.Background()
	if err := admin(ctx, server, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin(context.Background(), server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database: %v", err)
		}
	})
	return WithDatabase(server, name)
}

// NewURL creates a migrated database for the test and returns its URL.
func NewURL(t testing.TB) string {
	t.Helper()
	server := ServerURL(t)
	ctx := context.Background()
	templateOnce.Do(func() {
		templateName = "sobre_t_tpl_" + randomSuffix()
		if templateErr = admin(ctx, server, "CREATE DATABASE "+templateName); templateErr != nil {
			return
		}
		_, templateErr = persistence.Migrate(ctx, WithDatabase(server, templateName), slog.New(slog.NewTextHandler(io.Discard, nil)))
	})
	if templateErr != nil {
		t.Fatalf("prepare template database: %v", templateErr)
	}
	name := "sobre_t_" + randomSuffix()
	if err := admin(ctx, server, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, templateName)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin(context.Background(), server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database: %v", err)
		}
	})
	return WithDatabase(server, name)
}

// Keyring returns a keyring with one fresh key, for the Store of a test (persistence.WithKeyring).
func Keyring(t testing.TB) *keyring.Ring {
	t.Helper()
	ring, err := keyring.Parse([]byte(keyring.NewKeyLine("test")))
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// New returns a Store on a fresh migrated database, with a keyring of its own (Keyring), closed
// at the end of the test.
func New(t testing.TB) *persistence.Store {
	t.Helper()
	store, _ := NewWithURL(t)
	return store
}

// NewWithURL is New, and the database's URL, for a test that also reaches the database behind
// the store's back.
func NewWithURL(t testing.TB) (*persistence.Store, string) {
	t.Helper()
	url := NewURL(t)
	store, err := persistence.Open(context.Background(), url, persistence.WithKeyring(Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	return store, url
}
