package persistence_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A text search answers the count and the page that the plain definition gives (title, external
// id, or a recipient's email or name ILIKE the query, in the scope and the filters, ordered by
// creation then id, the count capped), whichever way the planner reads them: a walk of the
// team's rows in order that stops at FindCountCap matches (for a query common among the team's
// newest rows), or all the matches from a bitmap scan, then sorted (for a rare one, even with
// more matches than FindCountCap among older rows). The planner's settings force other plans
// for each way: the same rows again.
func TestFindEnvelopesTextSearchWalkOrIndex(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewURL(t)
	ctx := context.Background()
	open := func(settings map[string]string) *persistence.Store { return storeWithSettings(t, dbURL, settings) }
	store := open(nil)
	ways := map[string]*persistence.Store{
		"default settings":       store,
		"no bitmap scans":        open(map[string]string{"enable_bitmapscan": "off", "enable_seqscan": "off", "enable_sort": "off"}),
		"no ordered index scans": open(map[string]string{"enable_indexscan": "off", "enable_seqscan": "off"}),
	}
	admin, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	member, err := store.EnsureMember(ctx, "Acme", "mario@acme.cl", "Mario", envelope.TeamRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.EnsureMember(ctx, "Other", "otto@other.cl", "Otto", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	const envelopes = 1700
	// "arriendo" in 4 of 5 titles and in the recipients of every 4th envelope (more than
	// FindCountCap matches), "confidencialidad" in 1 of 5, "erp-" in 1 of 50, "histórico" in the
	// oldest 1,150 (more than FindCountCap, none among the newest 500); LIKE's wildcards and its
	// escape as text, "50%_off" in 1 of 10 (walked) and "100\%" in 1 of 10 of the oldest
	// (read from the index); two envelopes share each creation time; some are hidden from
	// members, deleted, or the other team's.
	err = store.ExecInTx(ctx, `
		INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, external_id, user_id, team_id,
			document_meta, created_at, deleted_at)
		SELECT 'envelope_w' || g, 'document_w' || g, g, 'DOCUMENT', (ARRAY['DRAFT', 'PENDING', 'COMPLETED'])[1 + g % 3], 'DOCUMENT',
			CASE WHEN g % 7 = 0 THEN 'MANAGER_AND_ABOVE' ELSE 'EVERYONE' END,
			CASE WHEN g % 5 = 0 THEN 'Acuerdo de confidencialidad ' || g ELSE 'Contrato de ARRIENDO ' || g END
				|| CASE WHEN g <= 1150 THEN ' histórico' ELSE '' END
				|| CASE WHEN g % 10 = 0 THEN ' al 50%_off' WHEN g <= 1150 AND g % 10 = 5 THEN ' 100\%' ELSE '' END,
			CASE WHEN g % 50 = 0 THEN 'ERP-' || g END,
			CASE WHEN g % 2 = 0 THEN $1::bigint ELSE $2::bigint END, CASE WHEN g % 61 = 0 THEN $3::bigint ELSE $4::bigint END, '{}',
			timestamptz '2025-01-01' + (g / 2) * interval '1 minute', CASE WHEN g % 97 = 0 THEN now() END
		FROM generate_series(1, $5::int) g`, admin.UserID, member.UserID, other.TeamID, admin.TeamID, envelopes)
	if err != nil {
		t.Fatal(err)
	}
	err = store.ExecInTx(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token_hash)
		SELECT 'envelope_w' || g, 'pagos' || g || '@arriendos.cl', 'Inmobiliaria Los Arriendos', 'SIGNER', decode(md5(g::text), 'hex')
		FROM generate_series(4, $1::int, 4) g`, envelopes)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `ANALYZE envelope_search`); err != nil { // the planner's estimates of each query
		t.Fatal(err)
	}
	plain := func(m envelope.Member, f persistence.FindFilter) (ids []string, count int) {
		t.Helper()
		if f.HasExpiredRecipients != nil && *f.HasExpiredRecipients {
			return nil, 0 // no recipient here has an expiry
		}
		order := "DESC"
		if f.Ascending {
			order = "ASC"
		}
		rows, err := conn.Query(ctx, `SELECT e.id FROM envelopes e
			WHERE e.team_id = $1 AND (e.user_id = $2 OR e.visibility = ANY ($3)) AND e.deleted_at IS NULL AND e.folder_id IS NULL
				AND ($4 = '' OR e.status = $4)
				AND (e.title ILIKE $5 OR e.external_id ILIKE $5
					OR EXISTS (SELECT 1 FROM recipients r WHERE r.envelope_id = e.id AND (r.email ILIKE $5 OR r.name ILIKE $5)))
			ORDER BY e.created_at `+order+`, e.id `+order, m.TeamID, m.UserID, visibleTo(m),
			string(f.Status), "%"+strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(f.Query)+"%")
		return plainPage(t, rows, err, f)
	}
	// The walk's and the probe's test (strpos) and the index's (LIKE, its wildcards escaped)
	// match the same rows, wildcards and escapes included.
	for _, q := range []string{"arriendo", "HISTÓRICO", "erp-", "los arriendos", "50%_off", "0%_", "%_o", `100\%`, `0\%`, `\`, "_of"} {
		scanned, indexed, both, err := store.TextMatchCounts(ctx, admin.TeamID, q)
		if err != nil {
			t.Fatal(err)
		}
		if scanned == 0 || scanned != indexed || both != scanned {
			t.Errorf("query %q: the walk's test matches %d rows, the index's %d, both %d", q, scanned, indexed, both)
		}
	}
	yes, no := true, false
	for way, store := range ways {
		for _, m := range []envelope.Member{admin, member} {
			for _, f := range []persistence.FindFilter{
				{Query: "arriendo", Page: 1, PerPage: 10},
				{Query: "arriendo", Page: 37, PerPage: 10},
				{Query: "arriendo", Page: 100, PerPage: 10},
				{Query: "arriendo", Page: 101, PerPage: 10},
				{Query: "Arriendo", Page: 3, PerPage: 25, Ascending: true},
				{Query: "arriendo", Page: 2, PerPage: 10, Status: envelope.StatusCompleted},
				{Query: "confidencialidad", Page: 1, PerPage: 10},
				{Query: "confidencialidad", Page: 2, PerPage: 50, Ascending: true},
				{Query: "erp-", Page: 1, PerPage: 10},
				{Query: "histórico", Page: 1, PerPage: 10},
				{Query: "HISTÓRICO", Page: 100, PerPage: 10},
				{Query: "histórico", Page: 2, PerPage: 10, Ascending: true},
				{Query: "los arriendos", Page: 1, PerPage: 10},
				{Query: "50%_off", Page: 1, PerPage: 10},
				{Query: "0%_", Page: 3, PerPage: 10},
				{Query: "100\\%", Page: 1, PerPage: 10},
				{Query: "0\\%", Page: 2, PerPage: 10},
				{Query: "%_o", Page: 1, PerPage: 10},
				{Query: "arriendo", Page: 1, PerPage: 10, HasExpiredRecipients: &no, Now: time.Now()},
				{Query: "erp-", Page: 1, PerPage: 10, HasExpiredRecipients: &yes, Now: time.Now()},
				{Query: "los arriendos", Page: 1, PerPage: 10, HasExpiredRecipients: &yes, Now: time.Now()},
			} {
				list, count, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), f)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range list {
					got = append(got, e.ID)
				}
				want, wantCount := plain(m, f)
				if !slices.Equal(got, want) || count != wantCount {
					t.Errorf("%s, %s, %s: got %v (count %d), want %v (count %d)",
						way, m.UserEmail, fmt.Sprintf("%+v", f), got, count, want, wantCount)
				}
			}
		}
	}
}

// visibleTo is the visibilities m's role sees, as stored.
func visibleTo(m envelope.Member) []string {
	var out []string
	for _, v := range m.Role.VisibleTo() {
		out = append(out, string(v))
	}
	return out
}

// storeWithSettings is a Store on the database at dbURL whose sessions run with the planner's
// settings (enable_hashjoin=off, …): to check that a statement gives the same rows whatever
// plan it gets.
func storeWithSettings(t *testing.T, dbURL string, settings map[string]string, opts ...persistence.Option) *persistence.Store {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	params := u.Query()
	for k, v := range settings {
		params.Set(k, v)
	}
	u.RawQuery = strings.ReplaceAll(params.Encode(), "+", "%20") // a space, as libpq reads it
	s, err := persistence.Open(context.Background(), u.String(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// plainPage is the page f asks of the ids the plain definition's query answered (rows, err),
// capped at FindCountCap as the count is, and that count.
func plainPage(t *testing.T, rows pgx.Rows, err error, f persistence.FindFilter) ([]string, int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	all = all[:min(len(all), persistence.FindCountCap)]
	from := min(len(all), (f.Page-1)*f.PerPage)
	return all[from:min(len(all), from+f.PerPage)], len(all)
}
