// Mail log: each mail claimed by one attempt at a time, sent once, or refused and recorded.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sobre-sign/sobre/envelope"
)

// MailState is where the sending of one mail got to.
type MailState string

// Mail states. A mail in MailTransmitting was being handed to the relay: once its claim's lease
// has passed, the attempt that was handing it over ended, and the mail may have been delivered,
// so it is never sent again.
const (
	MailSending      = MailState("sending")
	MailTransmitting = MailState("transmitting")
	MailSent         = MailState("sent")
	MailFailed       = MailState("failed") // the relay refused it for good
	// MailHeld is not stored: another attempt holds the mail's claim, and this one tries later.
	MailHeld = MailState("held")
	// MailNotDue is not stored: the request or reminder is no longer due (requestDue), and is
	// not sent.
	MailNotDue = MailState("not due")
)

// requestDue is the condition, on mail_log's envelope_id and recipient_id as envelope and
// recipient (bound by the caller), under which a request or reminder may still be sent: its
// envelope is PENDING, not being deleted (MarkRemoving) and rejected by no one (a rejection ends
// it), and its recipient has not acted.
const requestDue = `EXISTS (SELECT 1 FROM envelopes e JOIN recipients r ON r.envelope_id = e.id
	WHERE e.id = %s AND r.id = %s AND e.status = 'PENDING' AND e.deleted_at IS NULL AND r.signing_status = 'NOT_SIGNED'
		AND NOT EXISTS (SELECT 1 FROM recipients x WHERE x.envelope_id = e.id AND x.signing_status = 'REJECTED'))`

// ErrClaimLost is the answer to an attempt whose claim on a mail passed to another attempt (its
// lease ran out), or whose request or reminder is no longer due: it must not hand the mail to
// the relay.
var ErrClaimLost = errors.New("the mail's claim passed to another attempt")

// MailClaim is an attempt's claim on one mail.
type MailClaim struct {
	MessageID, EnvelopeID, Kind, To string
	// Owner names the attempt (its workflow run, activity and attempt number): while Lease runs
	// from the claim, no other attempt may send the mail.
	Owner string
	Lease time.Duration
	// RecipientID, for a signing request or a reminder, is the recipient it is for: it is
	// claimed and handed over only while due (requestDue), and its claim takes the place of the
	// request's reservation on the mail quota (ReserveMailQuota).
	RecipientID int64
}

