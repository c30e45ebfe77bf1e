// Envelopes: creating, saving, duplicating and deleting them.

package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// NewEnvelope is everything a create writes.
type NewEnvelope struct {
	Envelope    envelope.Envelope // scalar fields and Meta; ids and timestamps are assigned
	Items       []Document
	Recipients  []NewRecipient
	Attachments []envelope.Attachment
	// Created replaces the DOCUMENT_CREATED entry (a direct link's names its visitor); nil: the
	// usual one.
	Created *envelope.Audit
	// ID, when set, is the id the envelope gets, decided beforehand (a bulk send's row): a
	// second create with it fails on the primary key, so it is made once.
	ID string
}

func merge(maps ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// CreateEnvelope writes a new envelope with its items, recipients, fields and attachments, and
// the audit entries of its creation, and returns its id.
func (tx *Tx) CreateEnvelope(ctx context.Context, m envelope.Member, in NewEnvelope, a envelope.Actor) (string, error) {
	e := in.Envelope
	e.ID = in.ID
	if e.ID == "" {
		e.ID = NewEnvelopeID()
	}
	seq, prefix := "document_number_seq", "document_"
	if e.Type == envelope.TypeTemplate {
		seq, prefix = "template_number_seq", "template_"
	}
	if err := tx.q.QueryRow(ctx, `SELECT nextval('`+seq+`')`).Scan(&e.LegacyID); err != nil {
		return "", fmt.Errorf("number new envelope: %w", err)
	}
	e.SecondaryID = fmt.Sprintf("%s%d", prefix, e.LegacyID)
	e.Meta.ID = newCUID()
	meta, err := json.Marshal(e.Meta)
	if err != nil {
		return "", fmt.Errorf("encode document meta: %w", err)
	}
	var formValues []byte
	if e.FormValues != nil {
		if formValues, err = json.Marshal(e.FormValues); err != nil {
			return "", fmt.Errorf("encode form values: %w", err)
		}
	}
	_, err = tx.q.Exec(ctx, `INSERT INTO envelopes (id, secondary_id, legacy_id, internal_version, type, status, source,
		visibility, template_type, external_id, title, global_access_auth, global_action_auth, form_values,
		user_id, team_id, folder_id, template_id, document_meta)
		VALUES ($1, $2, $3, 2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		e.ID, e.SecondaryID, e.LegacyID, e.Type, envelope.StatusDraft, e.Source, e.Visibility, e.TemplateType,
		e.ExternalID, e.Title, fromEnums(e.AuthOptions.GlobalAccessAuth), fromEnums(e.AuthOptions.GlobalActionAuth),
		formValues, m.UserID, m.TeamID, e.FolderID, e.TemplateID, meta)
	if err != nil {
		return "", fmt.Errorf("insert envelope: %w", err)
	}
	created := envelope.DocumentCreatedAudit(e.Title, e.Source, e.TemplateID)
	if in.Created != nil {
		created = *in.Created
	}
	if err := tx.AppendAudit(ctx, e.ID, created, a); err != nil {
		return "", err
	}
	itemIDs := make([]string, len(in.Items))
	for i, doc := range in.Items {
		item, err := tx.AddItem(ctx, e.ID, doc, i+1, a)
		if err != nil {
			return "", err
		}
		itemIDs[i] = item.ID
	}
	for _, nr := range in.Recipients {
		r, err := tx.AddRecipient(ctx, e.ID, nr.Recipient, a)
		if err != nil {
			return "", err
		}
		for _, nf := range nr.Fields {
			f := nf.Field
			if f.EnvelopeItemID == "" {
				f.EnvelopeItemID = itemIDs[nf.Item]
			}
			f.RecipientID = r.ID
			if _, err := tx.AddField(ctx, e.ID, f, r, a); err != nil {
				return "", err
			}
		}
	}
	for _, att := range in.Attachments {
		if _, err := tx.AddAttachment(ctx, e.ID, att); err != nil {
			return "", err
		}
	}
	if err := tx.emitWebhooks(ctx, e.ID, time.Now(), envelope.CreatedWebhookEvent(e.Type)); err != nil {
		return "", err
	}
	return e.ID, nil
}

// SaveEnvelope writes the envelope's changeable scalar members and its meta, and sets updatedAt.
func (tx *Tx) SaveEnvelope(ctx context.Context, e *envelope.Envelope) error {
	meta, err := json.Marshal(e.Meta)
	if err != nil {
		return fmt.Errorf("encode document meta: %w", err)
	}
	_, err = tx.q.Exec(ctx, `UPDATE envelopes SET title = $2, external_id = $3, visibility = $4, template_type = $5,
		global_access_auth = $6, global_action_auth = $7, folder_id = $8, document_meta = $9, updated_at = now()
		WHERE id = $1`, e.ID, e.Title, e.ExternalID, e.Visibility, e.TemplateType,
		fromEnums(e.AuthOptions.GlobalAccessAuth), fromEnums(e.AuthOptions.GlobalActionAuth), e.FolderID, meta)
	if err != nil {
		return fmt.Errorf("save envelope %s: %w", e.ID, err)
	}
	return nil
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

// HardDelete removes an envelope and everything of it (items, recipients, fields, attachments,
// audit entries); its files stay while another envelope uses them.
func (s *Store) HardDelete(ctx context.Context, id string) error {
	return s.InTx(ctx, func(tx *Tx) error { return tx.HardDelete(ctx, id) })
}

// HardDelete removes an envelope within the transaction; its webhook event, if any
// (envelope.DeletedWebhookEvent), carries it as it was just before.
func (tx *Tx) HardDelete(ctx context.Context, id string) error {
	var typ envelope.Type
	var status envelope.Status
	err := tx.q.QueryRow(ctx, `SELECT type, status FROM envelopes WHERE id = $1 FOR UPDATE`, id).Scan(&typ, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // removed already
	}
	if err != nil {
		return fmt.Errorf("delete envelope %s: %w", id, err)
	}
	if ev, ok := envelope.DeletedWebhookEvent(typ, status); ok {
		// Written now: when the transaction ends, the envelope is gone.
		if err := tx.writeWebhookEvents(ctx, id, time.Now(), map[string][]byte{}, ev); err != nil {
			return err
		}
	}
	if _, err := tx.q.Exec(ctx, `DELETE FROM envelopes WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete envelope %s: %w", id, err)
	}
	if _, err := tx.q.Exec(ctx, `DELETE FROM document_data d WHERE NOT EXISTS (
		SELECT 1 FROM envelope_items i WHERE i.document_data_id = d.id OR i.initial_data_id = d.id)`); err != nil {
		return fmt.Errorf("delete unused files: %w", err)
	}
	return nil
}

// MarkRemoving records that PENDING envelope id is being deleted by its workflow, which mails the
// recipients who were sent it before removing it: it is hidden from searches at once, and its
// requests and reminders are no longer due (ClaimMail, MailTransmitting), so none still being
// retried reaches a recipient of a deleted envelope.
func (s *Store) MarkRemoving(ctx context.Context, id string) error {
	if err := hide(ctx, s.pool, id); err != nil {
		return fmt.Errorf("mark envelope %s being removed: %w", id, err)
	}
	return nil
}

// SoftDelete hides a finished envelope from searches, recording envelope.DeletedEvent
// (DOCUMENT_DELETED {type: SOFT}).
func (tx *Tx) SoftDelete(ctx context.Context, id string, a envelope.Actor) error {
	if err := hide(ctx, tx.q, id); err != nil {
		return fmt.Errorf("soft delete: %w", err)
	}
	return tx.Record(ctx, envelope.DeletedEvent(id, time.Now()), a)
}

// hide sets envelope id's deleted_at, once: it leaves searches.
func hide(ctx context.Context, q querier, id string) error {
	if _, err := q.Exec(ctx, `UPDATE envelopes SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL`, id); err != nil {
		return fmt.Errorf("hide envelope %s: %w", id, err)
	}
	return nil
}
