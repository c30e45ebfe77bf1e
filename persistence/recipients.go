// Recipients: adding, reading, changing and deleting an envelope's recipients.

package persistence

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

const recipientColumns = `r.id, r.envelope_id, r.email, r.name, r.role, r.token, r.token_sealed, r.token_key_id, r.read_status, r.signing_status,
	r.send_status, r.signing_order, r.sent_at, r.signed_at, r.expires_at, r.expiration_notified_at,
	r.document_deleted_at, r.rejection_reason, r.access_auth, r.action_auth, r.expected_rut, r.link_version, r.delivery_error, r.outcome_request`

// scanRecipient reads a row of recipientColumns, its signing token opened with ring (see
// storedToken.open).
func scanRecipient(row pgx.Row, ring *keyring.Ring) (envelope.Recipient, error) {
	var r envelope.Recipient
	var access, action []string
	var tok storedToken
	err := row.Scan(&r.ID, &r.EnvelopeID, &r.Email, &r.Name, &r.Role, &tok.plain, &tok.sealed, &tok.keyID, &r.ReadStatus, &r.SigningStatus,
		&r.SendStatus, &r.SigningOrder, &r.SentAt, &r.SignedAt, &r.ExpiresAt, &r.ExpirationNotifiedAt,
		&r.DocumentDeletedAt, &r.RejectionReason, &access, &action, &r.ExpectedRUT, &r.LinkVersion, &r.DeliveryError, &r.OutcomeRequest)
	if err != nil {
		return r, err
	}
	r.AuthOptions = envelope.RecipientAuthOptions{AccessAuth: toEnums[envelope.AccessAuth](access), ActionAuth: toEnums[envelope.ActionAuth](action)}
	r.Token, err = tok.open(ring, r.ID)
	return r, err
}

// NewRecipient is a recipient to create with its fields.
type NewRecipient struct {
	envelope.Recipient
	Fields []NewField
}

// AddRecipient adds r (its id and token assigned) to the envelope.
func (tx *Tx) AddRecipient(ctx context.Context, envelopeID string, r envelope.Recipient, a envelope.Actor) (envelope.Recipient, error) {
	r.EnvelopeID = envelopeID
	if tx.ring == nil {
		return r, ErrNoKeyring
	}
	r.Token = NewRecipientToken()
	r.ReadStatus, r.SigningStatus, r.SendStatus = envelope.ReadStatusNotOpened, envelope.SigningStatusNotSigned, envelope.SendStatusNotSent
	// The hash goes in with the row; the sealed token once the row's id, which it is bound to, is
	// known.
	err := tx.q.QueryRow(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token_hash, signing_order, access_auth, action_auth, expected_rut)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`, envelopeID, r.Email, r.Name, r.Role, TokenHash(r.Token), r.SigningOrder,
		fromEnums(r.AuthOptions.AccessAuth), fromEnums(r.AuthOptions.ActionAuth), r.ExpectedRUT).Scan(&r.ID)
	if err != nil {
		return r, fmt.Errorf("insert recipient: %w", err)
	}
	if err := tx.setToken(ctx, r.ID, r.Token); err != nil {
		return r, err
	}
	return r, tx.AppendAudit(ctx, envelopeID, envelope.RecipientCreatedAudit(r), a)
}

// LockRecipient returns recipient id and its envelope's reference as the scope sees them, locking
// the envelope's row until the transaction ends (LockEnvelope).
func (tx *Tx) LockRecipient(ctx context.Context, sc Scope, id int64) (envelope.Recipient, EnvelopeRef, error) {
	envelopeID, err := envelopeIDOf(ctx, tx.q, sc, recipientRows, id)
	if err != nil {
		return envelope.Recipient{}, EnvelopeRef{}, err
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

// RecipientForSigning returns recipient id with no team scope, for the signing side, whose caller
// proved its right to the recipient otherwise (the Clave Única callback knows the recipient, not
// the token), as EnvelopeForRecipient does for its envelope.
func (s *Store) RecipientForSigning(ctx context.Context, id int64) (envelope.Recipient, error) {
	r, err := scanRecipient(s.pool.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1`, id), s.ring)
	if err != nil {
		return r, notFound(err, "Recipient")
	}
	return r, nil
}

// EnvelopeIDOfRecipient returns the envelope of recipient id as the scope sees it.
func (s *Store) EnvelopeIDOfRecipient(ctx context.Context, sc Scope, id int64) (string, error) {
	return envelopeIDOf(ctx, s.pool, sc, recipientRows, id)
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

// UpdateRecipient writes r's person members (email, name, role, order, auth, expected RUN). When
// the change replaces its signing link (envelope.ReplacesLink against what is stored), the link
// is replaced in the same transaction (ReplaceLink); replaced reports it. A new email address
// clears the recipient's delivery error, which was the relay's answer about the old one.
func (tx *Tx) UpdateRecipient(ctx context.Context, r envelope.Recipient) (replaced bool, err error) {
	old, err := scanRecipient(tx.q.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1 FOR UPDATE`, r.ID), tx.ring)
	if err != nil {
		return false, notFound(err, "Recipient")
	}
	_, err = tx.q.Exec(ctx, `UPDATE recipients SET email = $2, name = $3, role = $4, signing_order = $5,
		access_auth = $6, action_auth = $7, expected_rut = $8, delivery_error = CASE WHEN $9 THEN NULL ELSE delivery_error END,
		updated_at = now() WHERE id = $1`, r.ID, r.Email, r.Name, r.Role,
		r.SigningOrder, fromEnums(r.AuthOptions.AccessAuth), fromEnums(r.AuthOptions.ActionAuth), r.ExpectedRUT, !envelope.SameEmail(old.Email, r.Email))
	if err != nil {
		return false, fmt.Errorf("update recipient %d: %w", r.ID, err)
	}
	if !envelope.ReplacesLink(old, r) {
		return false, nil
	}
	return true, tx.ReplaceLink(ctx, old)
}

// DeleteRecipient removes recipient id and its fields.
func (tx *Tx) DeleteRecipient(ctx context.Context, id int64) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM recipients WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete recipient %d: %w", id, err)
	}
	return nil
}
