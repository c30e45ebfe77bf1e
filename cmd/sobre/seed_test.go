package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// sobre seed fills an empty database with envelopes the API reads whole and finds by their
// title and recipients, every status among them; it refuses a database it seeded before and a
// production configuration.
func TestSeed(t *testing.T) {
	url := pgtest.NewEmpty(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("SOBRE_LOG_LEVEL", "error")
	ctx := context.Background()
	var out bytes.Buffer
	if err := run([]string{"seed", "--envelopes", "2000", "--teams", "2"}, &out, &out); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if err := run([]string{"seed", "--envelopes", "10"}, &out, &out); err == nil || !strings.Contains(err.Error(), "seeded already") {
		t.Errorf("a second seed: %v", err)
	}
	// The indexes the seed dropped to load faster are all back, valid, as migrations make them.
	migrated := pgtest.NewEmpty(t)
	t.Setenv("DATABASE_URL", migrated)
	if err := run([]string{"migrate"}, &out, &out); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	t.Setenv("DATABASE_URL", url)
	if seeded, want := indexes(t, url), indexes(t, migrated); seeded != want {
		t.Errorf("indexes after the seed:\n%s\nwant, as migrated:\n%s", seeded, want)
	}
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Seed 1", "admin@seed-1.example", "", "")
	if err != nil || m.Role != envelope.TeamRoleAdmin {
		t.Fatalf("the seed's admin: %+v, %v", m, err)
	}
	statuses := map[envelope.Status]int{}
	for _, status := range envelope.Statuses() {
		_, n, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Status: status, Page: 1, PerPage: 1})
		if err != nil {
			t.Fatal(err)
		}
		statuses[status] = n
	}
	for _, status := range []envelope.Status{envelope.StatusDraft, envelope.StatusPending, envelope.StatusCompleted, envelope.StatusRejected} {
		if statuses[status] == 0 {
			t.Errorf("no %s envelope seeded: %v", status, statuses)
		}
	}
	list, _, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Page: 1, PerPage: 1})
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	e, err := store.GetEnvelope(ctx, persistence.ScopeOf(m), list[0].ID)
	if err != nil || len(e.Recipients) != 3 || len(e.Items) != 1 {
		t.Fatalf("seeded envelope: %+v, %v", e, err)
	}
	found, _, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Query: e.Recipients[1].Email, Page: 1, PerPage: 100})
	if err != nil || !containsID(found, e.ID) {
		t.Errorf("a search for %s does not find %s: %v", e.Recipients[1].Email, e.ID, err)
	}
	found, _, err = store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Query: e.Title, Page: 1, PerPage: 100})
	if err != nil || !containsID(found, e.ID) {
		t.Errorf("a search for %q does not find %s: %v", e.Title, e.ID, err)
	}

	// A database holding someone's envelopes is refused, seeded by this command or not.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE teams SET url = 'not-seed' WHERE url = 'seed-1'`); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"seed", "--envelopes", "10"}, &out, &out); err == nil || !strings.Contains(err.Error(), "holds envelopes") {
		t.Errorf("a seed over other envelopes: %v", err)
	}

	t.Setenv("SOBRE_ENV", "production")
	if err := run([]string{"seed", "--envelopes", "10"}, &out, &out); err == nil {
		t.Error("seed ran with SOBRE_ENV=production")
	}
}

// indexes lists the indexes of the database at url, one per line with its table and whether it
// is valid.
func indexes(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var list string
	err = conn.QueryRow(ctx, `SELECT string_agg(c.relname || ' ' || i.relname || ' valid=' || x.indisvalid, E'\n' ORDER BY c.relname, i.relname)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()`).Scan(&list)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func containsID(list []*envelope.Envelope, id string) bool {
	for _, e := range list {
		if e.ID == id {
			return true
		}
	}
	return false
}
