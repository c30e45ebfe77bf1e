// Envelope status: sending and finishing an envelope.

package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// MarkPending moves a DRAFT envelope to PENDING (logging DOCUMENT_SENT once), gives every
// recipient who must still act and has no deadline the deadline expiresAt (nil: none), and
// returns the snapshot. On a PENDING envelope it only fills missing deadlines.
func (s *Store) MarkPending(ctx context.Context, id string, expiresAt *time.Time) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case cur.Status == envelope.StatusDraft:
			if err := tx.markDraftPending(ctx, cur); err != nil {
				return err
			}
		case cur.Status != envelope.StatusPending:
			snap = cur
			return nil
		}
		if expiresAt != nil {
			if _, err := tx.q.Exec(ctx, `UPDATE recipients r SET expires_at = $2, expiration_notified_at = NULL
				WHERE r.envelope_id = $1 AND `+pendingSQL+` AND r.expires_at IS NULL`, id, *expiresAt); err != nil {
				return fmt.Errorf("set deadlines of %s: %w", id, err)
			}
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, id)
		return err
	})
	return snap, err
}

// markDraftPending moves the DRAFT envelope cur to PENDING: DOCUMENT_SENT, and the fields whose
// value is already known filled (autoInsert).
func (tx *Tx) markDraftPending(ctx context.Context, cur Snapshot) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelopes SET status = 'PENDING', updated_at = now() WHERE id = $1`, cur.EnvelopeID); err != nil {
		return fmt.Errorf("mark %s pending: %w", cur.EnvelopeID, err)
	}
	if err := tx.Record(ctx, envelope.SentEvent(cur.EnvelopeID, time.Now()), envelope.SystemActor()); err != nil {
		return err
	}
	return tx.autoInsert(ctx, cur)
}

// FinishEnvelope ends a PENDING envelope as its ending event ev says (ev.Ending: COMPLETED,
// REJECTED or CANCELLED, at ev.At) and records ev, by a. An envelope already in that status is
// left as is.
func (s *Store) FinishEnvelope(ctx context.Context, ev envelope.Event, a envelope.Actor) error {
	id := ev.EnvelopeID
	status, ends := ev.Ending()
	if !ends {
		return fmt.Errorf("finish envelope %s with a %s event, which ends nothing", id, ev.Kind)
	}
	return s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, id)
		if err != nil {
			return err
		}
		if cur.Status == status {
			return nil
		}
		if cur.Status != envelope.StatusPending {
			return envelope.Errorf(envelope.CodeInvalidRequest, "Envelope %s is %s, not PENDING", id, cur.Status)
		}
		// Requests never claimed by now never will be: their reservations on the team's mail
		// quota end with the envelope.
		if _, err := tx.q.Exec(ctx, `WITH reservations AS (UPDATE recipients SET request_reserved_at = NULL
				WHERE envelope_id = $1 AND request_reserved_at IS NOT NULL)
			UPDATE envelopes SET status = $2, completed_at = $3, updated_at = now() WHERE id = $1`, id, status, ev.At); err != nil {
			return fmt.Errorf("finish envelope %s as %s: %w", id, status, err)
		}
		return tx.Record(ctx, ev, a)
	})
}
