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

// AddFields adds the fields in to envelope envelopeID and returns the envelope after the change
// with the new fields' ids. Each is placed by coordinates on a page of its document (the first
// when it names none) or, while the envelope is a DRAFT, by placeholder text (Placement): every
// occurrence with matchAll, the first otherwise, which is then whited out of the document. A
// field's recipient must fill fields (not a CC or VIEWER) and not have acted. A problem with
// in[i] is reported at data[i]. Each field gets FIELD_CREATED.
func (s *Store) AddFields(ctx context.Context, ed Editor, place Placement, envelopeID string, in []envelope.FieldInput) (*envelope.Envelope, []int64, error) {
	var ids []int64
	e, err := s.editEnvelope(ctx, ed, envelopeID, func(tx *Tx, e *envelope.Envelope) error {
		var err error
		items, err := tx.ItemPages(ctx, e.ID)
		if err != nil {
			return err
		}
		type pending struct {
			f   envelope.Field
			rec envelope.Recipient
		}
		var todo []pending
		var p envelope.Problems
		whiteouts := map[string][]TextBox{}
		for i, fin := range in {
			path := envelope.Join("data", i)
			var rec *envelope.Recipient
			if fin.RecipientID == nil {
				p.Add(envelope.Join(path, "recipientId"), "is required")
			} else if rec = e.Recipient(*fin.RecipientID); rec == nil {
				p.Add(envelope.Join(path, "recipientId"), "recipient %d is not in envelope %s", *fin.RecipientID, e.ID)
			}
			if rec != nil && !rec.Role.FillsFields() {
				p.Add(envelope.Join(path, "recipientId"), "recipient %d is a %s and fills no fields", rec.ID, rec.Role)
			}
			item := itemFor(&p, envelope.Join(path, "envelopeItemId"), fin.EnvelopeItemID, items)
			if fin.Placeholder != nil && e.Status != envelope.StatusDraft {
				// Placing by text whites the placeholder out, a change of the document's bytes,
				// and a sent envelope's documents are what its recipients were shown.
				p.Add(envelope.Join(path, "placeholder"), "the documents of a %s envelope are frozen and a placeholder would change them; place the field by coordinates", e.Status)
				continue
			}
			if fin.Placeholder != nil {
				for _, f := range place.placeByText(ctx, tx, &p, path, fin, item, whiteouts) {
					if rec != nil {
						todo = append(todo, pending{f, *rec})
					}
				}
				continue
			}
			pages := 0
			if item != nil {
				pages = len(item.Pages)
			}
			f, ok := envelope.CheckFieldInput(&p, path, fin, pages, true)
			if item != nil {
				f.EnvelopeItemID = item.ID
			}
			if rec != nil && ok {
				todo = append(todo, pending{f, *rec})
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
		for _, t := range todo {
			if err := tx.RequireUnacted(ctx, t.rec.ID, envelope.FrozenFields); err != nil {
				return err
			}
			f, err := tx.AddField(ctx, e.ID, t.f, t.rec, ed.Actor)
			if err != nil {
				return err
			}
			ids = append(ids, f.ID)
		}
		for itemID, boxes := range whiteouts {
			if err := place.whiteOut(ctx, tx, itemID, boxes); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	return e, ids, err
}

// UpdateFields changes the fields in (each names its field by ID) of envelope envelopeID, only
// while it is a DRAFT, and returns the envelope after the change with the changed fields' ids: a
// member left out keeps its value (the meta too, unless the type changes), a page must be on the
// field's document. A problem with in[i] is reported at data[i]. Each field gets FIELD_UPDATED.
func (s *Store) UpdateFields(ctx context.Context, ed Editor, envelopeID string, in []envelope.FieldInput) (*envelope.Envelope, []int64, error) {
	var ids []int64
	e, err := s.editEnvelope(ctx, ed, envelopeID, func(tx *Tx, e *envelope.Envelope) error {
		var err error
		if err := envelope.RequireDraft(e.Status, "Fields can only be updated"); err != nil {
			return err
		}
		items, err := tx.ItemPages(ctx, e.ID)
		if err != nil {
			return err
		}
		var p envelope.Problems
		for i, fin := range in {
			path := envelope.Join("data", i)
			if fin.ID == nil {
				p.Add(envelope.Join(path, "id"), "is required")
				continue
			}
			var cur *envelope.Field
			for k := range e.Fields {
				if e.Fields[k].ID == *fin.ID {
					cur = &e.Fields[k]
				}
			}
			if cur == nil {
				p.Add(envelope.Join(path, "id"), "field %d is not in envelope %s", *fin.ID, e.ID)
				continue
			}
			next := *cur
			itemID := cur.EnvelopeItemID
			if fin.EnvelopeItemID != nil {
				itemID = *fin.EnvelopeItemID
			}
			item := itemFor(&p, envelope.Join(path, "envelopeItemId"), &itemID, items)
			pages := 0
			if item != nil {
				pages = len(item.Pages)
				next.EnvelopeItemID = item.ID
			}
			if fin.Type == nil {
				t := string(cur.Type)
				fin.Type = &t
			}
			f, _ := envelope.CheckFieldInput(&p, path, fin, pages, false)
			next.Type, next.FieldMeta = f.Type, f.FieldMeta
			if fin.FieldMeta == nil && f.Type == cur.Type {
				next.FieldMeta = cur.FieldMeta
			}
			if fin.Page != nil {
				next.Page = *fin.Page
			} else if pages > 0 && next.Page > pages {
				p.Add(envelope.Join(path, "page"), "must be at most %d (the document's page count), got %d", pages, next.Page)
			}
			setIf(&next.PositionX, fin.PositionX)
			setIf(&next.PositionY, fin.PositionY)
			setIf(&next.Width, fin.Width)
			setIf(&next.Height, fin.Height)
			if err := p.Err(); err != nil {
				continue
			}
			if err := tx.UpdateField(ctx, next); err != nil {
				return err
			}
			rec := e.Recipient(cur.RecipientID)
			if err := tx.AppendAudit(ctx, e.ID, envelope.FieldUpdatedAudit(*cur, next, *rec), ed.Actor); err != nil {
				return err
			}
			ids = append(ids, next.ID)
		}
		if err := p.Err(); err != nil {
			return err
		}
		return nil
	}, nil)
	return e, ids, err
}

func setIf(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}
