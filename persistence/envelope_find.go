// Envelopes: finding them by filter, a page at a time.

package persistence

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// FindFilter selects and orders envelopes for the search endpoint.
type FindFilter struct {
	Query                string
	Type                 envelope.Type
	TemplateID           *int64
	Source               envelope.Source
	Status               envelope.Status
	HasExpiredRecipients *bool
	FolderID             *string // nil: only envelopes in no folder
	Ascending            bool
	Page, PerPage        int
	Now                  time.Time
}

// FindEnvelopes returns one page of the envelopes the scope sees that match f, with recipients
// but without fields, items or meta, and the number of matches counted up to FindCountCap. Only
// the first FindCountCap matches in f's order are paged: a page past them is empty. The count
// and the page's ids are read in one round trip (findIDs), the page's rows then by id (a
// deferred join), so a deep page costs index entries, not rows.
func (s *Store) FindEnvelopes(ctx context.Context, sc Scope, f FindFilter) ([]*envelope.Envelope, int, error) {
	var list []*envelope.Envelope
	var count int
	err := s.readBounded(ctx, func(tx pgx.Tx) error {
		var ids []string
		var err error
		count, ids, err = findIDs(ctx, tx, sc, f)
		if err != nil || len(ids) == 0 {
			return err
		}
		// The page's rows and their recipients, in one round trip.
		var r envelopesRead
		b := &pgx.Batch{}
		r.queue(b, s.ring, ids, false)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("load found envelopes: %w", err)
		}
		list = r.result()
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return list, count, nil
}

// findIDs returns the number of f's matches up to FindCountCap and the ids of its page, in one
// round trip. Without a query both come from envelopes_team_list_idx alone (index-only scans:
// the count stops at the cap, the page's ids at the page). With an email-like query, one
// statement collects its matches (a few), counts them and slices the page; with any other, one
// statement does so choosing its way by the query's frequency (textMatchesSQL). Both are sent
// unnamed (QueryExecModeExec), so that each is planned for its own query, never from a generic
// plan that cannot use the email index's range or tell the trigrams' cost.
func findIDs(ctx context.Context, tx pgx.Tx, sc Scope, f FindFilter) (count int, ids []string, err error) {
	cond, args := findCondition(sc, f)
	page := findPage(f)
	capped := fmt.Sprint(FindCountCap)
	if q := strings.TrimSpace(f.Query); q != "" {
		var sql string
		if looksLikeEmail(q) {
			sql = `WITH m AS MATERIALIZED (SELECT e.id, e.created_at FROM envelopes e WHERE ` + cond + ` AND ` + emailMatch(q, &args) + `)
				SELECT (SELECT count(*) FROM (SELECT 1 FROM m LIMIT ` + capped + `) c), ARRAY(SELECT id FROM m` + page.orderBy() + `)`
		} else {
			sql = textMatchesSQL(cond, textMatch(q, &args), page)
		}
		err = tx.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&count, &ids)
		if err != nil {
			return 0, nil, fmt.Errorf("find envelopes: %w", err)
		}
		return count, ids, nil
	}
	batch := &pgx.Batch{}
	batch.Queue(`SELECT count(*) FROM (SELECT 1 FROM envelopes e WHERE `+cond+` LIMIT `+capped+`) m`, args...).
		QueryRow(func(row pgx.Row) error { return row.Scan(&count) })
	if page.limit > 0 {
		batch.Queue(`SELECT e.id FROM envelopes e WHERE `+cond+page.orderBy(), args...).
			Query(func(rows pgx.Rows) (err error) { ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); return err })
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return 0, nil, fmt.Errorf("find envelopes: %w", err)
	}
	return count, ids, nil
}

// findPageSpec is the slice of a find's matches one page shows: the matches in order
// (created_at, then id, both ascending or both descending), from offset, at most limit of them,
// never past the first FindCountCap.
type findPageSpec struct {
	order         string // ASC or DESC
	limit, offset int
}

func findPage(f FindFilter) findPageSpec {
	p := findPageSpec{order: "DESC", offset: (f.Page - 1) * f.PerPage}
	if f.Ascending {
		p.order = "ASC"
	}
	p.limit = max(0, min(f.PerPage, FindCountCap-p.offset))
	return p
}

// orderBy is the ORDER BY, LIMIT and OFFSET of the page, over columns created_at and id.
func (p findPageSpec) orderBy() string {
	return fmt.Sprintf(` ORDER BY created_at %[1]s, id %[1]s LIMIT %[2]d OFFSET %[3]d`, p.order, p.limit, p.offset)
}

// findCondition is the WHERE condition on alias e for f's filters (all but its query) within
// the scope, and its arguments ($1 is the scope's team). Alias e is a row of envelopes or of
// envelope_search (searchRows), which have the columns it reads.
func findCondition(sc Scope, f FindFilter) (string, []any) {
	args := []any{sc.TeamID, sc.UserID, sc.visibilities()}
	where := []string{visibleSQL(1), "e.deleted_at IS NULL"}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if f.Type != "" {
		where = append(where, "e.type = "+arg(string(f.Type)))
	}
	if f.TemplateID != nil {
		where = append(where, "e.template_id = "+arg(*f.TemplateID))
	}
	if f.Source != "" {
		where = append(where, "e.source = "+arg(string(f.Source)))
	}
	if f.Status != "" {
		where = append(where, "e.status = "+arg(string(f.Status)))
	}
	if f.FolderID != nil {
		where = append(where, "e.folder_id = "+arg(*f.FolderID))
	} else {
		where = append(where, "e.folder_id IS NULL")
	}
	if f.HasExpiredRecipients != nil {
		expired := `EXISTS (SELECT 1 FROM recipients r WHERE r.envelope_id = e.id AND ` + overdueSQL(arg(f.Now)) + `)`
		if !*f.HasExpiredRecipients {
			expired = "NOT " + expired
		}
		where = append(where, expired)
	}
	return strings.Join(where, " AND "), args
}
