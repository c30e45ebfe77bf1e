package persistence

import (
	"context"
	"strconv"

	"github.com/sobre-sign/sobre/envelope"
)

// The changes of an envelope's documents (items), only while it is a DRAFT: a sent envelope's
// documents are what its recipients were shown. A problem with one of the listed items is
// reported at data[i], the i-th of the list.

// editableDocuments locks and loads envelope id for a change of its documents: refused as
// Tx.EditableEnvelope does, and unless the envelope is a DRAFT.
func (tx *Tx) editableDocuments(ctx context.Context, ed Editor, id string) (*envelope.Envelope, error) {
	e, err := tx.EditableEnvelope(ctx, ed, id)
	if err != nil {
		return nil, err
	}
	return e, documentsEditable(e)
}

// documentsEditable refuses a change of e's documents unless e is a DRAFT.
func documentsEditable(e *envelope.Envelope) error {
	return envelope.RequireDraft(e.Status, "Documents can only change")
}

// AddItems adds docs (checked PDFs) after the documents of envelope envelopeID and returns the
// new items, in the order of docs. Refused past envelope.MaxItems. Each gets ENVELOPE_ITEM_CREATED.
func (s *Store) AddItems(ctx context.Context, ed Editor, envelopeID string, docs []Document) ([]envelope.Item, error) {
	var created []envelope.Item
	err := s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.editableDocuments(ctx, ed, envelopeID)
		if err != nil {
			return err
		}
		if len(e.Items)+len(docs) > envelope.MaxItems {
			return envelope.Errorf(envelope.CodeItemLimit, "An envelope holds at most %d documents", envelope.MaxItems)
		}
		next := 1
		for _, it := range e.Items {
			next = max(next, it.Order+1)
		}
		for i, d := range docs {
			it, err := tx.AddItem(ctx, e.ID, d, next+i, ed.Actor)
			if err != nil {
				return err
			}
			created = append(created, it)
		}
		return tx.Touch(ctx, e.ID)
	})
	return created, err
}

// ItemPatch is a change of one document: a nil member is left as it is. ID is the item's id as
// the request gave it (nil: none).
type ItemPatch struct {
	ID    *string
	Order *int
	Title *string
}

// UpdateItems applies patches to the documents of envelope envelopeID and returns the patched
// items, in the order of patches. A title is 1 to envelope.MaxTitle characters, an order 1 to
// 1000, and no two documents may end with the same order. Each item that changed gets its
// ENVELOPE_ITEM_UPDATED entry.
func (s *Store) UpdateItems(ctx context.Context, ed Editor, envelopeID string, patches []ItemPatch) ([]envelope.Item, error) {
	var updated []envelope.Item
	err := s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.editableDocuments(ctx, ed, envelopeID)
		if err != nil {
			return err
		}
		var p envelope.Problems
		items := append([]envelope.Item(nil), e.Items...)
		type change struct {
			idx     int
			changes []envelope.ItemChange
		}
		var changed []change
		for i, d := range patches {
			path := envelope.Join("data", i)
			idx := -1
			for k, it := range items {
				if d.ID != nil && it.ID == *d.ID {
					idx = k
				}
			}
			if idx < 0 {
				p.Add(envelope.Join(path, "envelopeItemId"), "names no document of envelope %s", e.ID)
				continue
			}
			var ch []envelope.ItemChange
			if d.Title != nil {
				envelope.CheckLength(&p, envelope.Join(path, "title"), *d.Title, 1, envelope.MaxTitle)
				if *d.Title != items[idx].Title {
					ch = append(ch, envelope.ItemChange{Field: "title", From: items[idx].Title, To: *d.Title})
					items[idx].Title = *d.Title
				}
			}
			if d.Order != nil {
				if *d.Order < 1 || *d.Order > 1000 {
					p.Add(envelope.Join(path, "order"), "must be between 1 and 1000, got %d", *d.Order)
				} else if *d.Order != items[idx].Order {
					ch = append(ch, envelope.ItemChange{Field: "order", From: strconv.Itoa(items[idx].Order), To: strconv.Itoa(*d.Order)})
					items[idx].Order = *d.Order
				}
			}
			changed = append(changed, change{idx, ch})
		}
		seen := map[int]bool{}
		for _, it := range items {
			if seen[it.Order] {
				p.Add("data", "two documents would share order %d", it.Order)
			}
			seen[it.Order] = true
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.ParkItemOrders(ctx, e.ID); err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.UpdateItem(ctx, it); err != nil {
				return err
			}
		}
		for _, c := range changed {
			updated = append(updated, items[c.idx])
			if len(c.changes) > 0 {
				if err := tx.AppendAudit(ctx, e.ID, envelope.ItemUpdatedAudit(items[c.idx].ID, c.changes), ed.Actor); err != nil {
					return err
				}
			}
		}
		return tx.Touch(ctx, e.ID)
	})
	return updated, err
}

// RemoveItem deletes document itemID of envelope envelopeID, with its fields. An envelope keeps
// at least one document. It records ENVELOPE_ITEM_DELETED.
func (s *Store) RemoveItem(ctx context.Context, ed Editor, envelopeID, itemID string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.EditableEnvelope(ctx, ed, envelopeID)
		if err != nil {
			return err
		}
		var item *envelope.Item
		for i := range e.Items {
			if e.Items[i].ID == itemID {
				item = &e.Items[i]
			}
		}
		if item == nil {
			return envelope.NotFound("Envelope item")
		}
		if err := documentsEditable(e); err != nil {
			return err
		}
		if len(e.Items) == 1 {
			return envelope.Errorf(envelope.CodeInvalidRequest, "An envelope keeps at least one document")
		}
		if err := tx.DeleteItem(ctx, item.ID); err != nil {
			return err
		}
		if err := tx.AppendAudit(ctx, e.ID, envelope.ItemDeletedAudit(*item), ed.Actor); err != nil {
			return err
		}
		return tx.Touch(ctx, e.ID)
	})
}
