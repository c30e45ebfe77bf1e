// Mail outbox: each mail claimed once, and the team's sending quota.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// MailState is where the sending of one mail got to.
type MailState string

// Mail states, in order. A mail in MailTransmitting was being handed to the relay when its
// attempt ended: it may have been delivered, so it is never sent again.
const (
	MailSending      = MailState("sending")
	MailTransmitting = MailState("transmitting")
	MailSent         = MailState("sent")
)

// ClaimMail records that the mail messageID is about to be sent and returns the state an
// earlier attempt left it in (MailSending when this is the first).
func (s *Store) ClaimMail(ctx context.Context, messageID, envelopeID, kind, to string) (MailState, error) {
	var state MailState
	err := s.pool.QueryRow(ctx, `INSERT INTO mail_log (message_id, envelope_id, kind, recipient, state, team_id)
		VALUES ($1, $2, $3, $4, 'sending', (SELECT team_id FROM envelopes WHERE id = $2))
		ON CONFLICT (message_id) DO UPDATE SET message_id = EXCLUDED.message_id RETURNING state`, messageID, envelopeID, kind, to).Scan(&state)
	if err != nil {
		return "", fmt.Errorf("claim mail %s: %w", messageID, err)
	}
	return state, nil
}

// MailTransmitting records that the mail messageID is being handed to the relay.
func (s *Store) MailTransmitting(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'transmitting' WHERE message_id = $1`, messageID); err != nil {
		return fmt.Errorf("record mail %s transmitting: %w", messageID, err)
	}
	return nil
}

// MailNotTransmitted puts a mail marked transmitting back to sending: the relay refused it before
// its content was handed over (MAIL FROM, RCPT TO or the DATA command), so it was not delivered
// and a retry may send it.
func (s *Store) MailNotTransmitted(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'sending' WHERE message_id = $1 AND state = 'transmitting'`, messageID); err != nil {
		return fmt.Errorf("record mail %s not transmitted: %w", messageID, err)
	}
	return nil
}

// MailSent records that the mail messageID was handed to the relay.
func (s *Store) MailSent(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'sent', sent_at = now() WHERE message_id = $1`, messageID); err != nil {
		return fmt.Errorf("record mail %s sent: %w", messageID, err)
	}
	return nil
}

// CheckMailQuota refuses (TOO_MANY_REQUESTS, with the wait) what would have Sobre send need more
// mails for team teamID when its mails of the last window, and need, pass quota.
func (s *Store) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	return checkMailQuota(ctx, s.pool, teamID, quota, need, window)
}

// CheckMailQuota is Store.CheckMailQuota inside the transaction: a request that holds a
// transaction never asks the pool for a second connection, which a few such requests at once
// would wait for each other to give back.
func (tx *Tx) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	return checkMailQuota(ctx, tx.q, teamID, quota, need, window)
}

func checkMailQuota(ctx context.Context, q querier, teamID int64, quota, need int, window time.Duration) error {
	var used int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM mail_log WHERE team_id = $1 AND created_at > now() - $2::interval`,
		teamID, window.String()).Scan(&used); err != nil {
		return fmt.Errorf("count the mails of team %d: %w", teamID, err)
	}
	if used+need <= quota {
		return nil
	}
	hours := int(window.Hours())
	if need > quota {
		return envelope.Errorf(envelope.CodeTooManyRequests,
			"This would send %d mails, more than this team's quota of %d in %d hours; send to fewer recipients at a time", need, quota, hours)
	}
	// The wait: until the oldest mails that must leave the window to make room have left it.
	var seconds float64
	if err := q.QueryRow(ctx, `SELECT extract(epoch FROM created_at + $3::interval - now())::float8 FROM mail_log
		WHERE team_id = $1 AND created_at > now() - $3::interval ORDER BY created_at OFFSET $2 - 1 LIMIT 1`,
		teamID, used+need-quota, window.String()).Scan(&seconds); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read the mails of team %d: %w", teamID, err)
	}
	wait := time.Duration(math.Ceil(seconds)) * time.Second
	return &envelope.Error{Code: envelope.CodeTooManyRequests, RetryAfter: max(wait, time.Second),
		Message: fmt.Sprintf("This team's mail quota is used up: %d of %d mails in the last %d hours, and this would send %d more; nothing was sent, try again later",
			used, quota, hours, need)}
}
