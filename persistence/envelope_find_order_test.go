package persistence_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A common query with the expired-recipients filter (an EXISTS the planner may join by merge,
// in id order) still gives the first matches in the page's order, deep pages and count included,
// whichever join the planner picks.
func TestTextSearchWalkKeepsItsOrderUnderAnyJoin(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	ctx := context.Background()
	open := func(settings map[string]string) *persistence.Store { return storeWithSettings(t, dbURL, settings) }
	store := open(nil)
	admin, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ExecInTx(ctx, `
		INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, user_id, team_id, document_meta, created_at)
		SELECT 'envelope_j' || g, 'document_j' || g, 7000 + g, 'DOCUMENT', 'PENDING', 'DOCUMENT', 'EVERYONE', 'arriendo ' || g, $1::bigint, $2::bigint, '{}',
			timestamptz '2025-01-01' + g * interval '1 minute' FROM generate_series(1, 3000) g`, admin.UserID, admin.TeamID); err != nil {
		t.Fatal(err)
	}
	// Recipients inserted in an order unrelated to creation: the newest envelopes' recipients last.
	if err := store.ExecInTx(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token_hash, expires_at)
		SELECT 'envelope_j' || g, 'r' || g || '@x.cl', 'R', 'SIGNER', decode(md5('j' || g::text), 'hex'), now() - interval '1 day'
		FROM generate_series(1, 3000) g WHERE g % 3 <> 0 ORDER BY (g * 7919) % 3001`); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	plain := func(f persistence.FindFilter) ([]string, int) {
		rows, err := conn.Query(ctx, `SELECT e.id FROM envelopes e WHERE e.team_id = $1 AND e.deleted_at IS NULL AND e.folder_id IS NULL
			AND e.title ILIKE '%arriendo%' AND EXISTS (SELECT 1 FROM recipients r WHERE r.envelope_id = e.id AND r.role <> 'CC' AND r.signing_status = 'NOT_SIGNED' AND r.expires_at <= $2)
			ORDER BY e.created_at DESC, e.id DESC`, admin.TeamID, f.Now)
		return plainPage(t, rows, err, f)
	}
	yes := true
	for name, s := range map[string]*persistence.Store{
		"default":     store,
		"hash joins":  open(map[string]string{"enable_nestloop": "off", "enable_mergejoin": "off"}),
		"merge joins": open(map[string]string{"enable_nestloop": "off", "enable_hashjoin": "off"}),
	} {
		for _, page := range []int{1, 50, 100} {
			f := persistence.FindFilter{Query: "arriendo", Page: page, PerPage: 10, HasExpiredRecipients: &yes, Now: time.Now()}
			list, count, err := s.FindEnvelopes(ctx, persistence.ScopeOf(admin), f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.ID)
			}
			want, wantCount := plain(f)
			if !slices.Equal(got, want) || count != wantCount {
				t.Errorf("%s page %d: got %v (%d), want %v (%d)", name, page, got, count, want, wantCount)
			}
		}
	}
}
