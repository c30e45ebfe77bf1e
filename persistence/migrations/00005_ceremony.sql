-- +goose Up
-- A signing ceremony: one browser's session with one recipient, begun when the signing link is
-- opened. The browser holds the session's secret in an HttpOnly cookie; only its SHA-256 is kept.
-- What the recipient proves during the ceremony (a mailed code, Clave Única) is recorded here,
-- so a proof made in one browser never applies to a signing link used elsewhere.
CREATE TABLE ceremony_sessions (
    id_hash            bytea PRIMARY KEY,
    recipient_id       bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    created_at         timestamptz NOT NULL DEFAULT now(),
    expires_at         timestamptz NOT NULL,
    access_verified_at timestamptz,
    claveunica_run     text,
    claveunica_name    text,
    claveunica_at      timestamptz
);
CREATE INDEX ceremony_sessions_recipient_idx ON ceremony_sessions (recipient_id);

-- Access codes (TWO_FACTOR_AUTH by email): six digits, kept as an HMAC keyed by the session's
-- secret, short-lived, single use, with a bounded number of attempts.
CREATE TABLE access_codes (
    id           bigserial PRIMARY KEY,
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    session_hash bytea NOT NULL REFERENCES ceremony_sessions (id_hash) ON DELETE CASCADE,
    code_hmac    bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    attempts     int NOT NULL DEFAULT 0,
    used_at      timestamptz
);
CREATE INDEX access_codes_recipient_idx ON access_codes (recipient_id, created_at);

-- Clave Única logins under way: the state (kept hashed) and nonce of one authorization request,
-- bound to the ceremony that began it, used once.
CREATE TABLE claveunica_logins (
    state_hash   bytea PRIMARY KEY,
    session_hash bytea NOT NULL REFERENCES ceremony_sessions (id_hash) ON DELETE CASCADE,
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    nonce        text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz
);

-- Who the recipient proved to be, kept with their signature: the RUN and name verified by Clave
-- Única, and for FAO_HASH the advanced-signature certificate and the CMS signature itself.
CREATE TABLE recipient_identities (
    recipient_id    bigint PRIMARY KEY REFERENCES recipients (id) ON DELETE CASCADE,
    claveunica_run  text,
    claveunica_name text,
    claveunica_at   timestamptz,
    fea_rut         text,
    fea_subject     text,
    fea_issuer      text,
    fea_serial      text,
    fea_digest      text,
    fea_cms         bytea,
    fea_at          timestamptz
);

-- +goose Down
DROP TABLE recipient_identities;
DROP TABLE claveunica_logins;
DROP TABLE access_codes;
DROP TABLE ceremony_sessions;
