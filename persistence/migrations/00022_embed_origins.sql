-- +goose Up
-- The origins that may frame a team's embedded signing page (/embed/sign/{token}), besides those
-- of SOBRE_EMBED_ORIGINS: each scheme://host[:port], checked before it is stored.
CREATE TABLE team_embed_origins (
    team_id    bigint PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
    origins    text[] NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A Clave Única login the embedded page begins in a popup window. The popup does not carry the
-- framed page's (partitioned) ceremony cookie, so such a login is bound to the session when it
-- begins, and to the popup when the popup takes it (popup_bound_at, once) and receives a cookie
-- of its own holding the state.
ALTER TABLE claveunica_logins ADD COLUMN popup boolean NOT NULL DEFAULT false,
    ADD COLUMN popup_bound_at timestamptz;

-- +goose Down
ALTER TABLE claveunica_logins DROP COLUMN popup, DROP COLUMN popup_bound_at;
DROP TABLE team_embed_origins;
