package persistence

import (
	"context"

	"github.com/sobre-sign/sobre/envelope"
)

// The changes of an envelope's link attachments while it is not finished.

// CreateAttachment adds att (a checked link) to envelope envelopeID and returns it with its id.
func (s *Store) CreateAttachment(ctx context.Context, ed Editor, envelopeID string, att envelope.Attachment) (envelope.Attachment, error) {
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.EditableEnvelope(ctx, ed, envelopeID); err != nil {
			return err
		}
		var err error
		if att, err = tx.AddAttachment(ctx, envelopeID, att); err != nil {
			return err
		}
		return tx.Touch(ctx, envelopeID)
	})
	return att, err
}

// UpdateAttachment sets the label and link of attachment id.
func (s *Store) UpdateAttachment(ctx context.Context, ed Editor, id, label, data string) error {
	return s.changeAttachment(ctx, ed, id, func(tx *Tx, cur envelope.Attachment) error {
		cur.Label, cur.Data = label, data
		return tx.SaveAttachment(ctx, cur)
	})
}

// RemoveAttachment deletes attachment id.
func (s *Store) RemoveAttachment(ctx context.Context, ed Editor, id string) error {
	return s.changeAttachment(ctx, ed, id, func(tx *Tx, cur envelope.Attachment) error {
		return tx.DeleteAttachment(ctx, cur.ID)
	})
}

// changeAttachment applies change to attachment id, as the editor sees it, in one transaction
// that holds its envelope's lock: refused to an editor who may not manage the envelope and for a
// finished envelope. The envelope is touched.
func (s *Store) changeAttachment(ctx context.Context, ed Editor, id string, change func(tx *Tx, cur envelope.Attachment) error) error {
	return s.InTx(ctx, func(tx *Tx) error {
		cur, ref, err := tx.LockAttachment(ctx, ed.scope(), id)
		if err != nil {
			return err
		}
		if err := ed.mayChange(ref); err != nil {
			return err
		}
		if err := change(tx, cur); err != nil {
			return err
		}
		return tx.Touch(ctx, ref.ID)
	})
}
