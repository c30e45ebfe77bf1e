// Envelopes: finding them by filter, a page at a time.

package persistence

import (
	"context"
	"fmt"
	"strings"
	"time"

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
// but without fields, items or meta, and the number of matches over all pages.
func (s *Store) FindEnvelopes(ctx context.Context, sc Scope, f FindFilter) ([]*envelope.Envelope, int, error) {
	args := []any{sc.TeamID, sc.UserID, sc.visibilities()}
	where := []string{visibleSQL(1), "e.deleted_at IS NULL"}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if q := strings.TrimSpace(f.Query); q != "" {
		p := arg("%" + escapeLike(q) + "%")
		where = append(where, fmt.Sprintf(`(e.title ILIKE %[1]s OR e.external_id ILIKE %[1]s OR e.id IN (
			SELECT r.envelope_id FROM recipients r WHERE r.email ILIKE %[1]s OR r.name ILIKE %[1]s))`, p))
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
	cond := strings.Join(where, " AND ")
	var count int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM envelopes e WHERE `+cond, args...).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count envelopes: %w", err)
	}
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	limit, offset := arg(f.PerPage), arg((f.Page-1)*f.PerPage)
	rows, err := s.pool.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE `+cond+
		` ORDER BY e.created_at `+order+`, e.id `+order+` LIMIT `+limit+` OFFSET `+offset, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("find envelopes: %w", err)
	}
	list, err := collectEnvelopes(ctx, s.pool, s.ring, rows, false)
	if err != nil {
		return nil, 0, err
	}
	return list, count, nil
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
