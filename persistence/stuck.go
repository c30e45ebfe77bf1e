// Stuck envelopes: the PENDING envelopes whose workflow may have ended or been lost.

package persistence

import (
	"context"
	"fmt"
)

// PendingEnvelopeIDs lists up to limit ids of PENDING envelopes after the id after ("" for the
// first page), in id order: a caller pages through them all.
func (s *Store) PendingEnvelopeIDs(ctx context.Context, after string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM envelopes WHERE status = 'PENDING' AND id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list pending envelopes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list pending envelopes: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list pending envelopes: %w", err)
	}
	return out, nil
}
