// Recipient status: sent, opened, rejected, expired, and deadlines renewed.

package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// MarkSent records that recipient rid was sent the envelope (emailType as Documenso's
// EMAIL_SENT entry names it), logging EMAIL_SENT when mailed, and gives it the deadline
// expiresAt when it has none (a recipient added while PENDING).
func (s *Store) MarkSent(ctx context.Context, envelopeID string, rid int64, emailType string, mailed, resending bool, expiresAt *time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, envelopeID); err != nil {
			return err
		}
		return tx.markSent(ctx, envelope.Sent{EnvelopeID: envelopeID, RecipientID: rid, EmailType: emailType, Mailed: mailed, Resending: resending, ExpiresAt: expiresAt})
	})
}

// markSent is MarkSent in tx, which holds the envelope's row. A mailed recipient's delivery
// error, if any, is cleared: the mail reached the relay.
func (tx *Tx) markSent(ctx context.Context, in envelope.Sent) error {
	r, err := scanRecipient(tx.q.QueryRow(ctx, `UPDATE recipients r SET send_status = 'SENT', sent_at = COALESCE(sent_at, now()), request_reserved_at = NULL,
		expires_at = COALESCE(expires_at, $3), delivery_error = CASE WHEN $4 THEN NULL ELSE delivery_error END
		WHERE r.id = $1 AND r.envelope_id = $2 RETURNING `+recipientColumns, in.RecipientID, in.EnvelopeID, in.ExpiresAt, in.Mailed), nil)
	if err != nil {
		return notFound(err, "Recipient")
	}
	if !in.Mailed {
		return nil
	}
	return tx.Record(ctx, envelope.MailedEvent(r, in.EmailType, in.Resending, time.Now()), envelope.SystemActor())
}

// ViewEvery is how often DOCUMENT_VIEWED is recorded at most for one signing session, and for
// one client of a recipient.
const ViewEvery = 10 * time.Minute

// MarkOpened records that the recipient opened the envelope: OPENED (and SENT, for envelopes
// shared by link) the first time, with DOCUMENT_OPENED; and DOCUMENT_VIEWED, unless a view of the
// recipient was recorded less than ViewEvery ago either in the same signing session (sessionID,
// its public id; a caller without one, "", counts as one session of the recipient) or from the
// same client (the actor's address and User-Agent). Reloading a link in a loop adds no rows, nor
// does loading it without the cookie each time (every such load begins a new session); another
// browser or device (another User-Agent or address) records its own view. Two people behind one
// address with the same browser within ViewEvery count as one view.
func (s *Store) MarkOpened(ctx context.Context, r envelope.Recipient, sessionID string, a envelope.Actor) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		if err := tx.markOpened(ctx, r, a); err != nil {
			return err
		}
		// The envelope's row is locked: no other view of its recipients runs between the check
		// and the upsert.
		keys := []string{sessionID, viewClientKey(a)}
		var recent bool
		if err := tx.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM document_views WHERE recipient_id = $1 AND session_id = ANY($2)
			AND viewed_at > now() - $3::interval)`, r.ID, keys, ViewEvery.String()).Scan(&recent); err != nil {
			return fmt.Errorf("read the views of recipient %d: %w", r.ID, err)
		}
		if recent {
			return nil // viewed in this session, or from this client, less than ViewEvery ago
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO document_views (recipient_id, session_id, viewed_at) SELECT $1, k, now() FROM unnest($2::text[]) k
			ON CONFLICT (recipient_id, session_id) DO UPDATE SET viewed_at = EXCLUDED.viewed_at`, r.ID, keys); err != nil {
			return fmt.Errorf("record a view of recipient %d: %w", r.ID, err)
		}
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.ViewedAudit(r), a)
	})
}

