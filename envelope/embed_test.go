package envelope

import "testing"

func TestMayManageEmbedOrigins(t *testing.T) {
	for _, tc := range []struct {
		role TeamRole
		ok   bool
	}{
		{TeamRoleAdmin, true},
		{TeamRoleManager, true},
		{TeamRoleMember, false},
		{"", false},
	} {
		err := MayManageEmbedOrigins(Member{Role: tc.role})
		if (err == nil) != tc.ok {
			t.Errorf("role %q: err %v, want allowed %v", tc.role, err, tc.ok)
		}
		if err != nil && ErrorCode(err) != CodeForbidden {
			t.Errorf("role %q: code %s, want FORBIDDEN", tc.role, ErrorCode(err))
		}
	}
}
