-- +goose Up
-- The id of the request (the workflow Update) that recorded a recipient's outcome, a completion
-- or a rejection: the same request delivered again, after Temporal aborted its first delivery,
-- is answered as done instead of as "already signed" or "already rejected".
ALTER TABLE recipients ADD COLUMN outcome_request text;

-- +goose Down
ALTER TABLE recipients DROP COLUMN outcome_request;
