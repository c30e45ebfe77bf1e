-- +goose Up
-- Each audit entry written from now on carries an HMAC of its chain hash under a key kept outside
-- the database (SOBRE_AUDIT_KEY_FILE; see persistence/auditkey.go): whoever can write the
-- database but does not hold the key cannot rewrite a chain consistently. mac_key names the key
-- (keys rotate). Entries written before have neither: an unkeyed prefix of their chain.
ALTER TABLE audit_logs
    ADD COLUMN mac bytea,
    ADD COLUMN mac_key text,
    ADD CONSTRAINT audit_logs_mac_with_key CHECK ((mac IS NULL) = (mac_key IS NULL));

-- +goose Down
ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_mac_with_key, DROP COLUMN mac_key, DROP COLUMN mac;
