-- +goose Up
-- Each audit entry carries the SHA-256 of its canonical content chained to the entry before it
-- (see persistence/auditchain.go): changing, removing or reordering an entry breaks the chain.
ALTER TABLE audit_logs ADD COLUMN prev_hash bytea, ADD COLUMN hash bytea;

-- +goose Down
ALTER TABLE audit_logs DROP COLUMN hash, DROP COLUMN prev_hash;
