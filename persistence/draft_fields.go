package persistence

import (
	"context"
	"slices"

	"github.com/sobre-sign/sobre/envelope"
)

// RemoveField deletes field id from its envelope, which is not finished. Refused when its
// recipient has acted, and, once the envelope is PENDING, when the field asks for a proof (a
// RUT_FIRMADO field asks for Clave Única) that its recipient would no longer have to give. It
// records FIELD_DELETED.
func (s *Store) RemoveField(ctx context.Context, ed Editor, id int64) error {
	return s.InTx(ctx, func(tx *Tx) error {
		f, ref, err := tx.LockField(ctx, ed.scope(), id)
		if err != nil {
			return err
		}
		if err := ed.mayChange(ref); err != nil {
			return err
		}
		rec, _, err := tx.LockRecipient(ctx, ed.scope(), f.RecipientID)
		if err != nil {
			return err
		}
		if err := tx.RequireUnacted(ctx, rec.ID, envelope.FrozenFields); err != nil {
			return err
		}
		if ref.Status == envelope.StatusPending {
			// A RUT_FIRMADO field asks for Clave Única: deleting it must not drop the proof.
			e, err := tx.GetEnvelope(ctx, ed.scope(), ref.ID)
			if err != nil {
				return err
			}
			rest := slices.DeleteFunc(slices.Clone(e.Fields), func(g envelope.Field) bool { return g.ID == f.ID })
			if lost := envelope.ProofsLost(envelope.RequiredProofs(rec, e.AuthOptions, e.Fields), envelope.RequiredProofs(rec, e.AuthOptions, rest)); len(lost) > 0 {
				return envelope.Invalid("fieldId", "the envelope was sent: deleting this field would drop %v from what recipient %d must prove", lost, rec.ID)
			}
		}
		if err := tx.DeleteField(ctx, f.ID); err != nil {
			return err
		}
		if err := tx.Touch(ctx, ref.ID); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, ref.ID, envelope.FieldDeletedAudit(f, rec), ed.Actor)
	})
}
