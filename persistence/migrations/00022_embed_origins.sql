-- +goose Up
-- The origins that may frame a team's embedded signing page (/embed/sign/{token}), besides those
-- of SOBRE_EMBED_ORIGINS: each scheme://host[:port], checked before it is stored.
CREATE TABLE team_embed_origins (
    team_id    bigint PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
    origins    text[] NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE team_embed_origins;
