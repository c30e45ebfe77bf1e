package persistence_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestMigrateUpFromEmptyAndAgain(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	want, err := persistence.LatestMigration()
	if err != nil {
		t.Fatal(err)
	}
	v, err := persistence.Migrate(ctx, url, log)
	if err != nil {
		t.Fatalf("migrate empty database: %v", err)
	}
	if v != want {
		t.Errorf("schema version = %d, want %d (the newest migration file's)", v, want)
	}
	// A second run finds nothing to do and keeps the version.
	v2, err := persistence.Migrate(ctx, url, log)
	if err != nil || v2 != v {
		t.Fatalf("second migrate = %d, %v; want %d, nil", v2, err, v)
	}
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, table := range []string{"teams", "users", "team_members", "api_keys", "envelopes", "envelope_items",
		"document_data", "recipients", "fields", "attachments", "audit_logs"} {
		if !store.TableExists(ctx, table) {
			t.Errorf("table %s missing after migration", table)
		}
	}
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := persistence.Migrate(ctx, url, log); errs <- err }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent migrate: %v", err)
		}
	}
}
