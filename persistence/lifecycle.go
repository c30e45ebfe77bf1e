package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// HardDelete removes an envelope and everything of it (items, recipients, fields, attachments,
// audit entries); its files stay while another envelope uses them.
func (s *Store) HardDelete(ctx context.Context, id string) error {
	return s.InTx(ctx, func(tx *Tx) error { return tx.HardDelete(ctx, id) })
}

// HardDelete removes an envelope within the transaction.
func (tx *Tx) HardDelete(ctx context.Context, id string) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM envelopes WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete envelope %s: %w", id, err)
	}
	if _, err := tx.q.Exec(ctx, `DELETE FROM document_data d WHERE NOT EXISTS (
		SELECT 1 FROM envelope_items i WHERE i.document_data_id = d.id OR i.initial_data_id = d.id)`); err != nil {
		return fmt.Errorf("delete unused files: %w", err)
	}
	return nil
}

// SoftDelete hides a finished envelope from searches, recording envelope.DeletedEvent
// (DOCUMENT_DELETED {type: SOFT}).
func (tx *Tx) SoftDelete(ctx context.Context, id string, a envelope.Actor) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelopes SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL`, id); err != nil {
		return fmt.Errorf("soft delete %s: %w", id, err)
	}
	return tx.Record(ctx, envelope.DeletedEvent(id, time.Now()), a)
}

// RenewDeadlines gives the listed recipients who still have to act a new deadline (nil: none),
// clears their count of wrong access codes (a locked code entry takes codes again, through a new
// link: ReplaceLink) and returns them.
func (s *Store) RenewDeadlines(ctx context.Context, envelopeID string, ids []int64, expiresAt *time.Time) ([]envelope.Recipient, error) {
	var renewed []envelope.Recipient
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, envelopeID); err != nil {
			return err
		}
		rows, err := tx.q.Query(ctx, `UPDATE recipients r SET expires_at = $3, expiration_notified_at = NULL, updated_at = now()
			WHERE r.envelope_id = $1 AND r.id = ANY($2) AND r.role <> 'CC' AND r.signing_status = 'NOT_SIGNED'
			RETURNING `+recipientColumns, envelopeID, ids, expiresAt)
		if err != nil {
			return fmt.Errorf("renew deadlines in %s: %w", envelopeID, err)
		}
		renewed, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Recipient, error) { return scanRecipient(row, tx.ring) })
		if err != nil {
			return fmt.Errorf("renew deadlines in %s: %w", envelopeID, err)
		}
		renewedIDs := make([]int64, len(renewed))
		for i, r := range renewed {
			renewedIDs[i] = r.ID
			// A code entry locked by wrong guesses was being guessed through this link: the
			// recipient is sent a new one, and the old one only says it was replaced.
			var locked bool
			if err := tx.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM access_code_guards
				WHERE recipient_id = $1 AND link_version = $2 AND locked_at IS NOT NULL)`, r.ID, r.LinkVersion).Scan(&locked); err != nil {
				return fmt.Errorf("read the code entry of recipient %d: %w", r.ID, err)
			}
			if locked {
				if err := tx.ReplaceLink(ctx, r); err != nil {
					return err
				}
				renewed[i].LinkVersion++
			}
		}
		return tx.openCodeEntries(ctx, renewedIDs)
	})
	return renewed, err
}

// DuplicateEnvelope copies an envelope into a new DRAFT: its items (sharing their files), meta,
// attachments and, when asked, recipients (with new tokens) and their fields.
func (tx *Tx) DuplicateEnvelope(ctx context.Context, m envelope.Member, src *envelope.Envelope, recipients, fields bool, a envelope.Actor) (string, error) {
	ne := NewEnvelope{Envelope: *src, Attachments: src.Attachments}
	ne.Envelope.Status = envelope.StatusDraft
	items := map[string]int{}
	for i, it := range src.Items {
		var d Document
		var pages []byte
		err := tx.q.QueryRow(ctx, `SELECT data, page_sizes FROM document_data WHERE id = $1`, it.DocumentDataID).Scan(&d.Data, &pages)
		if err != nil {
			return "", fmt.Errorf("load file of item %s: %w", it.ID, err)
		}
		if err := jsonUnmarshal(pages, &d.Pages); err != nil {
			return "", err
		}
		d.Title = it.Title
		ne.Items = append(ne.Items, d)
		items[it.ID] = i
	}
	if recipients {
		for _, r := range src.Recipients {
			nr := NewRecipient{Recipient: envelope.Recipient{Email: r.Email, Name: r.Name, Role: r.Role, SigningOrder: r.SigningOrder, AuthOptions: r.AuthOptions,
				ExpectedRUT: r.ExpectedRUT}}
			if fields {
				for _, f := range src.Fields {
					if f.RecipientID == r.ID {
						nf := f
						nf.ID, nf.SecondaryID, nf.EnvelopeItemID, nf.Inserted, nf.CustomText = 0, "", "", false, ""
						nr.Fields = append(nr.Fields, NewField{Field: nf, Item: items[f.EnvelopeItemID]})
					}
				}
			}
			ne.Recipients = append(ne.Recipients, nr)
		}
	}
	return tx.CreateEnvelope(ctx, m, ne, a)
}

