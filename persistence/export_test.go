package persistence

import (
	"context"
	"sort"
	"time"
)

// MigrateTo applies the migrations up to version, for tests that start from an older schema.
var MigrateTo = migrateTo

// ExecInTx runs one statement in a transaction of s (InTx), for tests that break a constraint on
// purpose.
func (s *Store) ExecInTx(ctx context.Context, sql string, args ...any) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.q.Exec(ctx, sql, args...)
		return err
	})
}

// MappedConstraints lists the constraints that violations gives a meaning, sorted.
func MappedConstraints() []string {
	var names []string
	for n := range violations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParticipantSQL evaluates pendingSQL and overdueSQL at now over recipients rows built from the
// columns given, one row an index.
func (s *Store) ParticipantSQL(ctx context.Context, now time.Time, roles, statuses []string, expires []*time.Time) (pending, overdue []bool, err error) {
	rows, err := s.pool.Query(ctx, `SELECT `+pendingSQL+`, COALESCE(`+overdueSQL("$4")+`, false)
		FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS r(role, signing_status, expires_at, i) ORDER BY r.i`,
		roles, statuses, expires, now)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p, o bool
		if err := rows.Scan(&p, &o); err != nil {
			return nil, nil, err
		}
		pending, overdue = append(pending, p), append(overdue, o)
	}
	return pending, overdue, rows.Err()
}

// TextMatchCounts is how many of team teamID's rows of envelope_search each form of text query
// q's condition (textMatch) matches: the walk's and the index's, which must agree row for row.
func (s *Store) TextMatchCounts(ctx context.Context, teamID int64, q string) (scanned, indexed, both int, err error) {
	args := []any{teamID}
	m := textMatch(q, &args)
	err = s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE `+m.scanned+`), count(*) FILTER (WHERE `+m.indexed+`),
		count(*) FILTER (WHERE `+m.scanned+` AND `+m.indexed+`) FROM `+searchRows+` e WHERE e.team_id = $1`, args...).Scan(&scanned, &indexed, &both)
	return scanned, indexed, both, err
}
