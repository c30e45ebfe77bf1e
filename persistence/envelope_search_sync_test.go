package persistence_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// The search follows every change to what it matches: a new title or external id, a recipient
// added, renamed, re-addressed or removed, an envelope moved to another team or deleted.
func TestFindEnvelopesSearchFollowsWrites(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	acme, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.EnsureMember(ctx, "Other", "otto@other.cl", "Otto", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if err := store.ExecInTx(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, user_id, team_id, document_meta)
		VALUES ('envelope_sync1', 'document_91', 91, 'DOCUMENT', 'DRAFT', 'DOCUMENT', 'EVERYONE', 'Primer título', $1, $2, '{}')`, acme.UserID, acme.TeamID)
	finds := func(m envelope.Member, query string) bool {
		t.Helper()
		list, count, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Query: query, Page: 1, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		found := slices.ContainsFunc(list, func(e *envelope.Envelope) bool { return e.ID == "envelope_sync1" })
		if found != (count == 1) {
			t.Errorf("%q: count %d, listed %v", query, count, found)
		}
		return found
	}
	check := func(step string, m envelope.Member, query string, want bool) {
		t.Helper()
		if got := finds(m, query); got != want {
			t.Errorf("after %s: %q found %v, want %v", step, query, got, want)
		}
	}
	check("insert", acme, "primer", true)
	exec(`UPDATE envelopes SET title = 'Segundo', external_id = 'ext-sync' WHERE id = 'envelope_sync1'`)
	check("title update", acme, "primer", false)
	check("title update", acme, "segundo", true)
	check("external id update", acme, "ext-sync", true)
	exec(`INSERT INTO recipients (envelope_id, email, name, role, token_hash) VALUES ('envelope_sync1', 'zoe@example.com', 'Zoe Zúñiga', 'SIGNER', '\x01')`)
	check("recipient insert", acme, "zúñiga", true)
	check("recipient insert", acme, "zoe@exa", true)
	exec(`UPDATE recipients SET email = 'yan@example.com', name = 'Yan Yáñez' WHERE envelope_id = 'envelope_sync1'`)
	check("recipient update", acme, "zúñiga", false)
	check("recipient update", acme, "zoe@exa", false)
	check("recipient update", acme, "yáñez", true)
	check("recipient update", acme, "yan@exa", true)
	exec(`DELETE FROM recipients WHERE envelope_id = 'envelope_sync1'`)
	check("recipient delete", acme, "yáñez", false)
	exec(`UPDATE envelopes SET team_id = $1, user_id = $2 WHERE id = 'envelope_sync1'`, other.TeamID, other.UserID)
	check("team move", acme, "segundo", false)
	check("team move", other, "segundo", true)
	exec(`UPDATE envelopes SET deleted_at = now() WHERE id = 'envelope_sync1'`)
	check("soft delete", other, "segundo", false)
	exec(`DELETE FROM envelopes WHERE id = 'envelope_sync1'`)
	check("delete", other, "segundo", false)
}