// markOpened marks r OPENED (and SENT) with DOCUMENT_OPENED, the first time only.
func (tx *Tx) markOpened(ctx context.Context, r envelope.Recipient, a envelope.Actor) error {
	tag, err := tx.q.Exec(ctx, `UPDATE recipients SET read_status = 'OPENED', send_status = 'SENT', sent_at = COALESCE(sent_at, now())
		WHERE id = $1 AND read_status = 'NOT_OPENED'`, r.ID)
	if err != nil {
		return fmt.Errorf("mark recipient %d opened: %w", r.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return tx.Record(ctx, envelope.OpenedEvent(r, time.Now()), a)
	}
	return nil
}

// viewClientKey is the document_views key of the client a views from: a hash of its address and
// User-Agent (neither is kept in the clear there), apart from sessions' public ids.
func viewClientKey(a envelope.Actor) string {
	var ip, ua string
	if a.IPAddress != nil {
		ip = *a.IPAddress
	}
	if a.UserAgent != nil {
		ua = *a.UserAgent
	}
	sum := sha256.Sum256([]byte(ip + "\x00" + ua))
	return "client:" + hex.EncodeToString(sum[:])
}

// RejectRecipient records a rejection. A recipient already REJECTED is left as is.
func (s *Store) RejectRecipient(ctx context.Context, in envelope.RecipientRejection) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, r, already, err := tx.lockForOutcome(ctx, in.EnvelopeID, in.RecipientID, envelope.SigningStatusRejected)
		if err != nil {
			return err
		}
		if already {
			snap = cur
			return nil
		}
		if err := envelope.MayReject(envelope.ParticipantOf(*r), in.External, in.Now); err != nil {
			return err
		}
		if !in.External && in.LinkVersion != nil {
			if err := tx.sameLink(ctx, envelope.Recipient{ID: r.ID, LinkVersion: *in.LinkVersion}); err != nil {
				return err
			}
		}
		if _, err := tx.q.Exec(ctx, `UPDATE recipients SET signing_status = 'REJECTED', signed_at = $2, rejection_reason = $3,
			outcome_request = nullif($4, ''), updated_at = now() WHERE id = $1`, r.ID, in.Now, in.Reason, in.RequestID); err != nil {
			return fmt.Errorf("mark recipient %d rejected: %w", r.ID, err)
		}
		how := envelope.Rejection{External: in.External}
		if in.OnBehalfOf != nil {
			how.OnBehalfOf = &envelope.Person{Name: deref(in.OnBehalfOf.Name), Email: deref(in.OnBehalfOf.Email)}
		}
		if err := tx.Record(ctx, envelope.RecipientRejectedEvent(*r, in.Reason, how, in.Now), in.Actor); err != nil {
			return err
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, in.EnvelopeID)
		return err
	})
	return snap, err
}

// lockForOutcome locks envelope envelopeID's snapshot and finds its recipient rid, about to be
// given outcome (SIGNED or REJECTED): already when the recipient has it (a retried activity:
// the caller leaves it as is and returns the snapshot), otherwise the envelope must be PENDING
// (envelope.RequirePending).
func (tx *Tx) lockForOutcome(ctx context.Context, envelopeID string, rid int64, outcome envelope.SigningStatus) (cur Snapshot, r *envelope.Recipient, already bool, err error) {
	cur, err = tx.lockSnapshot(ctx, envelopeID)
	if err != nil {
		return cur, nil, false, err
	}
	if r = cur.Recipient(rid); r == nil {
		return cur, nil, false, envelope.NotFound("Recipient")
	}
	if r.SigningStatus == outcome {
		return cur, r, true, nil
	}
	return cur, r, false, envelope.RequirePending(cur.Status)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ExpireRecipients records, for each pending recipient whose deadline passed at now and who was
// not yet noted, DOCUMENT_RECIPIENT_EXPIRED, and returns them.
func (s *Store) ExpireRecipients(ctx context.Context, id string, now time.Time) ([]envelope.Recipient, error) {
	var expired []envelope.Recipient
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, id); err != nil {
			return err
		}
		rows, err := tx.q.Query(ctx, `UPDATE recipients r SET expiration_notified_at = $2 WHERE r.envelope_id = $1
			AND `+overdueSQL("$2")+` AND r.expiration_notified_at IS NULL
			RETURNING `+recipientColumns, id, now)
		if err != nil {
			return fmt.Errorf("expire recipients of %s: %w", id, err)
		}
		expired, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Recipient, error) { return scanRecipient(row, tx.ring) })
		if err != nil {
			return fmt.Errorf("read expired recipients: %w", err)
		}
		for _, r := range expired {
			if err := tx.Record(ctx, envelope.RecipientExpiredEvent(r, now), envelope.SystemActor()); err != nil {
				return err
			}
		}
		return nil
	})
	return expired, err
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
			WHERE r.envelope_id = $1 AND r.id = ANY($2) AND `+pendingSQL+`
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
