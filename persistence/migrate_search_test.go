package persistence_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// Migration 00025 fills the new search table while envelopes are read as usual: up to its swap
// it keeps only writes out (they would be missed by the copy), and once committed the search
// table holds what the definition gives for every envelope.
func TestSearchMigrationLetsReadsThrough(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewURL(t)
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	conn, other := connect(), connect()
	raw, err := os.ReadFile("migrations/00025_envelope_search_walk.sql")
	if err != nil {
		t.Fatal(err)
	}
	up, down, _ := strings.Cut(strings.TrimPrefix(string(raw), "-- +goose Up"), "-- +goose Down")
	fill, swap, ok := strings.Cut(up, "-- The swap.")
	if !ok {
		t.Fatal("the migration has no swap")
	}
	goose := strings.NewReplacer("-- +goose StatementBegin", "", "-- +goose StatementEnd", "")
	if _, err := conn.Exec(ctx, "BEGIN;"+goose.Replace(down)+";COMMIT;"); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO teams (name, url) VALUES ('Acme', 'acme-search-migration');
		INSERT INTO users (email, name) VALUES ('ana@acme.cl', 'Ana');`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, user_id, team_id, document_meta)
		SELECT 'envelope_m' || g, 'document_m' || g, 9000 + g, 'DOCUMENT', 'DRAFT', 'DOCUMENT', 'EVERYONE', 'Contrato ' || g,
			(SELECT id FROM users WHERE email = 'ana@acme.cl'), (SELECT id FROM teams WHERE url = 'acme-search-migration'), '{}'
		FROM generate_series(1, 50) g`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "BEGIN;"+goose.Replace(fill)); err != nil {
		t.Fatalf("up to the swap: %v", err)
	}
	if _, err := other.Exec(ctx, `SET lock_timeout = '2s'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := other.QueryRow(ctx, `SELECT count(*) FROM envelopes`).Scan(&n); err != nil || n != 50 {
		t.Errorf("a read while the search table fills: %d, %v; want it answered", n, err)
	}
	if _, err := other.Exec(ctx, `UPDATE envelopes SET title = 'x' WHERE id = 'envelope_m1'`); err == nil {
		t.Error("a write went through while the search table fills: the copy would miss it")
	}
	if _, err := conn.Exec(ctx, goose.Replace(swap)+";COMMIT;"); err != nil {
		t.Fatalf("the swap: %v", err)
	}
	var missing int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT * FROM envelope_search_docs EXCEPT SELECT * FROM envelope_search) d`).Scan(&missing); err != nil || missing != 0 {
		t.Errorf("%d search rows differ from the definition (%v)", missing, err)
	}
	if _, err := other.Exec(ctx, `UPDATE envelopes SET title = 'Arriendo' WHERE id = 'envelope_m1'`); err != nil {
		t.Fatal(err)
	}
	var doc string
	if err := conn.QueryRow(ctx, `SELECT doc FROM envelope_search WHERE envelope_id = 'envelope_m1'`).Scan(&doc); err != nil || doc != "arriendo" {
		t.Errorf("after a change the search row says %q (%v), want it kept in step by the new trigger", doc, err)
	}
}
