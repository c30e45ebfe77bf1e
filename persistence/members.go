// Teams and members: the people of a team and their roles.

package persistence

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

var nonURL = regexp.MustCompile(`[^a-z0-9]+`)

// teamURL derives a team's URL slug from its name: "Acme Ltda." becomes "acme-ltda".
func teamURL(name string) string {
	slug := strings.Trim(nonURL.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if slug == "" {
		slug = "team"
	}
	return slug
}

// EnsureMember finds or creates the team named teamName, the user with email, and the user's
// membership of the team with role, in one transaction. An existing membership keeps its role
// unless role is given (non-empty).
func (s *Store) EnsureMember(ctx context.Context, teamName, email, userName string, role envelope.TeamRole) (envelope.Member, error) {
	var m envelope.Member
	err := s.InTx(ctx, func(tx *Tx) error {
		url := teamURL(teamName)
		err := tx.q.QueryRow(ctx, `
			INSERT INTO teams (name, url) VALUES ($1, $2)
			ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url
			RETURNING id, name, url`, teamName, url).Scan(&m.TeamID, &m.TeamName, &m.TeamURL)
		if err != nil {
			return fmt.Errorf("upsert team %q: %w", teamName, err)
		}
		err = tx.q.QueryRow(ctx, `
			INSERT INTO users (email, name) VALUES ($1, $2)
			ON CONFLICT (lower(email)) DO UPDATE SET name = CASE WHEN $2 = '' THEN users.name ELSE $2 END
			RETURNING id, email, name`, email, userName).Scan(&m.UserID, &m.UserEmail, &m.UserName)
		if err != nil {
			return fmt.Errorf("upsert user %q: %w", email, err)
		}
		setRole := role
		if setRole == "" {
			setRole = envelope.TeamRoleMember
		}
		err = tx.q.QueryRow(ctx, `
			INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3)
			ON CONFLICT (team_id, user_id) DO UPDATE
			SET role = CASE WHEN $4 THEN EXCLUDED.role ELSE team_members.role END
			RETURNING role`, m.TeamID, m.UserID, setRole, role != "").Scan(&m.Role)
		if err != nil {
			return fmt.Errorf("upsert membership of %q in %q: %w", email, teamName, err)
		}
		return nil
	})
	return m, err
}

// TeamIDByName returns the id of the team named name (or whose URL slug is name's).
func (s *Store) TeamIDByName(ctx context.Context, name string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM teams WHERE url = $1`, teamURL(name)).Scan(&id)
	if err != nil {
		return 0, notFound(err, "team "+name)
	}
	return id, nil
}

// FindMemberByEmail returns the member of team teamID whose email is email.
func (s *Store) FindMemberByEmail(ctx context.Context, teamID int64, email string) (envelope.Member, error) {
	var m envelope.Member
	err := s.pool.QueryRow(ctx, `
		SELECT t.id, t.name, t.url, u.id, u.email, u.name, tm.role
		FROM team_members tm JOIN teams t ON t.id = tm.team_id JOIN users u ON u.id = tm.user_id
		WHERE tm.team_id = $1 AND lower(u.email) = lower($2) AND NOT u.disabled`, teamID, email).
		Scan(&m.TeamID, &m.TeamName, &m.TeamURL, &m.UserID, &m.UserEmail, &m.UserName, &m.Role)
	if err != nil {
		return m, notFound(err, "team member")
	}
	return m, nil
}
