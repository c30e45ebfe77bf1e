// Direct links: a template's public link, made, switched and removed by its managers.

package persistence

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

const directLinkColumns = `l.id, l.envelope_id, l.token, l.enabled, l.direct_recipient_id, l.placeholder, l.created_at`

func scanDirectLink(row pgx.Row) (envelope.DirectLink, error) {
	var l envelope.DirectLink
	err := row.Scan(&l.ID, &l.EnvelopeID, &l.Token, &l.Enabled, &l.RecipientID, &l.Placeholder, &l.CreatedAt)
	return l, err
}

// lockTemplate finds, for the editor, the TEMPLATE numbered templateID (the n of template_n),
// locks its row and returns it whole, after envelope.MayChangeDirectLink.
func (tx *Tx) lockTemplate(ctx context.Context, ed Editor, templateID int64) (*envelope.Envelope, error) {
	var id string
	err := tx.q.QueryRow(ctx, `SELECT id FROM envelopes WHERE type = 'TEMPLATE' AND legacy_id = $1 AND team_id = $2 AND deleted_at IS NULL`,
		templateID, ed.Member.TeamID).Scan(&id)
	if err != nil {
		return nil, notFound(err, "Template")
	}
	if err := tx.lockEnvelopeRow(ctx, id); err != nil {
		return nil, err
	}
	e, err := tx.GetEnvelope(ctx, ed.scope(), id)
	if err != nil {
		return nil, err
	}
	return e, envelope.MayChangeDirectLink(ed.Member, e)
}

// CreateDirectLink gives template templateID a direct link (envelope.CheckDirectLinkCreate)
// whose visitors become recipient directRecipientID, or, when nil, a placeholder SIGNER made for
// it (envelope.DirectRecipientEmail). It returns the link and the template's envelope id.
func (s *Store) CreateDirectLink(ctx context.Context, ed Editor, templateID int64, directRecipientID *int64) (envelope.DirectLink, error) {
	var link envelope.DirectLink
	err := s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.lockTemplate(ctx, ed, templateID)
		if err != nil {
			return err
		}
		if err := envelope.CheckDirectLinkCreate(e, e.DirectLink != nil, directRecipientID); err != nil {
			return err
		}
		link = envelope.DirectLink{ID: newCUID(), EnvelopeID: e.ID, Token: NewRecipientToken(), Enabled: true}
		if directRecipientID != nil {
			link.RecipientID = *directRecipientID
		} else {
			r, err := tx.AddRecipient(ctx, e.ID, envelope.Recipient{Email: envelope.DirectRecipientEmail, Name: envelope.DirectRecipientName,
				Role: envelope.RoleSigner}, ed.Actor)
			if err != nil {
				return err
			}
			link.RecipientID, link.Placeholder = r.ID, true
		}
		return tx.q.QueryRow(ctx, `INSERT INTO template_direct_links (id, envelope_id, token, enabled, direct_recipient_id, placeholder)
			VALUES ($1, $2, $3, true, $4, $5) RETURNING created_at`, link.ID, link.EnvelopeID, link.Token, link.RecipientID, link.Placeholder).
			Scan(&link.CreatedAt)
	})
	return link, err
}

// ToggleDirectLink turns template templateID's direct link on or off; a template without one is
// NOT_FOUND.
func (s *Store) ToggleDirectLink(ctx context.Context, ed Editor, templateID int64, enabled bool) (envelope.DirectLink, error) {
	var link envelope.DirectLink
	err := s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.lockTemplate(ctx, ed, templateID)
		if err != nil {
			return err
		}
		if e.DirectLink == nil {
			return envelope.NotFound("Direct link")
		}
		link = *e.DirectLink
		link.Enabled = enabled
		if _, err := tx.q.Exec(ctx, `UPDATE template_direct_links SET enabled = $2 WHERE id = $1`, link.ID, enabled); err != nil {
			return fmt.Errorf("toggle direct link of %s: %w", e.ID, err)
		}
		return nil
	})
	return link, err
}

// DeleteDirectLink removes template templateID's direct link, and the placeholder recipient
// made for it with its fields; a recipient named at creation stays. No link: nothing to do.
func (s *Store) DeleteDirectLink(ctx context.Context, ed Editor, templateID int64) error {
	return s.InTx(ctx, func(tx *Tx) error {
		e, err := tx.lockTemplate(ctx, ed, templateID)
		if err != nil || e.DirectLink == nil {
			return err
		}
		if _, err := tx.q.Exec(ctx, `DELETE FROM template_direct_links WHERE id = $1`, e.DirectLink.ID); err != nil {
			return fmt.Errorf("delete direct link of %s: %w", e.ID, err)
		}
		if !e.DirectLink.Placeholder {
			return nil
		}
		r := e.Recipient(e.DirectLink.RecipientID)
		if r == nil {
			return nil
		}
		if err := tx.DeleteRecipient(ctx, r.ID); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, e.ID, envelope.RecipientDeletedAudit(*r), ed.Actor)
	})
}

// DirectLinkByToken returns the direct link whose token is token and its template, whole: the
// token is the credential. An unknown token, or a deleted template's, is NOT_FOUND; a disabled
// link is returned as it is (the caller says it is disabled).
func (s *Store) DirectLinkByToken(ctx context.Context, token string) (envelope.DirectLink, *envelope.Envelope, error) {
	l, err := scanDirectLink(s.pool.QueryRow(ctx, `SELECT `+directLinkColumns+` FROM template_direct_links l
		JOIN envelopes e ON e.id = l.envelope_id WHERE l.token = $1 AND e.deleted_at IS NULL`, token))
	if errors.Is(err, pgx.ErrNoRows) {
		return l, nil, envelope.NotFound("Direct link")
	}
	if err != nil {
		return l, nil, fmt.Errorf("read direct link: %w", err)
	}
	e, err := s.EnvelopeForRecipient(ctx, l.EnvelopeID)
	return l, e, err
}
