package persistence

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TeamEmbedOrigins returns the origins team teamID allows to frame its embedded signing page
// (none when it set none).
func (s *Store) TeamEmbedOrigins(ctx context.Context, teamID int64) ([]string, error) {
	origins := []string{}
	err := s.pool.QueryRow(ctx, `SELECT origins FROM team_embed_origins WHERE team_id = $1`, teamID).Scan(&origins)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read embed origins of team %d: %w", teamID, err)
	}
	return origins, nil
}

// SetTeamEmbedOrigins replaces team teamID's embed origins with origins (checked by the caller:
// config.ParseEmbedOrigins).
func (s *Store) SetTeamEmbedOrigins(ctx context.Context, teamID int64, origins []string) error {
	if origins == nil {
		origins = []string{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO team_embed_origins (team_id, origins) VALUES ($1, $2)
		ON CONFLICT (team_id) DO UPDATE SET origins = EXCLUDED.origins, updated_at = now()`, teamID, origins)
	if err != nil {
		return fmt.Errorf("set embed origins of team %d: %w", teamID, err)
	}
	return nil
}

// EmbedOriginsOfToken returns the embed origins of the team whose envelope holds signing token
// token (none for an unknown token).
func (s *Store) EmbedOriginsOfToken(ctx context.Context, token string) ([]string, error) {
	origins := []string{}
	err := s.pool.QueryRow(ctx, `SELECT coalesce(o.origins, '{}') FROM recipients r
		JOIN envelopes e ON e.id = r.envelope_id
		LEFT JOIN team_embed_origins o ON o.team_id = e.team_id
		WHERE r.token_hash = $1`, TokenHash(token)).Scan(&origins)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read embed origins of a signing link: %w", err)
	}
	return origins, nil
}
