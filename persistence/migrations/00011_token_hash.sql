-- +goose Up
-- Signing tokens at rest. A recipient's token is looked up by its SHA-256 (token_hash, unique: its
-- index serves every signing request), and kept for the reads of those who manage the envelope
-- only sealed with the server's keyring (token_sealed: AES-256-GCM bound to the recipient's id;
-- token_key_id: the key that sealed it, SOBRE_PAYLOAD_KEYS_FILE). The database alone no longer
-- holds a working signing link.
--
-- Existing rows: their hashes are computed here, so every link keeps working the moment this
-- runs. Sealing needs the key, which SQL does not have (and `sobre migrate` is not given): the
-- plain column stays, nullable, until the first process with the keyring (`sobre serve`,
-- `worker` or `dev`) seals each token left and clears it, in batches, idempotently
-- (Store.SealPlainTokens). New rows never write it. Until a row is sealed its owner's reads show
-- the plain copy. A later migration drops the column once every deployment has run this one.
ALTER TABLE recipients
    ADD COLUMN token_hash bytea,
    ADD COLUMN token_sealed bytea,
    ADD COLUMN token_key_id text;
UPDATE recipients SET token_hash = sha256(convert_to(token, 'UTF8'));
ALTER TABLE recipients
    ALTER COLUMN token_hash SET NOT NULL,
    ADD CONSTRAINT recipients_token_hash_key UNIQUE (token_hash),
    ALTER COLUMN token DROP NOT NULL,
    DROP CONSTRAINT recipients_token_key,
    ADD CONSTRAINT recipients_token_sealed_check CHECK ((token_sealed IS NULL) = (token_key_id IS NULL));
-- The rows still to seal, found without reading the table (empty once they are sealed).
CREATE INDEX recipients_plain_token_idx ON recipients (id) WHERE token IS NOT NULL;

-- +goose Down
-- Going back needs every token in the clear, which only a process with the keyring could give:
-- this fails while any recipient's token is kept only sealed.
DROP INDEX recipients_plain_token_idx;
ALTER TABLE recipients
    DROP CONSTRAINT recipients_token_sealed_check,
    DROP CONSTRAINT recipients_token_hash_key,
    ALTER COLUMN token SET NOT NULL,
    ADD CONSTRAINT recipients_token_key UNIQUE (token),
    DROP COLUMN token_hash,
    DROP COLUMN token_sealed,
    DROP COLUMN token_key_id;
