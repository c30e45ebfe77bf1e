// Signer account sessions: signed-in browsers and their confirmed second factor.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// AccountSession is a browser signed in to an account.
type AccountSession struct {
	// ID names the session without being its secret (hex SHA-256 of the secret's SHA-256).
	ID         string
	AccountID  int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	IP         string
	UserAgent  string
	Method     string
	// FactorConfirmedAt is when the session last proved a second factor of the account on the
	// account page; nil when it never did.
	FactorConfirmedAt *time.Time
}

const accountSessionColumns = `s.id, s.account_id, s.created_at, s.last_seen_at, coalesce(s.ip_address, ''), coalesce(s.user_agent, ''), s.method,
	s.factor_confirmed_at`

func accountSessionDest(s *AccountSession) []any {
	return []any{&s.ID, &s.AccountID, &s.CreatedAt, &s.LastSeenAt, &s.IP, &s.UserAgent, &s.Method, &s.FactorConfirmedAt}
}

// StartAccountSession signs a browser in to account id at now: a session kept by idHash (the
// SHA-256 of the cookie's secret), the account's count of wrong passwords cleared, ev recorded (with
// the session's id). It returns the session.
func (s *Store) StartAccountSession(ctx context.Context, idHash []byte, id int64, method string, ev AccountEvent, now time.Time) (AccountSession, error) {
	var sess AccountSession
	err := s.InTx(ctx, func(tx *Tx) error {
		err := tx.q.QueryRow(ctx, `INSERT INTO account_sessions AS s (id_hash, account_id, created_at, last_seen_at, ip_address, user_agent, method)
			VALUES ($1, $2, $3, $3, nullif($4, ''), nullif($5, ''), $6) RETURNING `+accountSessionColumns,
			idHash, id, now, ev.IP, ev.UserAgent, method).Scan(accountSessionDest(&sess)...)
		if err != nil {
			return fmt.Errorf("start a session of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET failed_attempts = 0 WHERE id = $1 AND failed_attempts <> 0`, id); err != nil {
			return fmt.Errorf("clear the failures of account %d: %w", id, err)
		}
		data := map[string]any{"session": sess.ID, "method": method}
		for k, v := range ev.Data {
			data[k] = v
		}
		ev.Data = data
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return sess, err
}

// LiveAccountSession returns the session kept by idHash and its account, when it is live at
// now (see liveAccountSession); else not found.
func (s *Store) LiveAccountSession(ctx context.Context, idHash []byte, now time.Time) (AccountSession, SignerAccount, error) {
	return liveAccountSession(ctx, s.pool, `s.id_hash = $1`, idHash, now)
}

// LiveAccountSessionByID is LiveAccountSession by the session's public id.
func (s *Store) LiveAccountSessionByID(ctx context.Context, id string, now time.Time) (AccountSession, SignerAccount, error) {
	return liveAccountSession(ctx, s.pool, `s.id = $1`, id, now)
}

// liveAccountSession reads the session where says (by $1 = key) and its account, when the
// session is live at now: not ended, and used within AccountSessionIdleTTL. It is the one reader
// of that rule, for the account pages and for the completion's transaction alike.
func liveAccountSession(ctx context.Context, q querier, where string, key any, now time.Time) (AccountSession, SignerAccount, error) {
	var sess AccountSession
	var a SignerAccount
	row := q.QueryRow(ctx, `SELECT `+accountSessionColumns+`, `+signerAccountColumns+`
		FROM account_sessions s JOIN signer_accounts a ON a.id = s.account_id
		WHERE `+where+` AND s.ended_at IS NULL AND s.last_seen_at > $2`, key, now.Add(-AccountSessionIdleTTL))
	if err := row.Scan(append(accountSessionDest(&sess), signerAccountDest(&a)...)...); err != nil {
		return sess, a, notFound(err, "session")
	}
	return sess, a, nil
}

// TouchAccountSession records that the session kept by idHash was used at now, at most once a
// minute (a use within a minute of the last one writes nothing).
func (s *Store) TouchAccountSession(ctx context.Context, idHash []byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE account_sessions SET last_seen_at = $2
		WHERE id_hash = $1 AND ended_at IS NULL AND last_seen_at < $2::timestamptz - interval '1 minute'`, idHash, now)
	if err != nil {
		return fmt.Errorf("touch an account session: %w", err)
	}
	return nil
}

// EndAccountSession ends the session kept by idHash at now and records ev of its account. It
// reports whether there was a session to end.
func (s *Store) EndAccountSession(ctx context.Context, idHash []byte, ev AccountEvent, now time.Time) (bool, error) {
	ended := false
	err := s.InTx(ctx, func(tx *Tx) error {
		var id int64
		var sessionID string
		err := tx.q.QueryRow(ctx, `UPDATE account_sessions SET ended_at = $2 WHERE id_hash = $1 AND ended_at IS NULL
			RETURNING account_id, id`, idHash, now).Scan(&id, &sessionID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("end an account session: %w", err)
		}
		ended = true
		ev.Data = map[string]any{"session": sessionID}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return ended, err
}

// ConfirmSessionFactor records that account session sessionID (the public id) of account id
// proved a second factor of the account at now, and ev. A session that ended, or is another
// account's, is not found.
func (s *Store) ConfirmSessionFactor(ctx context.Context, id int64, sessionID string, ev AccountEvent, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `UPDATE account_sessions SET factor_confirmed_at = $3
			WHERE id = $2 AND account_id = $1 AND ended_at IS NULL`, id, sessionID, now)
		if err != nil {
			return fmt.Errorf("record a factor proof of account %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return envelope.NotFound("session")
		}
		ev.Data = merge(ev.Data, map[string]any{"session": sessionID})
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
}

// AccountFactorState reports whether account id has a second factor (an enabled authenticator
// app or any passkey) and when its live session sessionID last proved one (nil when it never
// did, or the session is not a live one of the account).
func (s *Store) AccountFactorState(ctx context.Context, id int64, sessionID string) (bool, *time.Time, error) {
	var has bool
	var confirmed *time.Time
	err := s.pool.QueryRow(ctx, `SELECT a.totp_enabled_at IS NOT NULL OR EXISTS (SELECT 1 FROM account_passkeys p WHERE p.account_id = a.id),
			(SELECT s.factor_confirmed_at FROM account_sessions s WHERE s.id = $2 AND s.account_id = a.id AND s.ended_at IS NULL)
		FROM signer_accounts a WHERE a.id = $1`, id, sessionID).Scan(&has, &confirmed)
	if err != nil {
		return false, nil, notFound(err, "account")
	}
	return has, confirmed, nil
}
