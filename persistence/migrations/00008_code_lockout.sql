-- +goose Up
-- Access codes with a ceiling. A recipient's wrong access codes are counted over every session
-- and every code, against the signing link they were typed on: at the ceiling the code entry
-- locks, and only sending the envelope to the recipient again (which clears the count) or a new
-- token opens it. The count also sets the wait before the next try.
CREATE TABLE access_code_guards (
    recipient_id   bigint PRIMARY KEY REFERENCES recipients (id) ON DELETE CASCADE,
    -- The signing link the count belongs to (recipients.link_version, migration 00010): a count
    -- kept for a link since replaced counts for nothing. No copy of the token itself.
    link_version   integer NOT NULL,
    failures       integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    last_failed_at timestamptz,
    locked_at      timestamptz,
    -- How many times the entry locked, ever: numbers the owner's mails, one per lock.
    locks          integer NOT NULL DEFAULT 0 CHECK (locks >= 0)
);

-- +goose Down
DROP TABLE access_code_guards;
