-- +goose Up
-- The visibility a bulk send's documents take from its template, as the template had it when the
-- job was made: who may read the job is who may see those documents (envelope.MaySeeBulkJob).
-- A job made before this has none, and is read as its template is seen now.
ALTER TABLE bulk_send_jobs ADD COLUMN visibility text;

-- +goose Down
ALTER TABLE bulk_send_jobs DROP COLUMN visibility;
