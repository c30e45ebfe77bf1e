// Envelope references: an envelope's id, owner and status, read or locked under a scope.

package persistence

import (
	"context"
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// EnvelopeRef is the little that access checks need of an envelope.
type EnvelopeRef struct {
	ID         string
	Type       envelope.Type
	Status     envelope.Status
	UserID     int64
	TeamID     int64
	Visibility envelope.Visibility
}

// Owned is what envelope.MayManage needs of the envelope.
func (r EnvelopeRef) Owned() envelope.Owned {
	return envelope.Owned{TeamID: r.TeamID, OwnerID: r.UserID, Visibility: r.Visibility}
}

// EnvelopeRef returns the status and owner of envelope id as the scope sees it.
func (s *Store) EnvelopeRef(ctx context.Context, sc Scope, id string) (EnvelopeRef, error) {
	return envelopeRef(ctx, s.pool, sc, id, false)
}

// LockEnvelope returns the envelope's reference and locks its row until the transaction ends,
// so that changes to one envelope happen one after another.
func (tx *Tx) LockEnvelope(ctx context.Context, sc Scope, id string) (EnvelopeRef, error) {
	return envelopeRef(ctx, tx.q, sc, id, true)
}

func envelopeRef(ctx context.Context, q querier, sc Scope, id string, lock bool) (EnvelopeRef, error) {
	var r EnvelopeRef
	sql := `SELECT e.id, e.type, e.status, e.user_id, e.team_id, e.visibility FROM envelopes e WHERE e.id = $1 AND ` + visibleSQL(2)
	if lock {
		sql += " FOR UPDATE"
	}
	err := q.QueryRow(ctx, sql, id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&r.ID, &r.Type, &r.Status, &r.UserID, &r.TeamID, &r.Visibility)
	if err != nil {
		return r, notFound(err, "Envelope")
	}
	return r, nil
}

// Touch sets the envelope's updatedAt to now.
func (tx *Tx) Touch(ctx context.Context, envelopeID string) error {
	_, err := tx.q.Exec(ctx, `UPDATE envelopes SET updated_at = now() WHERE id = $1`, envelopeID)
	if err != nil {
		return fmt.Errorf("touch envelope %s: %w", envelopeID, err)
	}
	return nil
}
