package persistence

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// RecipientByID returns recipient id and its envelope's reference as the scope sees them, locking
// the envelope's row when called in a transaction that changes it.
func (tx *Tx) RecipientByID(ctx context.Context, sc Scope, id int64) (envelope.Recipient, EnvelopeRef, error) {
	var envelopeID string
	if err := tx.q.QueryRow(ctx, `SELECT r.envelope_id FROM recipients r JOIN envelopes e ON e.id = r.envelope_id
		WHERE r.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&envelopeID); err != nil {
		return envelope.Recipient{}, EnvelopeRef{}, notFound(err, "Recipient")
	}
	ref, err := tx.LockEnvelope(ctx, sc, envelopeID)
	if err != nil {
		return envelope.Recipient{}, ref, err
	}
	r, err := scanRecipient(tx.q.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1`, id), tx.ring)
	if err != nil {
		return r, ref, notFound(err, "Recipient")
	}
	return r, ref, nil
}

// FieldByID returns field id and its envelope's reference, locking the envelope's row.
func (tx *Tx) FieldByID(ctx context.Context, sc Scope, id int64) (envelope.Field, EnvelopeRef, error) {
	var envelopeID string
	if err := tx.q.QueryRow(ctx, `SELECT f.envelope_id FROM fields f JOIN envelopes e ON e.id = f.envelope_id
		WHERE f.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&envelopeID); err != nil {
		return envelope.Field{}, EnvelopeRef{}, notFound(err, "Field")
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

// EnvelopeIDOfRecipient returns the envelope of recipient id as the scope sees it.
func (s *Store) EnvelopeIDOfRecipient(ctx context.Context, sc Scope, id int64) (string, error) {
	var envelopeID string
	err := s.pool.QueryRow(ctx, `SELECT r.envelope_id FROM recipients r JOIN envelopes e ON e.id = r.envelope_id
		WHERE r.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&envelopeID)
	if err != nil {
		return "", notFound(err, "Recipient")
	}
	return envelopeID, nil
}

// EnvelopeIDOfField returns the envelope of field id as the scope sees it.
func (s *Store) EnvelopeIDOfField(ctx context.Context, sc Scope, id int64) (string, error) {
	var envelopeID string
	err := s.pool.QueryRow(ctx, `SELECT f.envelope_id FROM fields f JOIN envelopes e ON e.id = f.envelope_id
		WHERE f.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&envelopeID)
	if err != nil {
		return "", notFound(err, "Field")
	}
	return envelopeID, nil
}

// RequireUnacted refuses change to recipient id once they have acted (envelope.RequireUnacted,
// over the recipient and their fields as this transaction sees them).
func (tx *Tx) RequireUnacted(ctx context.Context, id int64, change envelope.Frozen) error {
	r, err := scanRecipient(tx.q.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1`, id), tx.ring)
	if err != nil {
		return notFound(err, "Recipient")
	}
	fields, err := recipientFields(ctx, tx.q, id)
	if err != nil {
		return err
	}
	return envelope.RequireUnacted(r, fields, change)
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

// UpdateRecipient writes r's person members (email, name, role, order, auth, expected RUN). When
// the change replaces its signing link (envelope.ReplacesLink against what is stored), the link
// is replaced in the same transaction (ReplaceLink); replaced reports it.
func (tx *Tx) UpdateRecipient(ctx context.Context, r envelope.Recipient) (replaced bool, err error) {
	old, err := scanRecipient(tx.q.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1 FOR UPDATE`, r.ID), tx.ring)
	if err != nil {
		return false, notFound(err, "Recipient")
	}
	_, err = tx.q.Exec(ctx, `UPDATE recipients SET email = $2, name = $3, role = $4, signing_order = $5,
		access_auth = $6, action_auth = $7, expected_rut = $8, updated_at = now() WHERE id = $1`, r.ID, r.Email, r.Name, r.Role,
		r.SigningOrder, fromEnums(r.AuthOptions.AccessAuth), fromEnums(r.AuthOptions.ActionAuth), r.ExpectedRUT)
	if err != nil {
		return false, fmt.Errorf("update recipient %d: %w", r.ID, err)
	}
	if !envelope.ReplacesLink(old, r) {
		return false, nil
	}
	return true, tx.ReplaceLink(ctx, old)
}

// ReplaceLink gives recipient r a new signing token and ends every way in through the old one:
// its ceremony sessions (and with them their access codes, logins under way and proofs) are
// deleted, and the old token is kept only as a hash (LinkReplaced). link_version counts the
// replacement, so that the workflow mails the new link (it never sees tokens).
func (tx *Tx) ReplaceLink(ctx context.Context, r envelope.Recipient) error {
	if _, err := tx.q.Exec(ctx, `INSERT INTO replaced_links (token_hash, recipient_id) SELECT token_hash, id FROM recipients WHERE id = $1
		ON CONFLICT DO NOTHING`, r.ID); err != nil {
		return fmt.Errorf("keep the replaced link of recipient %d: %w", r.ID, err)
	}
	if _, err := tx.q.Exec(ctx, `UPDATE recipients SET link_version = link_version + 1, updated_at = now() WHERE id = $1`, r.ID); err != nil {
		return fmt.Errorf("replace the link of recipient %d: %w", r.ID, err)
	}
	if err := tx.setToken(ctx, r.ID, NewRecipientToken()); err != nil {
		return err
	}
	if _, err := tx.q.Exec(ctx, `DELETE FROM ceremony_sessions WHERE recipient_id = $1`, r.ID); err != nil {
		return fmt.Errorf("end the sessions of recipient %d: %w", r.ID, err)
	}
	return nil
}

// DeleteRecipient removes recipient id and its fields.
func (tx *Tx) DeleteRecipient(ctx context.Context, id int64) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM recipients WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete recipient %d: %w", id, err)
	}
	return nil
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

// Attachments returns the attachments of envelope id.
func (s *Store) Attachments(ctx context.Context, envelopeID string) ([]envelope.Attachment, error) {
	list := []*envelope.Envelope{{ID: envelopeID}}
	if err := loadChildren(ctx, s.pool, s.ring, list, true); err != nil {
		return nil, err
	}
	return list[0].Attachments, nil
}

// EnvelopeIDOfToken returns the envelope whose recipient holds token.
func (s *Store) EnvelopeIDOfToken(ctx context.Context, token string) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, `SELECT envelope_id FROM recipients WHERE token_hash = $1`, TokenHash(token)).Scan(&id); err != nil {
		return "", notFound(err, "Recipient")
	}
	return id, nil
}
