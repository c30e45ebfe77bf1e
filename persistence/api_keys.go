// API keys: a member's keys, kept by their hash.

package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// APIKey is a stored API key; the key itself is never stored, only its hash.
type APIKey struct {
	ID         int64
	Member     envelope.Member
	Name       string
	Prefix     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
}

// CreateAPIKey stores the hash of a new key for member m.
func (s *Store) CreateAPIKey(ctx context.Context, m envelope.Member, name string, hash []byte, prefix string, expiresAt *time.Time) (APIKey, error) {
	k := APIKey{Member: m, Name: name, Prefix: prefix, ExpiresAt: expiresAt}
	err := s.pool.QueryRow(ctx, `
		INSERT INTO api_keys (team_id, user_id, name, key_hash, key_prefix, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`,
		m.TeamID, m.UserID, name, hash, prefix, expiresAt).Scan(&k.ID, &k.CreatedAt)
	if err != nil {
		return k, fmt.Errorf("store api key for %s in team %d: %w", m.UserEmail, m.TeamID, err)
	}
	return k, nil
}

// APIKeyByHash returns the key whose hash is hash, with its member, whatever its state: the
// caller decides what an expired or revoked key means.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	var k APIKey
	var disabled bool
	err := s.pool.QueryRow(ctx, `
		SELECT k.id, k.name, k.key_prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at,
		       t.id, t.name, t.url, u.id, u.email, u.name, u.disabled, COALESCE(tm.role, '')
		FROM api_keys k
		JOIN teams t ON t.id = k.team_id
		JOIN users u ON u.id = k.user_id
		LEFT JOIN team_members tm ON tm.team_id = k.team_id AND tm.user_id = k.user_id
		WHERE k.key_hash = $1`, hash).Scan(&k.ID, &k.Name, &k.Prefix, &k.CreatedAt, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt,
		&k.Member.TeamID, &k.Member.TeamName, &k.Member.TeamURL, &k.Member.UserID, &k.Member.UserEmail, &k.Member.UserName,
		&disabled, &k.Member.Role)
	if err != nil {
		return k, notFound(err, "api key")
	}
	if disabled || k.Member.Role == "" {
		// A disabled user, or one no longer in the team, holds no valid key.
		now := time.Now()
		k.RevokedAt = &now
	}
	return k, nil
}

// touchEvery is how often a key's use is recorded at most: its last_used_at is at most that
// old while it is in use.
const touchEvery = time.Minute

// TouchAPIKey records that key k (as APIKeyByHash read it) was used, at most once per
// touchEvery: a key whose use was recorded less than that ago costs no round trip.
func (s *Store) TouchAPIKey(ctx context.Context, k APIKey) error {
	if k.LastUsedAt != nil && time.Since(*k.LastUsedAt) < touchEvery {
		return nil
	}
	_, err := s.pool.Exec(ctx, `
		UPDATE api_keys SET last_used_at = now()
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`, k.ID, touchEvery.Seconds())
	if err != nil {
		return fmt.Errorf("touch api key %d: %w", k.ID, err)
	}
	return nil
}

// RevokeAPIKey revokes key id of team teamID.
func (s *Store) RevokeAPIKey(ctx context.Context, teamID, id int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND team_id = $2 AND revoked_at IS NULL`, id, teamID)
	if err != nil {
		return fmt.Errorf("revoke api key %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return envelope.NotFound("api key")
	}
	return nil
}

// ListAPIKeys returns the keys of team teamID, newest first.
func (s *Store) ListAPIKeys(ctx context.Context, teamID int64) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT k.id, k.name, k.key_prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, u.id, u.email
		FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.team_id = $1 ORDER BY k.id DESC`, teamID)
	if err != nil {
		return nil, fmt.Errorf("list api keys of team %d: %w", teamID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (APIKey, error) {
		var k APIKey
		k.Member.TeamID = teamID
		err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.CreatedAt, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt, &k.Member.UserID, &k.Member.UserEmail)
		return k, err
	})
}