// ClaimMail claims the mail c names for c.Owner. It answers MailSending when c.Owner now holds
// the claim (the mail is new, or its earlier attempt's lease passed before it handed the mail
// over, or c.Owner held it already); MailHeld when another attempt's lease still runs; and
// otherwise the state an earlier attempt left: MailSent, MailFailed, or MailTransmitting; and
// MailNotDue for a request or reminder (c.RecipientID set) no longer due, that no attempt sent.
func (s *Store) ClaimMail(ctx context.Context, c MailClaim) (MailState, error) {
	var state MailState
	// The row and the end of the recipient's reservation are written by one statement, so the
	// quota's count (one statement too) sees both or neither. A request or reminder no longer
	// due is not claimed (requestDue).
	err := s.pool.QueryRow(ctx, `WITH reservation AS (UPDATE recipients SET request_reserved_at = NULL
			WHERE $7::bigint <> 0 AND id = $7 AND envelope_id = $2 AND request_reserved_at IS NOT NULL)
		INSERT INTO mail_log (message_id, envelope_id, kind, recipient, state, team_id, owner, lease_until, recipient_id)
		SELECT $1, $2, $3, $4, 'sending', (SELECT team_id FROM envelopes WHERE id = $2), $5, now() + make_interval(secs => $6), nullif($7, 0)
		WHERE $7 = 0 OR `+fmt.Sprintf(requestDue, "$2", "$7")+`
		ON CONFLICT (message_id) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
		WHERE mail_log.state = 'sending' AND (mail_log.owner IS NULL OR mail_log.owner = EXCLUDED.owner OR mail_log.lease_until < now())
		RETURNING state`, c.MessageID, c.EnvelopeID, c.Kind, c.To, c.Owner, c.Lease.Seconds(), c.RecipientID).Scan(&state)
	if err == nil {
		return state, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("claim mail %s: %w", c.MessageID, err)
	}
	// Not claimed: the mail is sent or refused, held by another attempt, or no longer due. What
	// an earlier attempt left is answered first: one that ended while handing the mail over may
	// have delivered it, due or not.
	var found *MailState
	var leased, due bool
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT state FROM mail_log WHERE message_id = $1),
			coalesce((SELECT lease_until > now() FROM mail_log WHERE message_id = $1), false),
			$3::bigint = 0 OR `+fmt.Sprintf(requestDue, "$2", "$3"),
		c.MessageID, c.EnvelopeID, c.RecipientID).Scan(&found, &leased, &due); err != nil {
		return "", fmt.Errorf("read the claim of mail %s: %w", c.MessageID, err)
	}
	switch {
	case found != nil && (*found == MailSent || *found == MailFailed || *found == MailTransmitting && !leased):
		return *found, nil
	case found != nil && *found == MailTransmitting:
		return MailHeld, nil // being handed over by another attempt
	case !due:
		return MailNotDue, nil
	}
	return MailHeld, nil // another attempt's claim, maybe not yet committed: try later
}

// MailTransmitting records that owner is handing the mail messageID to the relay; ErrClaimLost
// when owner no longer holds its claim, or when the mail is a request or reminder no longer due
// (requestDue).
//
// For a request or reminder it first takes a share lock on the envelope's row, then checks and
// marks in a second statement of the same transaction, at READ COMMITTED, where each
// statement's snapshot is its own. Every outcome that ends a request's being due takes that row
// for update first: an ending (FinishEnvelope), a deletion's mark (MarkRemoving), a signature or
// a rejection (lockSnapshot). So each comes wholly before or after the mark: the check, whose
// snapshot is taken once the lock is held, sees every outcome committed before it, and none is
// committed until the mark is. A request is handed over only while due, and an ending's mails
// see every request handed over before it (RequestHandedOver). In one statement the check's
// snapshot would be taken before the lock's wait, and miss an outcome committed during it.
//
// The transaction is committed by a round trip of its own, once the mark is read back: an
// attempt killed while the mark waits for the lock leaves nothing committed (a statement, or a
// batch's implicit transaction, would be committed by the server after its client died), and
// the mail stays claimed, not transmitting, for the next attempt to send. A mail is taken as
// sent without being sent only when the attempt dies between that commit and the content's last
// line (mail.Sender.Send).
func (s *Store) MailTransmitting(ctx context.Context, messageID, owner string) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		var marked int64
		b := &pgx.Batch{}
		b.Queue(`SELECT 1 FROM envelopes e JOIN mail_log m ON m.envelope_id = e.id
			WHERE m.message_id = $1 AND m.recipient_id IS NOT NULL FOR SHARE OF e`, messageID)
		b.Queue(`UPDATE mail_log m SET state = 'transmitting' WHERE message_id = $1 AND owner = $2 AND state = 'sending'
			AND (m.recipient_id IS NULL OR `+fmt.Sprintf(requestDue, "m.envelope_id", "m.recipient_id")+`)`, messageID, owner).
			Exec(func(tag pgconn.CommandTag) error { marked = tag.RowsAffected(); return nil })
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		if marked == 0 {
			return fmt.Errorf("mail %s: %w", messageID, ErrClaimLost)
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrClaimLost) {
		return fmt.Errorf("record mail %s transmitting: %w", messageID, err)
	}
	return err
}

// RequestHandedOver reports whether a request or reminder to recipient recipientID of envelope
// envelopeID was handed to the relay (transmitting or sent): whether they were sent the
// envelope, as an ending's "cancelled" mail asks even before the request is recorded sent.
func (s *Store) RequestHandedOver(ctx context.Context, envelopeID string, recipientID int64) (bool, error) {
	var yes bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM mail_log WHERE envelope_id = $1 AND recipient_id = $2
		AND state IN ('transmitting', 'sent'))`, envelopeID, recipientID).Scan(&yes); err != nil {
		return false, fmt.Errorf("read the requests to recipient %d of %s: %w", recipientID, envelopeID, err)
	}
	return yes, nil
}

