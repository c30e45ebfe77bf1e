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
// the first FindCountCap matches are paged: a page past them is empty. The page's ids are read
// from envelopes_team_list_idx alone before their rows are (a deferred join), so a deep page
// costs index entries, not rows.
func (s *Store) FindEnvelopes(ctx context.Context, sc Scope, f FindFilter) ([]*envelope.Envelope, int, error) {
	cond, args := findCondition(sc, f)
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	var list []*envelope.Envelope
	var count int
	err := s.readBounded(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM envelopes e WHERE `+cond+` LIMIT `+fmt.Sprint(FindCountCap)+`) m`,
			args...).Scan(&count); err != nil {
			return fmt.Errorf("count envelopes: %w", err)
		}
		offset := (f.Page - 1) * f.PerPage
		if offset >= count {
			return nil
		}
		limit := min(f.PerPage, FindCountCap-offset)
		ordered := ` ORDER BY e.created_at ` + order + `, e.id ` + order
		rows, err := tx.Query(ctx, `SELECT `+envelopeColumns+` FROM (SELECT e.id FROM envelopes e WHERE `+cond+ordered+
			fmt.Sprintf(` LIMIT %d OFFSET %d) p JOIN `, limit, offset)+envelopeFrom+` ON e.id = p.id`+ordered, args...)
		if err != nil {
			return fmt.Errorf("find envelopes: %w", err)
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
