// Scope: which envelopes a member sees.

package persistence

import (
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
)

// Scope is who reads: the caller's team, user and role. An envelope is visible to the caller when
// it belongs to the team and the caller owns it or the caller's role sees its visibility.
// Objects outside the scope are reported as not found.
type Scope struct {
	TeamID int64
	UserID int64
	Role   envelope.TeamRole
}

// ScopeOf returns the scope of member m.
func ScopeOf(m envelope.Member) Scope { return Scope{TeamID: m.TeamID, UserID: m.UserID, Role: m.Role} }

func (s Scope) visibilities() []string {
	var out []string
	for _, v := range s.Role.VisibleTo() {
		out = append(out, string(v))
	}
	return out
}

// visibleSQL is the condition on alias e that keeps envelopes the scope sees; its three
// arguments are (teamID, userID, visibilities) at positions $n, $n+1, $n+2.
func visibleSQL(n int) string {
	return fmt.Sprintf("e.team_id = $%d AND (e.user_id = $%d OR e.visibility = ANY($%d))", n, n+1, n+2)
}
