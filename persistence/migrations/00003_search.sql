-- +goose Up
-- Trigram indexes make the search's substring matches (ILIKE '%text%') on titles, external ids
-- and recipients' emails and names use an index instead of reading every row.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX envelopes_title_trgm_idx ON envelopes USING gin (title gin_trgm_ops);
CREATE INDEX envelopes_external_id_trgm_idx ON envelopes USING gin (external_id gin_trgm_ops);
CREATE INDEX recipients_email_trgm_idx ON recipients USING gin (email gin_trgm_ops);
CREATE INDEX recipients_name_trgm_idx ON recipients USING gin (name gin_trgm_ops);

-- +goose Down
DROP INDEX recipients_name_trgm_idx;
DROP INDEX recipients_email_trgm_idx;
DROP INDEX envelopes_external_id_trgm_idx;
DROP INDEX envelopes_title_trgm_idx;
