// Fields: adding, reading, changing and deleting an envelope's fields.

package persistence

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

const fieldColumns = `f.id, f.secondary_id, f.envelope_id, f.envelope_item_id, f.type, f.recipient_id, f.page,
	f.position_x, f.position_y, f.width, f.height, f.custom_text, f.inserted, f.field_meta, coalesce(f.filled_by_session, ''),
	f.prefilled_by`

// Who gave a field's value (Field.FilledBy), when not a signing session: the sender (at creation,
// or a preset filled at send), or a caller of the signing link without a session.
const (
	FilledBySender = envelope.FilledBySender
	FilledByLink   = "link"
)

func scanField(row pgx.Row) (envelope.Field, error) {
	var f envelope.Field
	var meta []byte
	err := row.Scan(&f.ID, &f.SecondaryID, &f.EnvelopeID, &f.EnvelopeItemID, &f.Type, &f.RecipientID, &f.Page,
		&f.PositionX, &f.PositionY, &f.Width, &f.Height, &f.CustomText, &f.Inserted, &meta, &f.FilledBy,
		&f.PrefilledBy)
	if err != nil {
		return f, err
	}
	if len(meta) > 0 && string(meta) != "null" {
		f.FieldMeta = new(envelope.FieldMeta)
		if err := json.Unmarshal(meta, f.FieldMeta); err != nil {
			return f, fmt.Errorf("decode field meta of field %d: %w", f.ID, err)
		}
	}
	return f, nil
}

// NewField is a field to create; Item is the index of its envelope item in NewEnvelope.Items
// (when ItemID is empty).
type NewField struct {
	envelope.Field
	Item int
}

// AddField adds f for recipient r to the envelope.
func (tx *Tx) AddField(ctx context.Context, envelopeID string, f envelope.Field, r envelope.Recipient, a envelope.Actor) (envelope.Field, error) {
	f.EnvelopeID, f.RecipientID, f.SecondaryID = envelopeID, r.ID, newCUID()
	meta, err := encodeFieldMeta(f.FieldMeta)
	if err != nil {
		return f, err
	}
	// A value given at creation (a template's prefill) is the sender's.
	err = tx.q.QueryRow(ctx, `INSERT INTO fields (secondary_id, envelope_id, envelope_item_id, recipient_id, type, page,
		position_x, position_y, width, height, custom_text, inserted, field_meta, filled_by_session)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $12 THEN '`+FilledBySender+`' END) RETURNING id`,
		f.SecondaryID, envelopeID, f.EnvelopeItemID, r.ID, f.Type, f.Page, f.PositionX, f.PositionY, f.Width, f.Height,
		f.CustomText, f.Inserted, meta).Scan(&f.ID)
	if err != nil {
		return f, fmt.Errorf("insert field: %w", err)
	}
	return f, tx.AppendAudit(ctx, envelopeID, envelope.FieldCreatedAudit(f, r), a)
}

func encodeFieldMeta(m *envelope.FieldMeta) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode field meta: %w", err)
	}
	return b, nil
}

// LockField returns field id and its envelope's reference as the scope sees them, locking the
// envelope's row until the transaction ends (LockEnvelope).
func (tx *Tx) LockField(ctx context.Context, sc Scope, id int64) (envelope.Field, EnvelopeRef, error) {
	envelopeID, err := envelopeIDOf(ctx, tx.q, sc, fieldRows, id)
	if err != nil {
		return envelope.Field{}, EnvelopeRef{}, err
	}
	ref, err := tx.LockEnvelope(ctx, sc, envelopeID)
	if err != nil {
		return envelope.Field{}, ref, err
	}
	f, err := scanField(tx.q.QueryRow(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.id = $1`, id))
	if err != nil {
		return f, ref, notFound(err, "Field")
	}
	return f, ref, nil
}

// EnvelopeIDOfField returns the envelope of field id as the scope sees it.
func (s *Store) EnvelopeIDOfField(ctx context.Context, sc Scope, id int64) (string, error) {
	return envelopeIDOf(ctx, s.pool, sc, fieldRows, id)
}

// recipientFields reads the fields of recipient id, by id.
func recipientFields(ctx context.Context, q querier, id int64) ([]envelope.Field, error) {
	rows, err := q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.recipient_id = $1 ORDER BY f.id`, id)
	if err != nil {
		return nil, fmt.Errorf("load fields of recipient %d: %w", id, err)
	}
	fields, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) })
	if err != nil {
		return nil, fmt.Errorf("read fields of recipient %d: %w", id, err)
	}
	return fields, nil
}

// UpdateField writes f's position, type and meta.
func (tx *Tx) UpdateField(ctx context.Context, f envelope.Field) error {
	meta, err := encodeFieldMeta(f.FieldMeta)
	if err != nil {
		return err
	}
	_, err = tx.q.Exec(ctx, `UPDATE fields SET envelope_item_id = $2, type = $3, page = $4, position_x = $5, position_y = $6,
		width = $7, height = $8, field_meta = $9, updated_at = now() WHERE id = $1`, f.ID, f.EnvelopeItemID, f.Type, f.Page,
		f.PositionX, f.PositionY, f.Width, f.Height, meta)
	if err != nil {
		return fmt.Errorf("update field %d: %w", f.ID, err)
	}
	return nil
}

// DeleteField removes field id.
func (tx *Tx) DeleteField(ctx context.Context, id int64) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM fields WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete field %d: %w", id, err)
	}
	return nil
}
