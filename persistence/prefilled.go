// Prefilled fields: the values an ASSISTANT put in the fields of the recipients after it.

package persistence

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// prefilledBy lists the fields of snap's envelope that assistant id filled for another recipient
// and that still hold its value, by field id, as its completion records them.
func (tx *Tx) prefilledBy(ctx context.Context, snap Snapshot, id int64) ([]envelope.PrefilledField, error) {
	fields, err := fieldsPrefilledBy(ctx, tx.q, snap.EnvelopeID, id)
	if err != nil {
		return nil, err
	}
	var out []envelope.PrefilledField
	for _, f := range fields {
		if owner := snap.Recipient(f.RecipientID); owner != nil {
			out = append(out, envelope.PrefilledFor(f, *owner))
		}
	}
	return out, nil
}

// fieldsPrefilledBy loads the fields of envelope envelopeID that assistant id filled for another
// recipient and that still hold its value, by field id.
func fieldsPrefilledBy(ctx context.Context, q querier, envelopeID string, id int64) ([]envelope.Field, error) {
	rows, err := q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.envelope_id = $1 AND f.prefilled_by = $2 AND f.inserted ORDER BY f.id`,
		envelopeID, id)
	if err != nil {
		return nil, fmt.Errorf("load fields prefilled by %d: %w", id, err)
	}
	fields, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) })
	if err != nil {
		return nil, fmt.Errorf("read fields prefilled by %d: %w", id, err)
	}
	return fields, nil
}
