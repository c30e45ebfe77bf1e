package envelope

import "testing"

func TestMayManage(t *testing.T) {
	const team, owner, other = 7, 100, 200
	member := func(role TeamRole, user int64) Member { return Member{TeamID: team, UserID: user, Role: role} }
	tests := []struct {
		name string
		m    Member
		v    Visibility
		want Code // "" for allowed
	}{
		{"owner MEMBER, EVERYONE", member(TeamRoleMember, owner), VisibilityEveryone, ""},
		{"owner MEMBER, ADMIN visibility", member(TeamRoleMember, owner), VisibilityAdmin, ""},
		{"owner MANAGER, ADMIN visibility", member(TeamRoleManager, owner), VisibilityAdmin, ""},
		{"other MEMBER, EVERYONE", member(TeamRoleMember, other), VisibilityEveryone, CodeForbidden},
		{"other MEMBER, MANAGER_AND_ABOVE", member(TeamRoleMember, other), VisibilityManagerAndAbove, CodeNotFound},
		{"other MEMBER, ADMIN", member(TeamRoleMember, other), VisibilityAdmin, CodeNotFound},
		{"MANAGER, EVERYONE", member(TeamRoleManager, other), VisibilityEveryone, ""},
		{"MANAGER, MANAGER_AND_ABOVE", member(TeamRoleManager, other), VisibilityManagerAndAbove, ""},
		{"MANAGER, ADMIN", member(TeamRoleManager, other), VisibilityAdmin, CodeNotFound},
		{"ADMIN, EVERYONE", member(TeamRoleAdmin, other), VisibilityEveryone, ""},
		{"ADMIN, MANAGER_AND_ABOVE", member(TeamRoleAdmin, other), VisibilityManagerAndAbove, ""},
		{"ADMIN, ADMIN", member(TeamRoleAdmin, other), VisibilityAdmin, ""},
		{"ADMIN of another team", Member{TeamID: team + 1, UserID: other, Role: TeamRoleAdmin}, VisibilityEveryone, CodeNotFound},
		{"owner's user id in another team", Member{TeamID: team + 1, UserID: owner, Role: TeamRoleAdmin}, VisibilityEveryone, CodeNotFound},
		{"unknown role, EVERYONE", member(TeamRole("GUEST"), other), VisibilityEveryone, CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MayManage(tt.m, Owned{TeamID: team, OwnerID: owner, Visibility: tt.v})
			var got Code
			if err != nil {
				got = ErrorCode(err)
			}
			if got != tt.want {
				t.Errorf("MayManage = %v, want code %q", err, tt.want)
			}
		})
	}
}

func TestMayActFor(t *testing.T) {
	const team = 7
	who := func(role TeamRole, user int64) Member { return Member{TeamID: team, UserID: user, Role: role} }
	colleague := who(TeamRoleMember, 2)
	tests := []struct {
		name      string
		m, other  Member
		wantError Code
	}{
		{"MEMBER as themself", who(TeamRoleMember, 1), who(TeamRoleMember, 1), ""},
		{"MEMBER for a colleague", who(TeamRoleMember, 1), colleague, CodeForbidden},
		{"MANAGER for a colleague", who(TeamRoleManager, 1), colleague, ""},
		{"ADMIN for a colleague", who(TeamRoleAdmin, 1), colleague, ""},
		{"MEMBER for an ADMIN", who(TeamRoleMember, 1), who(TeamRoleAdmin, 3), CodeForbidden},
		{"ADMIN for someone of another team", who(TeamRoleAdmin, 1), Member{TeamID: team + 1, UserID: 2, Role: TeamRoleMember}, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MayActFor(tt.m, tt.other)
			var got Code
			if err != nil {
				got = ErrorCode(err)
			}
			if got != tt.wantError {
				t.Errorf("MayActFor = %v, want code %q", err, tt.wantError)
			}
		})
	}
}

func TestMaySee(t *testing.T) {
	owned := func(owner int64, v Visibility) Owned { return Owned{TeamID: 1, OwnerID: owner, Visibility: v} }
	tests := []struct {
		name string
		m    Member
		e    Owned
		want bool
	}{
		{"another team", Member{TeamID: 2, UserID: 9, Role: TeamRoleAdmin}, owned(9, VisibilityEveryone), false},
		{"the owner, whatever the visibility", Member{TeamID: 1, UserID: 9, Role: TeamRoleMember}, owned(9, VisibilityAdmin), true},
		{"an admin sees admin-only", Member{TeamID: 1, UserID: 3, Role: TeamRoleAdmin}, owned(9, VisibilityAdmin), true},
		{"a manager does not see admin-only", Member{TeamID: 1, UserID: 3, Role: TeamRoleManager}, owned(9, VisibilityAdmin), false},
		{"a manager sees managers-and-above", Member{TeamID: 1, UserID: 3, Role: TeamRoleManager}, owned(9, VisibilityManagerAndAbove), true},
		{"a member sees everyone's", Member{TeamID: 1, UserID: 3, Role: TeamRoleMember}, owned(9, VisibilityEveryone), true},
		{"a member does not see managers-and-above", Member{TeamID: 1, UserID: 3, Role: TeamRoleMember}, owned(9, VisibilityManagerAndAbove), false},
	}
	for _, tt := range tests {
		if got := MaySee(tt.m, tt.e); got != tt.want {
			t.Errorf("%s: MaySee = %v, want %v", tt.name, got, tt.want)
		}
	}
}
