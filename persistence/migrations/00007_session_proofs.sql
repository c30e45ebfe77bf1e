-- +goose Up
-- Proofs belong to the browser that made them. An advanced electronic signature (FAO_HASH) is
-- kept on the ceremony session that gave it, as Clave Única logins and access codes already are;
-- a recipient's completion names its session, and the completion records that session's proofs
-- (recipient_identities then holds the identity of whoever completed).
ALTER TABLE ceremony_sessions
    -- The session's public id, carried in the workflow's complete Update: it names the session
    -- without being its secret (the cookie) or the key it is looked up by.
    ADD COLUMN id text GENERATED ALWAYS AS (encode(sha256(id_hash), 'hex')) STORED,
    ADD COLUMN fea_rut     text,
    ADD COLUMN fea_subject text,
    ADD COLUMN fea_issuer  text,
    ADD COLUMN fea_serial  text,
    ADD COLUMN fea_digest  text,
    ADD COLUMN fea_cms     bytea,
    ADD COLUMN fea_at      timestamptz;
CREATE UNIQUE INDEX ceremony_sessions_id_idx ON ceremony_sessions (id);

-- +goose Down
DROP INDEX ceremony_sessions_id_idx;
ALTER TABLE ceremony_sessions DROP COLUMN id, DROP COLUMN fea_rut, DROP COLUMN fea_subject, DROP COLUMN fea_issuer,
    DROP COLUMN fea_serial, DROP COLUMN fea_digest, DROP COLUMN fea_cms, DROP COLUMN fea_at;
