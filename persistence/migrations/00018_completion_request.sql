-- +goose Up
-- The id of the request (the workflow Update) that completed a recipient: the same request
-- delivered again, after Temporal aborted its first delivery, is answered as done instead of as
-- "already signed".
ALTER TABLE recipients ADD COLUMN completion_request text;

-- +goose Down
ALTER TABLE recipients DROP COLUMN completion_request;
