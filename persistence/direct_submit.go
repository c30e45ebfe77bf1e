// A direct link's visitor signing: the document made for them, in one transaction.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// DirectSubmission is a visitor's signing through a direct link: the document made from its
// template (Document: the template's items, recipients, fields and meta, the direct recipient
// carrying the visitor's name and email, at DirectIndex of the recipients), the values the
// visitor gave, keyed by the template field's id (FieldIDs: the template ids of the direct
// recipient's fields, in the order of its Document fields), and the template's updatedAt as the
// page showed it.
type DirectSubmission struct {
	Token             string
	TemplateUpdatedAt time.Time
	Document          NewEnvelope
	DirectIndex       int
	FieldIDs          []int64
	Values            map[int64]*FieldValue
	Actor             envelope.Actor
	Checks            EditChecks
}

// SubmitDirectLink records a visitor's signing through a direct link, all or nothing: under the
// template's row lock, with the link (read under that lock) still there and enabled and the template unchanged since the page
// showed it (else INVALID_REQUEST: reload), it creates the DOCUMENT (source
// TEMPLATE_DIRECT_LINK, DOCUMENT_CREATED naming the visitor), checks it may be sent
// (checkReady), moves it to PENDING (DOCUMENT_SENT), marks the visitor's recipient OPENED,
// writes each value the visitor gave to its field (DOCUMENT_FIELD_INSERTED), and completes the
// visitor's recipient as a signing completes (CompleteRecipient: DOCUMENT_RECIPIENT_COMPLETED
// with the documents shown), and last counts and reserves the requests its workflow mails first
// on the mail quota (EditChecks.SendQuota). Starting the document's workflow is the caller's part.
func (s *Store) SubmitDirectLink(ctx context.Context, in DirectSubmission) (*envelope.Envelope, error) {
	var created *envelope.Envelope
	err := s.InTx(ctx, func(tx *Tx) error {
		link, err := scanDirectLink(tx.q.QueryRow(ctx, `SELECT `+directLinkColumns+` FROM template_direct_links l WHERE l.token = $1`, in.Token))
		if err != nil {
			return notFound(err, "Direct link")
		}
		if err := tx.lockEnvelopeRow(ctx, link.EnvelopeID); err != nil {
			return err
		}
		// Read again under the lock: a toggle or delete that held it has committed by now.
		if link, err = scanDirectLink(tx.q.QueryRow(ctx, `SELECT `+directLinkColumns+` FROM template_direct_links l WHERE l.token = $1`, in.Token)); err != nil {
			return notFound(err, "Direct link")
		}
		var updatedAt time.Time
		var owner envelope.Member
		if err := tx.q.QueryRow(ctx, `SELECT updated_at, user_id, team_id FROM envelopes WHERE id = $1 AND deleted_at IS NULL`, link.EnvelopeID).
			Scan(&updatedAt, &owner.UserID, &owner.TeamID); err != nil {
			return notFound(err, "Direct link")
		}
		if !link.Enabled {
			return envelope.Errorf(envelope.CodeLinkEnded, "This direct link is disabled")
		}
		if !sameVersion(updatedAt, in.TemplateUpdatedAt) {
			return envelope.Errorf(envelope.CodeInvalidRequest, "The template changed since this page was loaded; reload the page")
		}
		id, err := tx.CreateEnvelope(ctx, owner, in.Document, in.Actor)
		if err != nil {
			return err
		}
		if created, err = tx.GetEnvelope(ctx, ScopeOf(owner), id); err != nil {
			return err
		}
		if err := in.Checks.checkReady(created); err != nil {
			return err
		}
		cur, err := tx.lockSnapshot(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.markDraftPending(ctx, cur); err != nil {
			return err
		}
		visitor := created.Recipients[in.DirectIndex]
		if err := tx.markOpened(ctx, visitor, in.Actor); err != nil {
			return err
		}
		if err := tx.fillDirectFields(ctx, in, visitor); err != nil {
			return err
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO direct_link_documents (envelope_id, template_envelope_id, visitor_recipient_id) VALUES ($1, $2, $3)`,
			id, link.EnvelopeID, visitor.ID); err != nil {
			return fmt.Errorf("record the direct link of %s: %w", id, err)
		}
		if _, err := tx.completeRecipient(ctx, CompleteInput{RecipientCompletion: envelope.RecipientCompletion{
			EnvelopeID: id, RecipientID: visitor.ID, Actor: in.Actor, Now: time.Now()}}); err != nil {
			return err
		}
		if created, err = tx.GetEnvelope(ctx, ScopeOf(owner), id); err != nil {
			return err
		}
		// Counted last, on the document as its workflow finds it (the visitor done, the
		// recipients it mails first due), so the team's quota is held only until the commit.
		return in.Checks.sendQuota(ctx, tx, created)
	})
	return created, err
}

// fillDirectFields writes the visitor's values: the direct recipient's fields of the new
// document follow the template's in order, so the n-th of the Document's fields of the visitor
// is the n-th created (FieldIDs).
func (tx *Tx) fillDirectFields(ctx context.Context, in DirectSubmission, visitor envelope.Recipient) error {
	rows, err := tx.q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.recipient_id = $1 ORDER BY f.id`, visitor.ID)
	if err != nil {
		return fmt.Errorf("read the visitor's fields: %w", err)
	}
	var fields []envelope.Field
	for rows.Next() {
		f, err := scanField(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("read the visitor's fields: %w", err)
		}
		fields = append(fields, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the visitor's fields: %w", err)
	}
	if len(in.FieldIDs) != len(fields) {
		return fmt.Errorf("direct recipient has %d fields, its template recipient %d", len(fields), len(in.FieldIDs))
	}
	for i, id := range in.FieldIDs {
		v, ok := in.Values[id]
		if !ok || v == nil {
			continue
		}
		if _, err := tx.setFieldValue(ctx, visitor, visitor, fields[i], v, "", in.Actor); err != nil {
			return err
		}
	}
	return nil
}

// queueDirectVisitor adds to b the read of the recipient a direct link's visitor became in
// envelope id, into out; 0 for an envelope not made through a direct link.
func queueDirectVisitor(b *pgx.Batch, id string, out *int64) {
	b.Queue(`SELECT visitor_recipient_id FROM direct_link_documents WHERE envelope_id = $1`, id).QueryRow(func(row pgx.Row) error {
		err := row.Scan(out)
		if errors.Is(err, pgx.ErrNoRows) {
			*out = 0
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the direct link of %s: %w", id, err)
		}
		return nil
	})
}

// sameVersion reports whether a template's updatedAt, as a page or a client read it (seen),
// names the version stored now: to the microsecond when seen has digits below the millisecond
// (the page carries it whole), else to the millisecond, as the API shows it.
func sameVersion(stored, seen time.Time) bool {
	if seen.Nanosecond()%int(time.Millisecond) != 0 {
		return stored.Equal(seen)
	}
	return stored.Truncate(time.Millisecond).Equal(seen)
}
