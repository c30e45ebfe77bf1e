-- +goose Up
-- DOCUMENT_VIEWED is recorded at most once per signing session in ten minutes: the last view
-- recorded for each of a recipient's sessions (its public id; '' for a caller without one, such
-- as the signing API used without the page's cookie, counted per recipient).
CREATE TABLE document_views (
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    session_id   text NOT NULL,
    viewed_at    timestamptz NOT NULL,
    PRIMARY KEY (recipient_id, session_id)
);
CREATE INDEX document_views_viewed_idx ON document_views (viewed_at);

-- The purge (a Temporal Schedule) finds what expired by these.
CREATE INDEX ceremony_sessions_expires_idx ON ceremony_sessions (expires_at);
CREATE INDEX access_codes_expires_idx ON access_codes (expires_at);
CREATE INDEX claveunica_logins_expires_idx ON claveunica_logins (expires_at);

-- The team of each mail, for the team's mail quota over the last 24 hours (kept when the
-- envelope is deleted, as the mail log is).
ALTER TABLE mail_log ADD COLUMN team_id bigint;
UPDATE mail_log m SET team_id = e.team_id FROM envelopes e WHERE e.id = m.envelope_id AND m.created_at > now() - interval '1 day';
CREATE INDEX mail_log_team_idx ON mail_log (team_id, created_at);

-- +goose Down
DROP INDEX mail_log_team_idx;
ALTER TABLE mail_log DROP COLUMN team_id;
DROP INDEX claveunica_logins_expires_idx;
DROP INDEX access_codes_expires_idx;
DROP INDEX ceremony_sessions_expires_idx;
DROP TABLE document_views;
