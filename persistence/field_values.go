// Field values: what recipients fill in, and what is filled for them.

package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// FieldValue is a value a recipient puts in a field: CustomText for the field's text, and for
// signatures either Typed or PNG.
type FieldValue struct {
	CustomText string
	Typed      *string
	PNG        []byte
}

// InsertFieldValue sets (or, with v nil, clears) the value of field fieldID for recipient r,
// while the envelope is PENDING and r may fill that field (envelope.MayFillField: its own, or as
// an ASSISTANT those of the recipients after it), as filled by ceremony session sessionID (its
// public id; "" for a caller without one).
func (s *Store) InsertFieldValue(ctx context.Context, r envelope.Recipient, fieldID int64, v *FieldValue, sessionID string, a envelope.Actor) (envelope.Field, error) {
	var f envelope.Field
	err := s.InTx(ctx, func(tx *Tx) error {
		snap, err := tx.lockSnapshot(ctx, r.EnvelopeID)
		if err != nil {
			return err
		}
		if err := tx.sameLink(ctx, r); err != nil {
			return err
		}
		if err := envelope.RequirePending(snap.Status); err != nil {
			return err
		}
		cur := snap.Recipient(r.ID)
		if cur == nil {
			return envelope.NotFound("Recipient")
		}
		f, err = scanField(tx.q.QueryRow(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.id = $1 AND f.envelope_id = $2`, fieldID, r.EnvelopeID))
		if err != nil {
			return notFound(err, "Field")
		}
		if err := envelope.MayFillField(snap.Meta.SigningOrder, snap.Participants(), cur.ID, f.RecipientID, f.Type, time.Now()); err != nil {
			return err
		}
		owner := snap.Recipient(f.RecipientID)
		if owner == nil {
			return envelope.NotFound("Field")
		}
		if owner.ID != cur.ID {
			if err := envelope.MayReplaceValue(f); err != nil {
				return err
			}
		}
		f, err = tx.setFieldValue(ctx, *cur, *owner, f, v, sessionID, a)
		return err
	})
	return f, err
}

// setFieldValue writes value v (nil: cleared) of owner's field f, as filled by recipient filler
// (the owner, or an assistant) through session sessionID, with its audit entry, and returns the
// field as it now is. It logs DOCUMENT_FIELD_INSERTED, or DOCUMENT_FIELD_PREFILLED for an
// assistant's value in another's field (which then records the assistant in prefilled_by), or
// DOCUMENT_FIELD_UNINSERTED (none for clearing a field already empty). A read-only field is
// refused.
func (tx *Tx) setFieldValue(ctx context.Context, filler, owner envelope.Recipient, f envelope.Field, v *FieldValue, sessionID string, a envelope.Actor) (envelope.Field, error) {
	wasEmpty := !f.Inserted
	err := func() error {
		if f.FieldMeta != nil && f.FieldMeta.ReadOnly != nil && *f.FieldMeta.ReadOnly {
			return envelope.Errorf(envelope.CodeInvalidRequest, "Field %d is read-only", f.ID)
		}
		if _, err := tx.q.Exec(ctx, `DELETE FROM signatures WHERE field_id = $1`, f.ID); err != nil {
			return fmt.Errorf("clear signature of field %d: %w", f.ID, err)
		}
		if v == nil {
			f.CustomText, f.Inserted = "", false
		} else {
			f.CustomText, f.Inserted = v.CustomText, true
			if v.Typed != nil || v.PNG != nil {
				if _, err := tx.q.Exec(ctx, `INSERT INTO signatures (field_id, recipient_id, typed, image_png) VALUES ($1, $2, $3, $4)`,
					f.ID, f.RecipientID, v.Typed, v.PNG); err != nil {
					return fmt.Errorf("store signature of field %d: %w", f.ID, err)
				}
			}
		}
		prefilled := v != nil && owner.ID != filler.ID
		f.PrefilledBy = nil
		if prefilled {
			f.PrefilledBy = &filler.ID
		}
		// Who touched the value last, filled or cleared: a session, or the link alone; and the
		// assistant whose value it is. A field an assistant empties is nobody's: its recipient's
		// completion does not take it for another browser's typing.
		var by *string
		switch {
		case v == nil && owner.ID != filler.ID:
		case sessionID != "":
			by = &sessionID
		default:
			link := FilledByLink
			by = &link
		}
		if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = $3, filled_by_session = $4,
			prefilled_by = $5, updated_at = now() WHERE id = $1`,
			f.ID, f.CustomText, f.Inserted, by, f.PrefilledBy); err != nil {
			return fmt.Errorf("insert value of field %d: %w", f.ID, err)
		}
		if v == nil {
			if wasEmpty {
				return nil // nothing was removed: only who last touched the field changed
			}
			return tx.AppendAudit(ctx, f.EnvelopeID, envelope.FieldUninsertedAudit(f), a)
		}
		shown := f.CustomText
		if v.Typed != nil || v.PNG != nil {
			shown = "" // a signature's value is not logged
		}
		if prefilled {
			return tx.AppendAudit(ctx, f.EnvelopeID, envelope.FieldPrefilledAudit(filler, owner, f, shown), a)
		}
		return tx.Record(ctx, envelope.FieldInsertedEvent(filler, f, shown, time.Now()), a)
	}()
	return f, err
}

// autoInsert fills, as the envelope is sent, the fields whose value is already known: preset
// TEXT, NUMBER and RUT values, ticked RADIO and CHECKBOX options, a DROPDOWN's default, and
// EMAIL fields with the recipient's address (Documenso's auto-insert). It logs
// DOCUMENT_FIELDS_AUTO_INSERTED.
func (tx *Tx) autoInsert(ctx context.Context, snap Snapshot) error {
	rows, err := tx.q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.envelope_id = $1 AND NOT f.inserted ORDER BY f.id`, snap.EnvelopeID)
	if err != nil {
		return fmt.Errorf("load fields of %s: %w", snap.EnvelopeID, err)
	}
	fields, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) })
	if err != nil {
		return fmt.Errorf("read fields of %s: %w", snap.EnvelopeID, err)
	}
	var done []envelope.Field
	for _, f := range fields {
		r := snap.Recipient(f.RecipientID)
		if r == nil {
			continue
		}
		value, ok := envelope.PresetValue(f, *r)
		if !ok {
			continue
		}
		// A preset value is the sender's.
		if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = true, filled_by_session = '`+FilledBySender+`', updated_at = now() WHERE id = $1`,
			f.ID, value); err != nil {
			return fmt.Errorf("auto-insert field %d: %w", f.ID, err)
		}
		done = append(done, f)
	}
	if len(done) == 0 {
		return nil
	}
	return tx.AppendAudit(ctx, snap.EnvelopeID, envelope.FieldsAutoInsertedAudit(done), envelope.SystemActor())
}

// FieldSignature is the signature stored for a field: typed text or a PNG image.
type FieldSignature struct {
	Typed *string
	PNG   []byte
}

// RecipientSignatures returns the signatures recipientID put in its fields, by field id.
func (s *Store) RecipientSignatures(ctx context.Context, recipientID int64) (map[int64]FieldSignature, error) {
	return recipientSignatures(ctx, s.pool, recipientID)
}

func recipientSignatures(ctx context.Context, q querier, recipientID int64) (map[int64]FieldSignature, error) {
	rows, err := q.Query(ctx, `SELECT field_id, typed, image_png FROM signatures WHERE recipient_id = $1`, recipientID)
	if err != nil {
		return nil, fmt.Errorf("read signatures of recipient %d: %w", recipientID, err)
	}
	defer rows.Close()
	out := map[int64]FieldSignature{}
	for rows.Next() {
		var id int64
		var sig FieldSignature
		if err := rows.Scan(&id, &sig.Typed, &sig.PNG); err != nil {
			return nil, fmt.Errorf("read signatures of recipient %d: %w", recipientID, err)
		}
		out[id] = sig
	}
	return out, rows.Err()
}