// MailNotTransmitted gives back owner's claim on a mail the relay did not take (it refused it
// for now, or the content never reached it): the mail is back to sending, and its next attempt
// need not wait for the lease. A mail another attempt recorded sent or failed meanwhile (owner's
// lease passed while it was handing the mail over) stays as that attempt recorded it.
func (s *Store) MailNotTransmitted(ctx context.Context, messageID, owner string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'sending', lease_until = now()
		WHERE message_id = $1 AND owner = $2 AND state IN ('sending', 'transmitting')`, messageID, owner); err != nil {
		return fmt.Errorf("record mail %s not transmitted: %w", messageID, err)
	}
	return nil
}

// MailSent records that the mail messageID was handed to the relay and, in the same
// transaction, what sending it means (mark, for a request or a reminder: the recipient SENT and
// EMAIL_SENT). A mail recorded sent already records nothing again, so EMAIL_SENT is written once.
// unconfirmed, when not empty, says why the mail is only taken as sent (an attempt that was
// handing it over ended).
func (s *Store) MailSent(ctx context.Context, messageID string, mark *envelope.Sent, unconfirmed string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if mark != nil {
			if err := tx.lockEnvelopeRow(ctx, mark.EnvelopeID); err != nil {
				return err
			}
		}
		tag, err := tx.q.Exec(ctx, `UPDATE mail_log SET state = 'sent', sent_at = now(), answer = nullif($2, '')
			WHERE message_id = $1 AND state IN ('sending', 'transmitting')`, messageID, unconfirmed)
		if err != nil {
			return fmt.Errorf("record mail %s sent: %w", messageID, err)
		}
		if tag.RowsAffected() == 0 || mark == nil {
			return nil
		}
		return tx.markSent(ctx, *mark)
	})
}

// MailRefusal is a mail the relay refused for good.
type MailRefusal struct {
	MessageID  string
	EnvelopeID string
	// RecipientID is the recipient it was for; 0 for a mail to the owner or to someone no longer
	// a recipient.
	RecipientID int64
	EmailType   string // EMAIL_SENT's emailType for a request or reminder, the mail's kind otherwise
	Resending   bool
	Answer      string // the relay's answer
	// Kind is the mail's kind, for a mail log row written here: a mail that never reached its
	// claim (it could not be composed, say) gets its row with the refusal.
	Kind string
}

// MailRefused records, in one transaction and once, a mail the relay refused for good (or that
// could not be sent within its retries): the mail log's row failed with the answer (written
// here when the mail never reached its claim), the answer on the recipient it was for (shown to the
// envelope's owner until a later mail to them is sent), and EMAIL_REFUSED in the audit log.
func (s *Store) MailRefused(ctx context.Context, m MailRefusal) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, m.EnvelopeID); err != nil {
			return err
		}
		tag, err := tx.q.Exec(ctx, `INSERT INTO mail_log (message_id, envelope_id, kind, recipient, state, team_id, answer)
			VALUES ($1, $3, $4, '', 'failed', (SELECT team_id FROM envelopes WHERE id = $3), $2)
			ON CONFLICT (message_id) DO UPDATE SET state = 'failed', answer = EXCLUDED.answer WHERE mail_log.state IN ('sending', 'transmitting')`,
			m.MessageID, m.Answer, m.EnvelopeID, m.Kind)
		if err != nil {
			return fmt.Errorf("record mail %s refused: %w", m.MessageID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		var to *envelope.Recipient
		if m.RecipientID != 0 {
			r, err := scanRecipient(tx.q.QueryRow(ctx, `UPDATE recipients r SET delivery_error = $3, request_reserved_at = NULL WHERE r.id = $1 AND r.envelope_id = $2
				RETURNING `+recipientColumns, m.RecipientID, m.EnvelopeID, m.Answer), nil)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("record mail %s refused for recipient %d: %w", m.MessageID, m.RecipientID, err)
			}
			if err == nil {
				to = &r
			}
		}
		return tx.Record(ctx, envelope.MailRefusedEvent(m.EnvelopeID, to, m.EmailType, m.Resending, m.Answer, time.Now()), envelope.SystemActor())
	})
}
