// The team's sending quota, counted on the mail log and the requests reserved by sends.

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

// A team's mails of the quota's window are its mail log's rows written in the window, and the
// signing requests reserved in it (ReserveMailQuota) whose mails have not been claimed yet, to
// recipients not yet sent them, on envelopes PENDING, or still a DRAFT for 10 minutes (the
// send's workflow has not marked it PENDING yet, or never started; a distribute of the same
// envelope tried again replaces its reservations). A claim writes its mail log row and
// clears its recipient's reservation in one statement (ClaimMail), and this count reads both in
// one statement, so a request is counted once at any moment.
const (
	mailsUsed = `SELECT (SELECT count(*) FROM mail_log WHERE team_id = $1 AND created_at > now() - $2::interval)
		+ (SELECT count(*) FROM recipients r JOIN envelopes e ON e.id = r.envelope_id
			WHERE r.request_reserved_at > now() - $2::interval AND r.send_status = 'NOT_SENT' AND e.team_id = $1
				AND (e.status = 'PENDING' OR e.status = 'DRAFT' AND r.request_reserved_at > now() - interval '10 minutes'))`
	mailsUsedAt = `SELECT created_at FROM mail_log WHERE team_id = $1 AND created_at > now() - $2::interval
		UNION ALL SELECT r.request_reserved_at FROM recipients r JOIN envelopes e ON e.id = r.envelope_id
			WHERE r.request_reserved_at > now() - $2::interval AND r.send_status = 'NOT_SENT' AND e.team_id = $1
				AND (e.status = 'PENDING' OR e.status = 'DRAFT' AND r.request_reserved_at > now() - interval '10 minutes')`
)

// CheckMailQuota refuses (TOO_MANY_REQUESTS, with the wait) what would have Sobre send need more
// mails for team teamID when its mails of the last window, and need, pass quota.
func (s *Store) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	return checkMailQuota(ctx, s.pool, teamID, quota, need, window)
}

// CheckMailQuota is Store.CheckMailQuota inside the transaction, holding the team's quota until
// it ends (lockMailQuota): a request that holds a transaction never asks the pool for a second
// connection, which a few such requests at once would wait for each other to give back.
func (tx *Tx) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	if err := tx.lockMailQuota(ctx, teamID); err != nil {
		return err
	}
	return checkMailQuota(ctx, tx.q, teamID, quota, need, window)
}

// ReserveMailQuota refuses sending e when its signing requests (envelope.RequestsOnDistribute:
// the ones its workflow mails once this transaction commits) would pass quota (0: no quota), as
// CheckMailQuota does; when they fit, each is reserved on its recipient and counts from now
// until its mail is claimed, so that a send answered before its mails are sent still holds its
// share of the quota against the next one.
func (tx *Tx) ReserveMailQuota(ctx context.Context, e *envelope.Envelope, quota int) error {
	if quota == 0 {
		return nil
	}
	// The envelope's earlier reservations (a send tried again) are replaced by these.
	if _, err := tx.q.Exec(ctx, `UPDATE recipients SET request_reserved_at = NULL WHERE envelope_id = $1 AND request_reserved_at IS NOT NULL`,
		e.ID); err != nil {
		return fmt.Errorf("end the earlier reservations of envelope %s: %w", e.ID, err)
	}
	recipients := envelope.RequestsOnDistribute(e)
	if len(recipients) == 0 {
		return nil
	}
	if err := tx.lockMailQuota(ctx, e.TeamID); err != nil {
		return err
	}
	if err := checkMailQuota(ctx, tx.q, e.TeamID, quota, len(recipients), envelope.MailQuotaWindow); err != nil {
		return err
	}
	if _, err := tx.q.Exec(ctx, `UPDATE recipients SET request_reserved_at = now() WHERE envelope_id = $1 AND id = ANY($2)`,
		e.ID, recipients); err != nil {
		return fmt.Errorf("reserve the signing requests of envelope %s: %w", e.ID, err)
	}
	return nil
}

// mailQuotaLock is the first key of the advisory locks that hold a team's quota.
const mailQuotaLock = 0x736d71 // "smq"

// lockMailQuota holds team teamID's quota until the transaction ends: two sends of one team are
// counted one after the other, so the second sees the first's mails and reservations.
func (tx *Tx) lockMailQuota(ctx context.Context, teamID int64) error {
	if _, err := tx.q.Exec(ctx, `SELECT pg_advisory_xact_lock($1, ($2::bigint % 2147483647)::int)`, mailQuotaLock, teamID); err != nil {
		return fmt.Errorf("hold the mail quota of team %d: %w", teamID, err)
	}
	return nil
}

func checkMailQuota(ctx context.Context, q querier, teamID int64, quota, need int, window time.Duration) error {
	var used int
	if err := q.QueryRow(ctx, mailsUsed, teamID, window.String()).Scan(&used); err != nil {
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
	if err := q.QueryRow(ctx, `SELECT extract(epoch FROM at + $2::interval - now())::float8 FROM (`+mailsUsedAt+`) used (at)
		ORDER BY at OFFSET $3 - 1 LIMIT 1`, teamID, window.String(), used+need-quota).Scan(&seconds); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read the mails of team %d: %w", teamID, err)
	}
	wait := time.Duration(math.Ceil(seconds)) * time.Second
	return &envelope.Error{Code: envelope.CodeTooManyRequests, RetryAfter: max(wait, time.Second),
		Message: fmt.Sprintf("This team's mail quota is used up: %d of %d mails in the last %d hours, and this would send %d more; nothing was sent, try again later",
			used, quota, hours, need)}
}
