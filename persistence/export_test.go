package persistence

import (
	"context"
	"sort"
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
