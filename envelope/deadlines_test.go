package envelope

import (
	"testing"
	"time"
)

func TestDeadline(t *testing.T) {
	sent := time.Date(2025, 1, 31, 10, 0, 0, 0, time.UTC)
	week := Duration{Unit: UnitWeek, Amount: 1}
	tests := []struct {
		name   string
		period *ExpirationPeriod
		want   *time.Time
	}{
		{"none set: three months", nil, ptr(DefaultExpiration.AddTo(sent))},
		{"a period", &ExpirationPeriod{Duration: week}, ptr(sent.Add(7 * 24 * time.Hour))},
		{"disabled: never", &ExpirationPeriod{Disabled: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Deadline(tt.period, sent)
			if (got == nil) != (tt.want == nil) || got != nil && !got.Equal(*tt.want) {
				t.Errorf("Deadline = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAwaitsExpiry(t *testing.T) {
	at := ptr(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	tests := []struct {
		name    string
		p       Participant
		handled bool
		want    bool
	}{
		{"a signer with a deadline", Participant{Role: RoleSigner, Status: SigningStatusNotSigned, ExpiresAt: at}, false, true},
		{"handled already", Participant{Role: RoleSigner, Status: SigningStatusNotSigned, ExpiresAt: at}, true, false},
		{"no deadline", Participant{Role: RoleSigner, Status: SigningStatusNotSigned}, false, false},
		{"a CC", Participant{Role: RoleCC, Status: SigningStatusNotSigned, ExpiresAt: at}, false, false},
		{"signed", Participant{Role: RoleSigner, Status: SigningStatusSigned, ExpiresAt: at}, false, false},
		{"rejected", Participant{Role: RoleApprover, Status: SigningStatusRejected, ExpiresAt: at}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AwaitsExpiry(tt.p, tt.handled); got != tt.want {
				t.Errorf("AwaitsExpiry = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOverdue(t *testing.T) {
	deadline := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at, before := ptr(deadline), deadline.Add(-time.Second)
	tests := []struct {
		name string
		p    Participant
		now  time.Time
		want bool
	}{
		{"a signer at their deadline", Participant{Role: RoleSigner, Status: SigningStatusNotSigned, ExpiresAt: at}, deadline, true},
		{"a signer before it", Participant{Role: RoleSigner, Status: SigningStatusNotSigned, ExpiresAt: at}, before, false},
		{"no deadline", Participant{Role: RoleSigner, Status: SigningStatusNotSigned}, deadline, false},
		{"a CC", Participant{Role: RoleCC, Status: SigningStatusNotSigned, ExpiresAt: at}, deadline, false},
		{"signed in time", Participant{Role: RoleSigner, Status: SigningStatusSigned, ExpiresAt: at}, deadline, false},
		{"rejected", Participant{Role: RoleApprover, Status: SigningStatusRejected, ExpiresAt: at}, deadline, false},
		{"a viewer", Participant{Role: RoleViewer, Status: SigningStatusNotSigned, ExpiresAt: at}, deadline, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Overdue(tt.now); got != tt.want {
				t.Errorf("Overdue = %v, want %v", got, tt.want)
			}
		})
	}
}