// UpdateItem sets an item's title and order.
func (tx *Tx) UpdateItem(ctx context.Context, it envelope.Item) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelope_items SET title = $2, item_order = $3 WHERE id = $1`, it.ID, it.Title, it.Order); err != nil {
		return fmt.Errorf("update item %s: %w", it.ID, err)
	}
	return nil
}

// ParkItemOrders moves every item of an envelope to a negative order, so that new orders can be
// assigned without tripping the uniqueness of (envelope, order).
func (tx *Tx) ParkItemOrders(ctx context.Context, envelopeID string) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelope_items SET item_order = -item_order WHERE envelope_id = $1`, envelopeID); err != nil {
		return fmt.Errorf("park item orders of %s: %w", envelopeID, err)
	}
	return nil
}

// DeleteItem removes an item and its fields.
func (tx *Tx) DeleteItem(ctx context.Context, id string) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM envelope_items WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete item %s: %w", id, err)
	}
	return nil
}

// ItemByID returns item id with its envelope's reference, as the scope sees them.
func (s *Store) ItemByID(ctx context.Context, sc Scope, id string) (envelope.Item, EnvelopeRef, error) {
	var it envelope.Item
	var ref EnvelopeRef
	err := s.pool.QueryRow(ctx, `SELECT i.id, i.envelope_id, i.document_data_id, i.title, i.item_order, e.type, e.status, e.user_id, e.team_id, e.visibility
		FROM envelope_items i JOIN envelopes e ON e.id = i.envelope_id WHERE i.id = $1 AND `+visibleSQL(2),
		id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&it.ID, &it.EnvelopeID, &it.DocumentDataID, &it.Title, &it.Order,
		&ref.Type, &ref.Status, &ref.UserID, &ref.TeamID, &ref.Visibility)
	if err != nil {
		return it, ref, notFound(err, "Envelope item")
	}
	ref.ID = it.EnvelopeID
	return it, ref, nil
}

// OriginalFile returns the item's file exactly as it was uploaded.
func (s *Store) OriginalFile(ctx context.Context, itemID string) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT d.data FROM envelope_items i JOIN document_data d ON d.id = i.initial_data_id WHERE i.id = $1`, itemID).Scan(&data)
	if err != nil {
		return nil, notFound(err, "Envelope item")
	}
	return data, nil
}

// AttachmentByID returns attachment id and its envelope's reference as the scope sees them.
func (tx *Tx) AttachmentByID(ctx context.Context, sc Scope, id string) (envelope.Attachment, EnvelopeRef, error) {
	var a envelope.Attachment
	var envelopeID string
	err := tx.q.QueryRow(ctx, `SELECT a.id, a.type, a.label, a.data, a.envelope_id FROM attachments a JOIN envelopes e ON e.id = a.envelope_id
		WHERE a.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&a.ID, &a.Type, &a.Label, &a.Data, &envelopeID)
	if err != nil {
		return a, EnvelopeRef{}, notFound(err, "Attachment")
	}
	ref, err := tx.LockEnvelope(ctx, sc, envelopeID)
	return a, ref, err
}

// SaveAttachment writes an attachment's label and link.
func (tx *Tx) SaveAttachment(ctx context.Context, a envelope.Attachment) error {
	if _, err := tx.q.Exec(ctx, `UPDATE attachments SET label = $2, data = $3 WHERE id = $1`, a.ID, a.Label, a.Data); err != nil {
		return fmt.Errorf("update attachment %s: %w", a.ID, err)
	}
	return nil
}

// DeleteAttachment removes an attachment.
func (tx *Tx) DeleteAttachment(ctx context.Context, id string) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM attachments WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete attachment %s: %w", id, err)
	}
	return nil
}
