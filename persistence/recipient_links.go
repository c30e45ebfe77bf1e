// Signing links: finding a recipient by its token, and replacing the link.

package persistence

import (
	"context"
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// RecipientByToken returns the recipient holding a signing token (found by its hash) and its
// envelope's id.
func (s *Store) RecipientByToken(ctx context.Context, token string) (envelope.Recipient, error) {
	r, err := scanRecipient(s.pool.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.token_hash = $1`, TokenHash(token)), nil)
	if err != nil {
		return r, notFound(err, "Recipient")
	}
	r.Token = token // the caller holds it: nothing to open
	return r, nil
}

// EnvelopeIDOfToken returns the envelope whose recipient holds token.
func (s *Store) EnvelopeIDOfToken(ctx context.Context, token string) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, `SELECT envelope_id FROM recipients WHERE token_hash = $1`, TokenHash(token)).Scan(&id); err != nil {
		return "", notFound(err, "Recipient")
	}
	return id, nil
}

// sameLink refuses (ErrLinkReplaced) when recipient r's signing link is no longer the one r was
// read with (its link version). The recipient's row is share-locked: a replacement in progress
// is waited for, then seen.
func (tx *Tx) sameLink(ctx context.Context, r envelope.Recipient) error {
	var version int
	if err := tx.q.QueryRow(ctx, `SELECT link_version FROM recipients WHERE id = $1 FOR SHARE`, r.ID).Scan(&version); err != nil {
		return notFound(err, "Recipient")
	}
	if version != r.LinkVersion {
		return ErrLinkReplaced
	}
	return nil
}

// LinkReplaced reports whether token was a signing link that a newer one replaced.
func (s *Store) LinkReplaced(ctx context.Context, token string) (bool, error) {
	var yes bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM replaced_links WHERE token_hash = $1)`, TokenHash(token)).Scan(&yes); err != nil {
		return false, fmt.Errorf("look up a replaced link: %w", err)
	}
	return yes, nil
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
