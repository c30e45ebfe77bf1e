// Envelopes: what a search query matches, and reads bounded in time.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sobre-sign/sobre/envelope"
)

// FindCountCap is the most matches GET /envelope counts: its count is min(matches, FindCountCap),
// and pages past the cap are empty. Counting further would read every match of a query that
// matches most of a team (docs/scale.md).
const FindCountCap = 1000

// FindTimeout bounds each statement of a find; a find that runs past it answers
// SERVICE_UNAVAILABLE instead of holding a connection.
const FindTimeout = 3 * time.Second

// A query is matched one of two ways, each through its own index:
//   - one that looks like an email address (looksLikeEmail) matches the envelopes with a
//     recipient whose email begins with it, case-insensitively (emailMatch: recipients_email_idx
//     on lower(email), a few rows per email);
//   - any other matches the envelopes whose title, external id, or a recipient's email or name
//     contains it, case-insensitively (textMatch, over envelope_search; textMatchesSQL).

// emailMatch is the condition on alias e of envelopes for an email-like query q, its argument
// appended to args.
func emailMatch(q string, args *[]any) string {
	*args = append(*args, escapeLike(q)+"%")
	return fmt.Sprintf(`e.id IN (SELECT r.envelope_id FROM recipients r WHERE lower(r.email) LIKE lower($%d))`, len(*args))
}

// textConds are the two forms of a text query's condition on alias e of searchRows:
// envelope_search.doc holds the searched text lower-cased, and a row matches when doc contains
// the query lower-cased, as ILIKE '%q%' compares.
//   - indexed, doc LIKE lower('%q%') (q's wildcards escaped), is the form the trigram index
//     envelope_search_team_doc_idx answers;
//   - scanned, strpos(doc, lower(q)) > 0, is the same test on a row already read: a substring
//     search (PostgreSQL's Boyer-Moore-Horspool) instead of LIKE's matcher, which tries a match at
//     every character, about half the cost per row walked (docs/scale.md).
type textConds struct{ indexed, scanned string }

// textMatch is a text query q's conditions (textConds), its arguments appended to args.
func textMatch(q string, args *[]any) textConds {
	*args = append(*args, "%"+escapeLike(q)+"%", q)
	return textConds{
		indexed: fmt.Sprintf(`e.doc LIKE lower($%d)`, len(*args)-1),
		scanned: fmt.Sprintf(`strpos(e.doc, lower($%d)) > 0`, len(*args)),
	}
}

// searchRows is envelope_search as a relation with the columns of envelopes that findCondition
// reads (its id column is envelope_id).
const searchRows = `(SELECT envelope_id AS id, team_id, created_at, doc, user_id, visibility, folder_id, deleted_at,
	status, type, source, template_id FROM envelope_search)`

// looksLikeEmail reports whether q has at least one character before an @ and no space.
func looksLikeEmail(q string) bool {
	return strings.IndexByte(q, '@') > 0 && !strings.ContainsAny(q, " \t\r\n")
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// readBounded runs fn in a read-only transaction whose statements each stop after FindTimeout
// and start no parallel workers (among concurrent requests they cost more than they save). Both
// settings are part of the BEGIN, in the same round trip: set by a first statement of fn's
// instead, they would not bound the preparing of a batch's statements, which pgx does before
// running any of them (and which waits, unbounded, on a lock someone holds on a table they read).
func (s *Store) readBounded(ctx context.Context, fn func(tx pgx.Tx) error) error {
	begin := fmt.Sprintf("BEGIN READ ONLY; SET LOCAL statement_timeout = %d; SET LOCAL max_parallel_workers_per_gather = 0",
		FindTimeout.Milliseconds())
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{BeginQuery: begin}, fn)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgQueryCanceled {
		return envelope.Errorf(envelope.CodeUnavailable, "The search took longer than %s: narrow it with a longer query or a filter", FindTimeout)
	}
	return err
}

const pgQueryCanceled = "57014"
