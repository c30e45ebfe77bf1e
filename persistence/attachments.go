// Attachments: links an envelope carries to its recipients.

package persistence

import (
	"context"
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// AddAttachment adds a link attachment to the envelope.
func (tx *Tx) AddAttachment(ctx context.Context, envelopeID string, att envelope.Attachment) (envelope.Attachment, error) {
	att.ID = newCUID()
	if att.Type == "" {
		att.Type = envelope.AttachmentTypeLink
	}
	_, err := tx.q.Exec(ctx, `INSERT INTO attachments (id, envelope_id, type, label, data) VALUES ($1, $2, $3, $4, $5)`,
		att.ID, envelopeID, att.Type, att.Label, att.Data)
	if err != nil {
		return att, fmt.Errorf("insert attachment: %w", err)
	}
	return att, nil
}

// Attachments returns the attachments of envelope id.
func (s *Store) Attachments(ctx context.Context, envelopeID string) ([]envelope.Attachment, error) {
	list := []*envelope.Envelope{{ID: envelopeID}}
	if err := loadChildren(ctx, s.pool, s.ring, list, true); err != nil {
		return nil, err
	}
	return list[0].Attachments, nil
}

// LockAttachment returns attachment id and its envelope's reference as the scope sees them,
// locking the envelope's row until the transaction ends (LockEnvelope).
func (tx *Tx) LockAttachment(ctx context.Context, sc Scope, id string) (envelope.Attachment, EnvelopeRef, error) {
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
