package persistence

import (
	"context"

	"github.com/sobre-sign/sobre/envelope"
)

// CopyEnvelope copies envelope id into a new DRAFT owned by the editor (Tx.DuplicateEnvelope),
// with its recipients when withRecipients and their fields when withFields, and returns the
// copy's id. Refused to an editor who may not manage the envelope.
func (s *Store) CopyEnvelope(ctx context.Context, ed Editor, id string, withRecipients, withFields bool) (string, error) {
	var copyID string
	err := s.InTx(ctx, func(tx *Tx) error {
		src, err := tx.GetEnvelope(ctx, ed.scope(), id)
		if err != nil {
			return err
		}
		if err := envelope.MayManage(ed.Member, src.Owned()); err != nil {
			return err
		}
		copyID, err = tx.DuplicateEnvelope(ctx, ed.Member, src, withRecipients, withFields, ed.Actor)
		return err
	})
	return copyID, err
}

// DeleteUnsent deletes envelope id, which is not PENDING: a DRAFT is removed with everything of
// it; a finished one is hidden from searches (soft delete, DOCUMENT_DELETED). A PENDING envelope
// is its workflow's to end and delete, and is refused, as is an editor who may not manage it.
func (s *Store) DeleteUnsent(ctx context.Context, ed Editor, id string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.LockEnvelope(ctx, ed.scope(), id)
		if err != nil {
			return err
		}
		if err := envelope.MayManage(ed.Member, cur.Owned()); err != nil {
			return err
		}
		switch cur.Status {
		case envelope.StatusDraft:
			return tx.HardDelete(ctx, cur.ID)
		case envelope.StatusPending:
			return envelope.Errorf(envelope.CodeInvalidRequest, "The envelope was just sent; try again")
		}
		return tx.SoftDelete(ctx, cur.ID, ed.Actor)
	})
}
