-- +goose Up
-- Who may sign a recipient's part. A recipient may name the RUN its signer must prove (Clave
-- Única, FAO_HASH); changing its email, authentication or expected RUN replaces its signing link:
-- the token changes, link_version counts the replacements (the workflow, which never sees a
-- token, mails the new link when it changes), and the old token is kept only as a hash, so the
-- old link can say it was replaced.
ALTER TABLE recipients
    ADD COLUMN expected_rut text,
    ADD COLUMN link_version integer NOT NULL DEFAULT 0;
CREATE TABLE replaced_links (
    token_hash   bytea PRIMARY KEY,
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    replaced_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX replaced_links_recipient_idx ON replaced_links (recipient_id);
-- The ceremony session (its public id) whose browser filled each field's value: a completion
-- that proves an identity takes only the values its own session filled.
ALTER TABLE fields ADD COLUMN filled_by_session text;
-- A Clave Única login or FAO_HASH certificate refused because its RUN is not the expected one:
-- who tried, by which method, how often. The owner is mailed once per RUN.
CREATE TABLE identity_mismatches (
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    run          text NOT NULL,
    via          text NOT NULL,
    attempts     integer NOT NULL DEFAULT 1,
    first_at     timestamptz NOT NULL DEFAULT now(),
    last_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (recipient_id, run)
);

-- +goose Down
DROP TABLE identity_mismatches;
ALTER TABLE fields DROP COLUMN filled_by_session;
DROP TABLE replaced_links;
ALTER TABLE recipients DROP COLUMN expected_rut, DROP COLUMN link_version;
