package envelope

import (
	"testing"
	"time"
)

func TestMayFill(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	withDeadline := func(p Participant, at time.Time) Participant { p.ExpiresAt = &at; return p }
	tests := []struct {
		name        string
		p           Participant
		wantUnacted Code
		wantFill    Code
	}{
		{"signer pending", part(1, RoleSigner, 1, ns), "", ""},
		{"out of turn may still fill", part(2, RoleSigner, 9, ns), "", ""},
		{"deadline ahead", withDeadline(part(3, RoleSigner, 1, ns), future), "", ""},
		{"deadline at now", withDeadline(part(3, RoleSigner, 1, ns), now), "", CodeRecipientExpired},
		{"deadline passed", withDeadline(part(3, RoleSigner, 1, ns), past), "", CodeRecipientExpired},
		{"signed", part(4, RoleSigner, 1, sg), CodeRecipientAlreadySigned, CodeRecipientAlreadySigned},
		{"rejected", part(5, RoleApprover, 1, rj), CodeRecipientAlreadySigned, CodeRecipientAlreadySigned},
		{"signed, deadline passed", withDeadline(part(6, RoleSigner, 1, sg), past), CodeRecipientAlreadySigned, CodeRecipientAlreadySigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeOf(tt.p.Unacted()); got != tt.wantUnacted {
				t.Errorf("Unacted() = %q, want %q", got, tt.wantUnacted)
			}
			if got := codeOf(MayFill(tt.p, now)); got != tt.wantFill {
				t.Errorf("MayFill() = %q, want %q", got, tt.wantFill)
			}
		})
	}
}

// codeOf is err's code, "" for nil.
func codeOf(err error) Code {
	if err == nil {
		return ""
	}
	return ErrorCode(err)
}
