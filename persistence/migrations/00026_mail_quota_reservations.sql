-- +goose NO TRANSACTION
-- +goose Up
-- A signing request that a send has let through the team's mail quota is reserved on its
-- recipient until the mail's claim writes its mail_log row (persistence/mail_quota.go): the quota
-- counts it from the send's transaction on, once, although the workflow claims and sends the mail
-- after the distribute has answered. The partial index holds only the reserved rows; it is built
-- without blocking writes to recipients.
ALTER TABLE recipients ADD COLUMN IF NOT EXISTS request_reserved_at timestamptz;
-- A build that failed half-way leaves an invalid index: it is dropped and built again.
DROP INDEX CONCURRENTLY IF EXISTS recipients_request_reserved_idx;
CREATE INDEX CONCURRENTLY recipients_request_reserved_idx ON recipients (envelope_id) WHERE request_reserved_at IS NOT NULL;

-- A request's or reminder's mail names its recipient: it is handed to the relay only while the
-- envelope is PENDING and the recipient has not acted, and an ending tells the recipients whose
-- request was handed over.
ALTER TABLE mail_log ADD COLUMN IF NOT EXISTS recipient_id bigint;

-- +goose Down
ALTER TABLE mail_log DROP COLUMN recipient_id;
DROP INDEX recipients_request_reserved_idx;
ALTER TABLE recipients DROP COLUMN request_reserved_at;
