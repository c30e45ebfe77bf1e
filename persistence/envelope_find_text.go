// Envelopes: finding them by a text query, a page at a time.

package persistence

import (
	"fmt"
	"strings"
)

// FindWalkRows is how many of a team's envelopes, newest first (oldest first for an ascending
// find), a text search reads in order before it turns to the trigram index. A query that
// matches one envelope in FindWalkRows/FindCountCap or more finds its first FindCountCap matches
// within them, in order, and stops: its cost does not grow with the number of its matches. A
// rarer query reads those rows in vain, then all its matches from the trigram index, fewer than
// FindWalkRows when the matches are spread evenly over time. Both ways give the same count and
// page (docs/scale.md).
const FindWalkRows = 10000

// searchRows is envelope_search as a relation with the columns of envelopes that findCondition
// reads (its id column is envelope_id).
const searchRows = `(SELECT envelope_id AS id, team_id, created_at, doc, user_id, visibility, folder_id, deleted_at,
	status, type, source, template_id FROM envelope_search)`

// textSearchSQL is one statement answering the count (up to FindCountCap) and the page's ids of
// a text query q under condition cond (findCondition, whose arguments are args): the envelopes
// whose search text (envelope_search.doc, lower-cased) contains q, case-insensitively, compared
// as ILIKE compares. It first reads the team's walk newest rows in the page's order (through
// envelope_search_team_list_idx), keeping the matches, up to FindCountCap; if it found that many
// they are the first FindCountCap matches and answer the count and the page. Otherwise all the
// matches are read through envelope_search_team_doc_idx (GIN, trigrams) and sorted.
func textSearchSQL(cond string, args []any, q string, page findPageSpec, walk int) (string, []any) {
	args = append(args, "%"+escapeLike(q)+"%")
	match := fmt.Sprintf("%s AND e.doc LIKE lower($%d)", cond, len(args))
	capped := fmt.Sprint(FindCountCap)
	sql := `WITH walk AS MATERIALIZED (
		SELECT e.id, e.created_at FROM (SELECT * FROM ` + searchRows + ` e WHERE e.team_id = $1
			ORDER BY e.created_at ` + page.order + `, e.id ` + page.order + ` LIMIT ` + fmt.Sprint(walk) + `) e
		WHERE ` + match + ` LIMIT ` + capped + `),
	m AS MATERIALIZED (
		SELECT id, created_at FROM walk WHERE (SELECT count(*) FROM walk) = ` + capped + `
		UNION ALL
		SELECT e.id, e.created_at FROM ` + searchRows + ` e WHERE (SELECT count(*) FROM walk) < ` + capped + ` AND ` + match + `)
	SELECT (SELECT count(*) FROM (SELECT 1 FROM m LIMIT ` + capped + `) c), ARRAY(SELECT id FROM m` + page.orderBy() + `)`
	return strings.Join(strings.Fields(sql), " "), args
}

// searchWalkRows is FindWalkRows unless s was given another bound (tests).
func (s *Store) searchWalkRows() int {
	if s.walkRows > 0 {
		return s.walkRows
	}
	return FindWalkRows
}
