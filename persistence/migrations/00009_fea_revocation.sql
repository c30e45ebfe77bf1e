-- +goose Up
-- An advanced electronic signature (FAO_HASH) is kept with what was learnt of its certificate's
-- revocation: the OCSP response as received (DER, when one was read) and the status as the
-- certificate of completion tells it ("good (OCSP, <responder>, <thisUpdate>)" or
-- "not checked: <reason>"). The recipient's identity copies both at completion, with the exact
-- bytes whose SHA-256 is the signed digest (the digest input as the completion's transaction
-- saw it), so the owner can give a third party what to recompute.
ALTER TABLE ceremony_sessions
    ADD COLUMN fea_ocsp       bytea,
    ADD COLUMN fea_revocation text;
ALTER TABLE recipient_identities
    ADD COLUMN fea_ocsp         bytea,
    ADD COLUMN fea_revocation   text,
    ADD COLUMN fea_digest_input bytea;

-- +goose Down
ALTER TABLE recipient_identities DROP COLUMN fea_ocsp, DROP COLUMN fea_revocation, DROP COLUMN fea_digest_input;
ALTER TABLE ceremony_sessions DROP COLUMN fea_ocsp, DROP COLUMN fea_revocation;
