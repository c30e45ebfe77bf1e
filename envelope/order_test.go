package envelope

import (
	"slices"
	"testing"
	"time"
)

func part(id int64, role Role, order int, status SigningStatus) Participant {
	p := Participant{ID: id, Role: role, Status: status}
	if order >= 0 {
		p.SigningOrder = &order
	}
	return p
}

const (
	ns = SigningStatusNotSigned
	sg = SigningStatusSigned
	rj = SigningStatusRejected
)

func TestMayActNow(t *testing.T) {
	tests := []struct {
		name  string
		order SigningOrder
		ps    []Participant
		want  []int64
	}{
		{"parallel: everyone pending", SigningOrderParallel,
			[]Participant{part(1, RoleSigner, -1, ns), part(2, RoleSigner, -1, ns), part(3, RoleViewer, -1, ns)}, []int64{1, 2, 3}},
		{"parallel: signed and CC left out", SigningOrderParallel,
			[]Participant{part(1, RoleSigner, -1, sg), part(2, RoleCC, -1, ns), part(3, RoleApprover, -1, ns)}, []int64{3}},
		{"parallel: approver with lower order gates signers", SigningOrderParallel,
			[]Participant{part(1, RoleApprover, 1, ns), part(2, RoleSigner, 2, ns), part(3, RoleViewer, 2, ns)}, []int64{1, 3}},
		{"parallel: approved, signers free", SigningOrderParallel,
			[]Participant{part(1, RoleApprover, 1, sg), part(2, RoleSigner, 2, ns)}, []int64{2}},
		{"parallel: approver of equal order does not gate", SigningOrderParallel,
			[]Participant{part(1, RoleApprover, 1, ns), part(2, RoleSigner, 1, ns)}, []int64{1, 2}},
		{"parallel: no orders, no gate", SigningOrderParallel,
			[]Participant{part(1, RoleApprover, -1, ns), part(2, RoleSigner, -1, ns)}, []int64{1, 2}},
		{"sequential: first by order", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 2, ns), part(2, RoleSigner, 1, ns)}, []int64{2}},
		{"sequential: shared order in parallel", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 1, ns), part(2, RoleSigner, 1, ns), part(3, RoleSigner, 2, ns)}, []int64{1, 2}},
		{"sequential: shared order, one signed", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 1, sg), part(2, RoleSigner, 1, ns), part(3, RoleSigner, 2, ns)}, []int64{2}},
		{"sequential: group done, next group", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 1, sg), part(2, RoleSigner, 1, sg), part(3, RoleSigner, 2, ns), part(4, RoleSigner, 2, ns)}, []int64{3, 4}},
		{"sequential: approver gates later signers", SigningOrderSequential,
			[]Participant{part(1, RoleApprover, 1, ns), part(2, RoleSigner, 2, ns), part(3, RoleSigner, 3, ns)}, []int64{1}},
		{"sequential: CC never blocks", SigningOrderSequential,
			[]Participant{part(1, RoleCC, 1, ns), part(2, RoleSigner, 2, ns)}, []int64{2}},
		{"sequential: viewer blocks like others", SigningOrderSequential,
			[]Participant{part(1, RoleViewer, 1, ns), part(2, RoleSigner, 2, ns)}, []int64{1}},
		{"sequential: unset orders last, one by one by id", SigningOrderSequential,
			[]Participant{part(5, RoleSigner, -1, ns), part(3, RoleSigner, -1, ns), part(9, RoleSigner, 4, sg)}, []int64{3}},
		{"sequential: ordered before unordered", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, -1, ns), part(2, RoleSigner, 7, ns)}, []int64{2}},
		{"sequential: ties broken by id", SigningOrderSequential,
			[]Participant{part(4, RoleSigner, 1, ns), part(2, RoleViewer, 1, ns)}, []int64{2, 4}},
		{"sequential: everyone done", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 1, sg), part(2, RoleCC, 2, ns)}, nil},
		{"sequential: rejected is not pending", SigningOrderSequential,
			[]Participant{part(1, RoleSigner, 1, rj), part(2, RoleSigner, 2, ns)}, []int64{2}},
		{"empty", SigningOrderParallel, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MayActNow(tt.order, tt.ps)
			if !slices.Equal(got, tt.want) {
				t.Errorf("MayActNow = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTurnAndAllDone(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	expired := part(4, RoleSigner, 1, ns)
	expired.ExpiresAt = &past
	fresh := part(5, RoleSigner, 1, ns)
	fresh.ExpiresAt = &future
	ps := []Participant{part(1, RoleApprover, 1, ns), part(2, RoleSigner, 2, ns), part(3, RoleCC, 0, ns), expired, fresh, part(6, RoleSigner, 1, sg), part(7, RoleSigner, 1, rj)}
	tests := []struct {
		id   int64
		want Code
	}{
		{1, ""}, {5, ""},
		{2, CodeRecipientOutOfTurn},
		{3, CodeInvalidRequest},
		{4, CodeRecipientExpired},
		{6, CodeRecipientAlreadySigned},
		{7, CodeInvalidRequest},
		{99, CodeNotFound},
	}
	for _, tt := range tests {
		err := Turn(SigningOrderSequential, ps, tt.id, now)
		if tt.want == "" && err != nil || tt.want != "" && ErrorCode(err) != tt.want {
			t.Errorf("Turn(%d) = %v, want %s", tt.id, err, tt.want)
		}
	}
	if AllDone(ps) {
		t.Error("AllDone with pending recipients")
	}
	if !AllDone([]Participant{part(1, RoleSigner, 1, sg), part(2, RoleCC, 1, ns), part(3, RoleViewer, 2, sg)}) {
		t.Error("AllDone false when every non-CC signed")
	}
}

func TestParticipants(t *testing.T) {
	order, at := 3, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rs := []Recipient{
		{ID: 7, Role: RoleApprover, SigningOrder: &order, SigningStatus: SigningStatusSigned, ExpiresAt: &at, Email: "a@example.com"},
		{ID: 2, Role: RoleCC, SigningStatus: SigningStatusNotSigned},
	}
	got := Participants(rs)
	want := []Participant{
		{ID: 7, Role: RoleApprover, SigningOrder: &order, Status: SigningStatusSigned, ExpiresAt: &at},
		{ID: 2, Role: RoleCC, Status: SigningStatusNotSigned},
	}
	if len(got) != len(want) {
		t.Fatalf("Participants = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Participants[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMayReject(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	withDeadline := func(p Participant, at time.Time) Participant { p.ExpiresAt = &at; return p }
	tests := []struct {
		name     string
		p        Participant
		external bool
		want     Code
	}{
		{"signer pending", part(1, RoleSigner, 1, ns), false, ""},
		{"out of turn may still reject", part(2, RoleSigner, 9, ns), false, ""},
		{"viewer", part(3, RoleViewer, -1, ns), false, ""},
		{"signed", part(4, RoleSigner, 1, sg), false, CodeRecipientAlreadySigned},
		{"signed, external", part(4, RoleSigner, 1, sg), true, CodeRecipientAlreadySigned},
		{"rejected", part(5, RoleSigner, 1, rj), false, CodeInvalidRequest},
		{"CC", part(6, RoleCC, 1, ns), false, CodeInvalidRequest},
		{"CC, external", part(6, RoleCC, 1, ns), true, CodeInvalidRequest},
		{"expired", withDeadline(part(7, RoleSigner, 1, ns), past), false, CodeRecipientExpired},
		{"expired, on their behalf", withDeadline(part(7, RoleSigner, 1, ns), past), true, ""},
		{"deadline ahead", withDeadline(part(8, RoleSigner, 1, ns), future), false, ""},
		{"deadline now", withDeadline(part(9, RoleSigner, 1, ns), now), false, CodeRecipientExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MayReject(tt.p, tt.external, now)
			if tt.want == "" && err != nil || tt.want != "" && ErrorCode(err) != tt.want {
				t.Errorf("MayReject = %v, want %q", err, tt.want)
			}
		})
	}
}
