package persistence_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// The SQL that picks pending and overdue recipients agrees with envelope.Participant's Pending
// and Overdue on every role, signing status and deadline (none, passed, now, ahead).
func TestParticipantSQL(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	var (
		ps       []envelope.Participant
		roles    []string
		statuses []string
		expires  []*time.Time
	)
	for _, role := range envelope.Roles() {
		for _, status := range []envelope.SigningStatus{envelope.SigningStatusNotSigned, envelope.SigningStatusSigned, envelope.SigningStatusRejected} {
			for _, at := range []*time.Time{nil, &past, &now, &future} {
				ps = append(ps, envelope.Participant{Role: role, Status: status, ExpiresAt: at})
				roles, statuses, expires = append(roles, string(role)), append(statuses, string(status)), append(expires, at)
			}
		}
	}
	pending, overdue, err := store.ParticipantSQL(context.Background(), now, roles, statuses, expires)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != len(ps) {
		t.Fatalf("got %d rows, want %d", len(pending), len(ps))
	}
	for i, p := range ps {
		name := fmt.Sprintf("%s %s expires %v", p.Role, p.Status, p.ExpiresAt)
		if pending[i] != p.Pending() {
			t.Errorf("%s: pendingSQL = %v, Pending() = %v", name, pending[i], p.Pending())
		}
		if overdue[i] != p.Overdue(now) {
			t.Errorf("%s: overdueSQL = %v, Overdue() = %v", name, overdue[i], p.Overdue(now))
		}
	}
}
