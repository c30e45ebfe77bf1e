// Completion: a recipient finishing their part, and what it decides for the envelope.

package persistence

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// CompleteInput is a recipient's completion and how old its proofs may be.
type CompleteInput struct {
	envelope.RecipientCompletion
	// ProofMaxAge is how old an action proof may be (envelope.DefaultProofMaxAge when 0).
	ProofMaxAge time.Duration
}

// CompleteRecipient records that a recipient acted: the completing session must hold every proof
// the recipient owes (envelope.CheckCompletion, against the documents and values as this
// transaction sees them), its RUN fills the RUT_FIRMADO fields and its proofs become the
// recipient's identity; every required field must be filled (DATE, NAME and EMAIL fields are
// filled for them), then SIGNED with DOCUMENT_RECIPIENT_COMPLETED (an assistant's naming the
// fields it filled for others). A recipient already SIGNED is left as is (a retried activity).
// It returns the new snapshot.
func (s *Store) CompleteRecipient(ctx context.Context, in CompleteInput) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		snap, err = tx.completeRecipient(ctx, in)
		return err
	})
	return snap, err
}

// completeRecipient is CompleteRecipient within the transaction tx.
func (tx *Tx) completeRecipient(ctx context.Context, in CompleteInput) (Snapshot, error) {
	var snap Snapshot
	err := func() error {
		cur, r, already, err := tx.lockForOutcome(ctx, in.EnvelopeID, in.RecipientID, envelope.SigningStatusSigned)
		if err != nil {
			return err
		}
		if already {
			snap = cur
			return nil
		}
		if in.LinkVersion != nil {
			if err := tx.sameLink(ctx, envelope.Recipient{ID: r.ID, LinkVersion: *in.LinkVersion}); err != nil {
				return err
			}
		}
		fields, err := recipientFields(ctx, tx.q, r.ID)
		if err != nil {
			return err
		}
		if err := tx.checkProofs(ctx, cur, *r, fields, in); err != nil {
			return err
		}
		done, err := envelope.Complete(*r, cur.Meta, cur.Recipients, fields, in.Now)
		if err != nil {
			return err
		}
		var autoFilled []envelope.Field
		for _, f := range done.AutoFilled {
			if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = true, updated_at = now() WHERE id = $1`, f.FieldID, f.Value); err != nil {
				return fmt.Errorf("fill field %d: %w", f.FieldID, err)
			}
			autoFilled = append(autoFilled, envelope.Field{ID: f.FieldID, Type: f.Type, RecipientID: r.ID})
		}
		if len(autoFilled) > 0 {
			if err := tx.AppendAudit(ctx, in.EnvelopeID, envelope.FieldsAutoInsertedAudit(autoFilled), envelope.SystemActor()); err != nil {
				return err
			}
		}
		if _, err := tx.q.Exec(ctx, `UPDATE recipients SET signing_status = 'SIGNED', signed_at = $2, outcome_request = nullif($3, ''), updated_at = now()
			WHERE id = $1`, r.ID, in.Now, in.RequestID); err != nil {
			return fmt.Errorf("mark recipient %d signed: %w", r.ID, err)
		}
		auth, err := tx.completionAuth(ctx, cur, *r)
		if err != nil {
			return err
		}
		if auth.Documents, err = tx.shownDocuments(ctx, in.EnvelopeID); err != nil {
			return err
		}
		if auth.Prefilled, err = tx.prefilledBy(ctx, cur, r.ID); err != nil {
			return err
		}
		if err := tx.Record(ctx, envelope.RecipientCompletedEvent(*r, auth, done.EnvelopeComplete, in.Now), in.Actor); err != nil {
			return err
		}
		if in.NextSigner != nil && in.NextID != 0 {
			next := cur.Recipient(in.NextID)
			if next != nil && next.SigningStatus == envelope.SigningStatusNotSigned && next.SendStatus == envelope.SendStatusNotSent {
				var changes []envelope.AuditChange
				if next.Email != in.NextSigner.Email {
					changes = append(changes, envelope.AuditChange{Type: "EMAIL", From: next.Email, To: in.NextSigner.Email})
				}
				if next.Name != in.NextSigner.Name {
					changes = append(changes, envelope.AuditChange{Type: "NAME", From: next.Name, To: in.NextSigner.Name})
				}
				if len(changes) > 0 {
					if _, err := tx.q.Exec(ctx, `UPDATE recipients SET email = $2, name = $3, updated_at = now() WHERE id = $1`, next.ID, in.NextSigner.Email, in.NextSigner.Name); err != nil {
						return fmt.Errorf("dictate next signer: %w", err)
					}
					updated := *next
					updated.Email, updated.Name = in.NextSigner.Email, in.NextSigner.Name
					replaced := envelope.ReplacesLink(*next, updated)
					if replaced {
						// Whoever had the old address's link must not sign for the new one.
						if err := tx.ReplaceLink(ctx, *next); err != nil {
							return err
						}
					}
					if err := tx.AppendAudit(ctx, in.EnvelopeID, envelope.RecipientUpdatedAudit(updated, changes, replaced), in.Actor); err != nil {
						return err
					}
				}
			}
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, in.EnvelopeID)
		return err
	}()
	return snap, err
}

// completionAuth is what DOCUMENT_RECIPIENT_COMPLETED records of how the recipient proved who
// they are: the action auth that applied (its own list, else the envelope's) and, when the
// recipient proved it, the identity: the RUN and name verified by Clave Única, the subject and RUT
// of the advanced-signature certificate.
func (tx *Tx) completionAuth(ctx context.Context, snap Snapshot, r envelope.Recipient) (envelope.Completion, error) {
	action := []string{}
	for _, a := range r.AuthOptions.ActionAuth {
		action = append(action, string(a))
	}
	if len(action) == 0 {
		if err := tx.q.QueryRow(ctx, `SELECT global_action_auth FROM envelopes WHERE id = $1`, snap.EnvelopeID).Scan(&action); err != nil {
			return envelope.Completion{}, fmt.Errorf("read action auth of %s: %w", snap.EnvelopeID, err)
		}
	}
	if slices.Contains(action, string(envelope.ActionAuthExplicitNone)) {
		action = []string{}
	}
	id, err := readIdentity(ctx, tx.q, r.ID)
	if err != nil {
		return envelope.Completion{}, err
	}
	return envelope.Completion{ActionAuth: action, Identity: id.proven()}, nil
}
