// Envelopes: finding them by a text query, a page at a time.

package persistence

import "fmt"

// A text query is answered one of two ways, chosen by a probe of the team's newest rows:
//   - a common query (it matches at least one in findWalkShare of the findProbeRows newest rows
//     the page's order meets first) walks the team's rows in that order through
//     envelope_search_team_list_idx, testing each, and stops at the FindCountCap-th match: it
//     reads about FindCountCap×findWalkShare rows, however many the matches;
//   - any other reads all the team's matches from envelope_search_team_doc_idx (trigrams, in the
//     team's partition), rechecks them, and sorts them.
//
// Both give the first FindCountCap matches in the page's order. The probe is the team's own,
// where the planner's statistics are the whole partition's and its costs take a row tested in a
// walk for much cheaper than it is (docs/scale.md).
const (
	findProbeRows = 500
	findWalkShare = 20
)

// textMatchesSQL is the statement whose one row is the number of matches of a text query (up to
// FindCountCap) and the page's ids. cond is findCondition's condition and match the query's
// (textMatch), both on alias e of searchRows; $1 is the team. The probe and the walk test the
// rows they read with match.scanned, the index's branch with match.indexed. The walk's OFFSET 0 keeps the
// planner from moving the match into the ordered scan, which would let it read the matches from
// the trigram index and sort them instead of walking. The walk's own ORDER BY keeps its LIMIT on
// the first matches in the page's order whatever join a filter of cond is planned with (a merge
// semi-join would otherwise hand the rows on in another order); over the ordered scan it costs
// no sort.
func textMatchesSQL(cond string, match textConds, page findPageSpec) string {
	inOrder := `(SELECT * FROM ` + searchRows + ` e WHERE e.team_id = $1 ORDER BY e.created_at ` + page.order + `, e.id ` + page.order
	common := fmt.Sprintf(`(SELECT n FROM probe) * %d >= %d`, findWalkShare, findProbeRows)
	capped := fmt.Sprint(FindCountCap)
	return `WITH probe AS MATERIALIZED (SELECT count(*) AS n FROM ` + inOrder + ` LIMIT ` + fmt.Sprint(findProbeRows) + `) e WHERE ` + match.scanned + `),
		walk AS MATERIALIZED (SELECT e.id, e.created_at FROM ` + inOrder + ` OFFSET 0) e WHERE ` + cond + ` AND ` + match.scanned +
		` ORDER BY e.created_at ` + page.order + `, e.id ` + page.order + ` LIMIT ` + capped + `),
		m AS MATERIALIZED (SELECT id, created_at FROM walk WHERE ` + common + `
			UNION ALL SELECT e.id, e.created_at FROM ` + searchRows + ` e WHERE NOT ` + common + ` AND ` + cond + ` AND ` + match.indexed + `)
		SELECT (SELECT count(*) FROM (SELECT 1 FROM m LIMIT ` + capped + `) c), ARRAY(SELECT id FROM m` + page.orderBy() + `)`
}
