-- +goose Up
-- A mail's claim has an owner (the activity attempt sending it) and a lease: a second attempt
-- waits for the lease to pass instead of sending the same mail at the same time. A mail the
-- relay refused for good is 'failed', with the relay's answer.
ALTER TABLE mail_log ADD COLUMN owner text;
ALTER TABLE mail_log ADD COLUMN lease_until timestamptz;
ALTER TABLE mail_log ADD COLUMN answer text;
ALTER TABLE mail_log DROP CONSTRAINT mail_log_state_check;
ALTER TABLE mail_log ADD CONSTRAINT mail_log_state_check CHECK (state IN ('sending', 'transmitting', 'sent', 'failed'));

-- The last mail to a recipient that the relay refused for good, shown to the envelope's owner
-- until a later mail to the recipient is sent.
ALTER TABLE recipients ADD COLUMN delivery_error text;

-- +goose Down
ALTER TABLE recipients DROP COLUMN delivery_error;
DELETE FROM mail_log WHERE state = 'failed';
ALTER TABLE mail_log DROP CONSTRAINT mail_log_state_check;
ALTER TABLE mail_log ADD CONSTRAINT mail_log_state_check CHECK (state IN ('sending', 'transmitting', 'sent'));
ALTER TABLE mail_log DROP COLUMN answer;
ALTER TABLE mail_log DROP COLUMN lease_until;
ALTER TABLE mail_log DROP COLUMN owner;
