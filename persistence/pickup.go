// Pickup: what a new run of an envelope's workflow reads of the runs before it.

package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// LoggedMail is one row of the mail log: a mail handed to the relay or refused by it, by its
// Message-ID.
type LoggedMail struct {
	MessageID string
	Kind      envelope.Mail
	At        time.Time // when it was claimed
}

// LoggedRequests lists the signing requests and reminders of envelope id that the mail log holds
// as handed to the relay (sent, or transmitting: maybe delivered) or refused by it (failed: its
// Message-ID is spent, as the run that sent it counted it), in the order they were claimed. A
// mail only claimed (sending) was never delivered: it is left out, so that it may be sent again
// under its Message-ID.
func (s *Store) LoggedRequests(ctx context.Context, id string) ([]LoggedMail, error) {
	rows, err := s.pool.Query(ctx, `SELECT message_id, kind, created_at FROM mail_log
		WHERE envelope_id = $1 AND kind IN ($2, $3) AND state IN ('sent', 'transmitting', 'failed') ORDER BY created_at, message_id`,
		id, envelope.MailSigningRequest, envelope.MailReminder)
	if err != nil {
		return nil, fmt.Errorf("read the mail log of %s: %w", id, err)
	}
	defer rows.Close()
	var out []LoggedMail
	for rows.Next() {
		var m LoggedMail
		if err := rows.Scan(&m.MessageID, &m.Kind, &m.At); err != nil {
			return nil, fmt.Errorf("read the mail log of %s: %w", id, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the mail log of %s: %w", id, err)
	}
	return out, nil
}
