-- +goose Up
-- The ASSISTANT whose value a field holds, when an assistant filled it for the field's recipient:
-- its completion and the certificate of completion say what it filled for whom. Cleared when the
-- value is cleared or its own recipient fills it again.
ALTER TABLE fields ADD COLUMN prefilled_by bigint REFERENCES recipients (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE fields DROP COLUMN prefilled_by;
