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
// and the page's ids are read in one round trip: without a query, from envelopes_team_list_idx
// alone (index-only scans); with one, from its matches read once. The page's rows are then read
// by id (a deferred join), so a deep page costs index entries, not rows.
func (s *Store) FindEnvelopes(ctx context.Context, sc Scope, f FindFilter) ([]*envelope.Envelope, int, error) {
	cond, args := findCondition(sc, f)
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	offset := (f.Page - 1) * f.PerPage
	var list []*envelope.Envelope
	var count int
	var ids []string
	err := s.readBounded(ctx, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		limit := max(0, min(f.PerPage, FindCountCap-offset))
		ordered := fmt.Sprintf(` ORDER BY created_at %[1]s, id %[1]s LIMIT %[2]d OFFSET %[3]d`, order, limit, offset)
		if strings.TrimSpace(f.Query) != "" {
			// A text query's matches come from an index in no useful order: read them once.
			batch.Queue(`WITH m AS MATERIALIZED (SELECT e.id, e.created_at FROM envelopes e WHERE `+cond+`)
				SELECT (SELECT count(*) FROM (SELECT 1 FROM m LIMIT `+fmt.Sprint(FindCountCap)+`) c), ARRAY(SELECT id FROM m`+ordered+`)`, args...).
				QueryRow(func(row pgx.Row) error { return row.Scan(&count, &ids) })
		} else {
			batch.Queue(`SELECT count(*) FROM (SELECT 1 FROM envelopes e WHERE `+cond+` LIMIT `+fmt.Sprint(FindCountCap)+`) m`, args...).
				QueryRow(func(row pgx.Row) error { return row.Scan(&count) })
			if limit > 0 {
				batch.Queue(`SELECT e.id FROM envelopes e WHERE `+cond+ordered, args...).
					Query(func(rows pgx.Rows) (err error) { ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); return err })
			}
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("find envelopes: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+
			` WHERE e.id = ANY($1) ORDER BY array_position($1, e.id)`, ids)
		if err != nil {
			return fmt.Errorf("load found envelopes: %w", err)
		}
		list, err = collectEnvelopes(ctx, tx, s.ring, rows, false)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return list, count, nil
}

// findCondition is the WHERE condition on alias e for f within the scope, and its arguments
// ($1 is the scope's team).
func findCondition(sc Scope, f FindFilter) (string, []any) {
	args := []any{sc.TeamID, sc.UserID, sc.visibilities()}
	where := []string{visibleSQL(1), "e.deleted_at IS NULL"}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if q := strings.TrimSpace(f.Query); q != "" {
		where = append(where, searchCondition(q, arg))
	}
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
