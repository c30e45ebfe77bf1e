// The team's sending quota, counted on the mail log.

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
