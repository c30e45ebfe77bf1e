-- +goose Up
-- Signer accounts (issue: ACCOUNT, PASSWORD, TWO_FACTOR_AUTH and PASSKEY auth). An account
-- belongs to a person who is asked to sign, not to a team: it proves that the browser holding
-- its session is the owner of a verified email address, and holds that person's password
-- (argon2id), authenticator app (TOTP) and passkeys (WebAuthn).
CREATE TABLE signer_accounts (
    id                 bigserial PRIMARY KEY,
    email              text NOT NULL,
    email_verified_at  timestamptz,
    password_hash      text NOT NULL,
    -- The TOTP secret, sealed with the payload keyring and bound to the account's id; set
    -- while enrolling (totp_enabled_at null) and after.
    totp_secret_sealed bytea,
    totp_key_id        text,
    totp_enabled_at    timestamptz,
    -- The last 30-second step whose code was accepted: a code is taken once.
    totp_last_step     bigint NOT NULL DEFAULT 0,
    -- Two counts of failures in a row, each cleared only by a success of its own kind: wrong
    -- passwords (failed_attempts), and wrong authenticator or recovery codes and failed passkey
    -- assertions (failed_factor_attempts). Each reaching 10 locks its own kind of proof for 15
    -- minutes: passwords until password_locked_until (a password reset lifts it), second factors
    -- until factor_locked_until (only time lifts it).
    failed_attempts        int NOT NULL DEFAULT 0,
    failed_factor_attempts int NOT NULL DEFAULT 0,
    password_locked_until  timestamptz,
    factor_locked_until    timestamptz,
    language           text NOT NULL DEFAULT 'en',
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX signer_accounts_email_idx ON signer_accounts (lower(email));

-- Single-use recovery codes of an account's authenticator (kept as SHA-256).
CREATE TABLE account_recovery_codes (
    account_id bigint NOT NULL REFERENCES signer_accounts (id) ON DELETE CASCADE,
    code_hash  bytea NOT NULL,
    used_at    timestamptz,
    PRIMARY KEY (account_id, code_hash)
);

-- Passkeys: WebAuthn credentials registered on an account. credential is the library's
-- credential record (public key, sign count, flags, transports) as JSON.
CREATE TABLE account_passkeys (
    id            bigserial PRIMARY KEY,
    account_id    bigint NOT NULL REFERENCES signer_accounts (id) ON DELETE CASCADE,
    credential_id bytea NOT NULL UNIQUE,
    credential    jsonb NOT NULL,
    name          text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz
);
CREATE INDEX account_passkeys_account_idx ON account_passkeys (account_id);

-- Signed-in browsers. The cookie holds the secret; only its SHA-256 is kept. A session ends
-- after 12 hours without use, at sign-out, or when the password is reset.
CREATE TABLE account_sessions (
    id_hash      bytea PRIMARY KEY,
    id           text GENERATED ALWAYS AS (encode(sha256(id_hash), 'hex')) STORED,
    account_id   bigint NOT NULL REFERENCES signer_accounts (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    ended_at     timestamptz,
    ip_address   text,
    user_agent   text,
    method       text NOT NULL DEFAULT 'PASSWORD',
    -- When this session last proved a second factor of the account on the account page (an
    -- authenticator or recovery code, or a passkey assertion): for 5 minutes it may add or
    -- remove one.
    factor_confirmed_at timestamptz
);
CREATE UNIQUE INDEX account_sessions_id_idx ON account_sessions (id);
CREATE INDEX account_sessions_account_idx ON account_sessions (account_id, created_at);
CREATE INDEX account_sessions_seen_idx ON account_sessions (last_seen_at);

-- Mailed one-time links: email verification (24 h) and password reset (1 h), kept as SHA-256.
CREATE TABLE account_links (
    token_hash bytea PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES signer_accounts (id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('verify', 'reset')),
    -- Where the browser goes once the link is used (a signing page), kept here rather than in
    -- the mailed URL.
    next       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX account_links_account_idx ON account_links (account_id, purpose);
CREATE INDEX account_links_expires_idx ON account_links (expires_at);

-- WebAuthn ceremonies under way: the challenge and what the library must check the answer
-- against, bound to the account session that asked, used once, and for one purpose: a
-- registration, an assertion on a signing page ('assert'), or the confirmation of a second
-- factor on the account page ('factor').
CREATE TABLE webauthn_challenges (
    challenge          text PRIMARY KEY,
    account_session_id text NOT NULL,
    purpose            text NOT NULL CHECK (purpose IN ('register', 'assert', 'factor')),
    data               jsonb NOT NULL,
    expires_at         timestamptz NOT NULL,
    used_at            timestamptz
);
CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at);

-- What happened to an account: sign-ins, failures, lockouts, enrolments. The account page
-- lists the recent sign-ins.
CREATE TABLE account_events (
    id         bigserial PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES signer_accounts (id) ON DELETE CASCADE,
    type       text NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    ip_address text,
    user_agent text,
    data       jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX account_events_account_idx ON account_events (account_id, at);

-- The account proofs of a signing ceremony: the account session the browser was signed in with
-- when it last acted on the signing link, and when it re-entered the password, typed an
-- authenticator code or gave a passkey assertion for this recipient (each by that account).
ALTER TABLE ceremony_sessions
    ADD COLUMN account_id            bigint REFERENCES signer_accounts (id) ON DELETE SET NULL,
    ADD COLUMN account_session_id    text,
    ADD COLUMN password_at           timestamptz,
    ADD COLUMN totp_at               timestamptz,
    ADD COLUMN passkey_at            timestamptz,
    ADD COLUMN passkey_credential_id text;

-- The account proofs a completion was made with, kept with the recipient's identity.
ALTER TABLE recipient_identities
    ADD COLUMN account_id            bigint,
    ADD COLUMN account_email         text,
    ADD COLUMN password_at           timestamptz,
    ADD COLUMN totp_at               timestamptz,
    ADD COLUMN passkey_at            timestamptz,
    ADD COLUMN passkey_credential_id text;

-- +goose Down
ALTER TABLE recipient_identities DROP COLUMN account_id, DROP COLUMN account_email, DROP COLUMN password_at,
    DROP COLUMN totp_at, DROP COLUMN passkey_at, DROP COLUMN passkey_credential_id;
ALTER TABLE ceremony_sessions DROP COLUMN account_id, DROP COLUMN account_session_id, DROP COLUMN password_at,
    DROP COLUMN totp_at, DROP COLUMN passkey_at, DROP COLUMN passkey_credential_id;
DROP TABLE account_events;
DROP TABLE webauthn_challenges;
DROP TABLE account_links;
DROP TABLE account_sessions;
DROP TABLE account_passkeys;
DROP TABLE account_recovery_codes;
DROP TABLE signer_accounts;
