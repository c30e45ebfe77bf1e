package envelope

import (
	"testing"
	"time"
)

func TestAbandoned(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	at := func(p Participant, t *time.Time) Participant { p.ExpiresAt = t; return p }
	tests := []struct {
		name  string
		order SigningOrder
		ps    []Participant
		noted []int64
		want  bool
	}{
		{"the only signer expired and noted", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &past)}, []int64{1}, true},
		{"expired at exactly now, noted", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &now)}, []int64{1}, true},
		{"expired but not noted yet: the expiry is still to note", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &past)}, nil, false},
		{"still in time", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &future)}, nil, false},
		{"no deadline: never abandoned", SigningOrderParallel, []Participant{part(1, RoleSigner, -1, ns)}, nil, false},
		{"one signed, the other expired and noted", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, sg), &past), at(part(2, RoleSigner, -1, ns), &past)}, []int64{2}, true},
		{"one expired and noted, another in time", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &past), at(part(2, RoleViewer, -1, ns), &future)}, []int64{1}, false},
		{"a CC has nothing to do", SigningOrderParallel, []Participant{at(part(1, RoleSigner, -1, ns), &past), part(2, RoleCC, -1, ns)}, []int64{1}, true},
		{"everyone signed: the envelope completes instead", SigningOrderParallel, []Participant{part(1, RoleSigner, -1, sg), part(2, RoleCC, -1, ns)}, nil, false},
		{"nobody at all: complete, not abandoned", SigningOrderParallel, nil, nil, false},
		{"sequential: the turn expired and noted, a later signer never gets theirs", SigningOrderSequential,
			[]Participant{at(part(1, RoleApprover, 1, ns), &past), part(2, RoleSigner, 2, ns)}, []int64{1}, true},
		{"parallel: an expired approver holds back a later signer for good", SigningOrderParallel,
			[]Participant{at(part(1, RoleApprover, 1, ns), &past), part(2, RoleSigner, 2, ns)}, []int64{1}, true},
		{"sequential: the turn still in time", SigningOrderSequential,
			[]Participant{at(part(1, RoleSigner, 1, sg), &past), at(part(2, RoleSigner, 2, ns), &future), part(3, RoleSigner, 3, ns)}, nil, false},
		{"sequential: the turn expired but not noted", SigningOrderSequential,
			[]Participant{at(part(1, RoleSigner, 1, ns), &past), part(2, RoleSigner, 2, ns)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Abandoned(tt.order, tt.ps, tt.noted, now); got != tt.want {
				t.Errorf("Abandoned = %v, want %v", got, tt.want)
			}
		})
	}
}
