-- +goose Up
-- A signing request that a distribute has let through the team's mail quota is reserved on its
-- recipient until the mail's claim writes its mail_log row (persistence/mail_quota.go): the quota
-- counts it from the distribute's transaction on, once, although the workflow claims and sends
-- the mail after the distribute has answered. The partial index holds only the reserved rows.
ALTER TABLE recipients ADD COLUMN request_reserved_at timestamptz;
CREATE INDEX recipients_request_reserved_idx ON recipients (envelope_id) WHERE request_reserved_at IS NOT NULL;

-- +goose Down
DROP INDEX recipients_request_reserved_idx;
ALTER TABLE recipients DROP COLUMN request_reserved_at;
