// Signer account events: what happened to an account, kept for its holder.

package persistence

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Kinds of account events (account_events.type).
const (
	AccountEventSignUp            = "SIGN_UP"
	AccountEventEmailVerified     = "EMAIL_VERIFIED"
	AccountEventSignIn            = "SIGN_IN"
	AccountEventSignInFailed      = "SIGN_IN_FAILED"
	AccountEventSignOut           = "SIGN_OUT"
	AccountEventLocked            = "ACCOUNT_LOCKED"
	AccountEventResetRequested    = "PASSWORD_RESET_REQUESTED"
	AccountEventPasswordReset     = "PASSWORD_RESET"
	AccountEventPasswordConfirmed = "PASSWORD_CONFIRMED"
	AccountEventPasswordFailed    = "PASSWORD_FAILED"
	AccountEventTOTPEnabled       = "TOTP_ENABLED"
	AccountEventTOTPDisabled      = "TOTP_DISABLED"
	AccountEventTOTPFailed        = "TOTP_FAILED"
	AccountEventRecoveryCodeUsed  = "RECOVERY_CODE_USED"
	AccountEventPasskeyAdded      = "PASSKEY_ADDED"
	AccountEventPasskeyRemoved    = "PASSKEY_REMOVED"
	AccountEventPasskeyFailed     = "PASSKEY_FAILED"
	AccountEventFactorConfirmed   = "FACTOR_CONFIRMED"
)

// AccountEvent is one thing that happened to an account, with who made it happen.
type AccountEvent struct {
	Type      string
	IP        string
	UserAgent string
	Data      map[string]any
}

// AccountEventRow is a stored account event.
type AccountEventRow struct {
	AccountEvent
	At time.Time
}

// insertAccountEvent records ev of account id at at.
func insertAccountEvent(ctx context.Context, q querier, accountID int64, ev AccountEvent, at time.Time) error {
	data := []byte("{}")
	if len(ev.Data) > 0 {
		var err error
		if data, err = json.Marshal(ev.Data); err != nil {
			return fmt.Errorf("encode %s event data: %w", ev.Type, err)
		}
	}
	_, err := q.Exec(ctx, `INSERT INTO account_events (account_id, type, at, ip_address, user_agent, data)
		VALUES ($1, $2, $3, nullif($4, ''), nullif($5, ''), $6)`, accountID, ev.Type, at, ev.IP, ev.UserAgent, data)
	if err != nil {
		return fmt.Errorf("record %s event of account %d: %w", ev.Type, accountID, err)
	}
	return nil
}

// RecordAccountEvent records ev of account id at now.
func (s *Store) RecordAccountEvent(ctx context.Context, id int64, ev AccountEvent, now time.Time) error {
	return insertAccountEvent(ctx, s.pool, id, ev, now)
}

// CountAccountEvents counts the events of account id of the given types at or after since.
func (s *Store) CountAccountEvents(ctx context.Context, id int64, types []string, since time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM account_events WHERE account_id = $1 AND type = ANY($2) AND at >= $3`,
		id, types, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count events of account %d: %w", id, err)
	}
	return n, nil
}

// AccountEvents returns the newest limit events of account id of the given types, newest first.
func (s *Store) AccountEvents(ctx context.Context, id int64, types []string, limit int) ([]AccountEventRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT type, at, coalesce(ip_address, ''), coalesce(user_agent, ''), data
		FROM account_events WHERE account_id = $1 AND type = ANY($2) ORDER BY at DESC, id DESC LIMIT $3`, id, types, limit)
	if err != nil {
		return nil, fmt.Errorf("list events of account %d: %w", id, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AccountEventRow, error) {
		var e AccountEventRow
		var data []byte
		if err := row.Scan(&e.Type, &e.At, &e.IP, &e.UserAgent, &data); err != nil {
			return e, err
		}
		return e, jsonUnmarshal(data, &e.Data)
	})
}
