// Scope: which envelopes a member sees.

package persistence

import (
	"context"
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

// envelopeRows is a table whose rows each belong to one envelope, as envelopeIDOf reads it.
type envelopeRows struct {
	table string // its name, a constant
	what  string // what a row is, as a not-found error names it
}

var (
	fieldRows     = envelopeRows{table: "fields", what: "Field"}
	recipientRows = envelopeRows{table: "recipients", what: "Recipient"}
)

// envelopeIDOf returns the envelope that row id of rows belongs to, as the scope sees it: a row
// of an envelope outside the scope is not found, like a row that does not exist.
func envelopeIDOf(ctx context.Context, q querier, sc Scope, rows envelopeRows, id int64) (string, error) {
	var envelopeID string
	if err := q.QueryRow(ctx, `SELECT x.envelope_id FROM `+rows.table+` x JOIN envelopes e ON e.id = x.envelope_id
		WHERE x.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&envelopeID); err != nil {
		return "", notFound(err, rows.what)
	}
	return envelopeID, nil
}
