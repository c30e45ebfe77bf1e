-- +goose Up
CREATE TABLE teams (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    url        text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email      text NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    disabled   boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE team_members (
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('MEMBER', 'MANAGER', 'ADMIN')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, user_id)
);

-- API keys are stored as the SHA-256 of the key; the key itself is shown once, at creation.
CREATE TABLE api_keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id      bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    key_hash     bytea NOT NULL UNIQUE,
    key_prefix   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz
);

-- Legacy numeric ids of documents and templates (secondaryId document_<n> / template_<n>).
CREATE SEQUENCE document_number_seq;
CREATE SEQUENCE template_number_seq;

-- Uploaded files, addressed by the SHA-256 of their content.
CREATE TABLE document_data (
    id         text PRIMARY KEY,
    sha256     bytea NOT NULL UNIQUE,
    data       bytea NOT NULL,
    size_bytes bigint NOT NULL,
    page_count integer NOT NULL,
    page_sizes jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE envelopes (
    id                 text PRIMARY KEY,
    secondary_id       text NOT NULL UNIQUE,
    legacy_id          bigint NOT NULL,
    internal_version   integer NOT NULL DEFAULT 2,
    type               text NOT NULL CHECK (type IN ('DOCUMENT', 'TEMPLATE')),
    status             text NOT NULL CHECK (status IN ('DRAFT', 'PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED')),
    source             text NOT NULL CHECK (source IN ('DOCUMENT', 'TEMPLATE', 'TEMPLATE_DIRECT_LINK')),
    visibility         text NOT NULL CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    template_type      text NOT NULL DEFAULT 'PRIVATE' CHECK (template_type IN ('PUBLIC', 'PRIVATE', 'ORGANISATION')),
    external_id        text,
    title              text NOT NULL,
    global_access_auth text[] NOT NULL DEFAULT '{}',
    global_action_auth text[] NOT NULL DEFAULT '{}',
    form_values        jsonb,
    public_title       text NOT NULL DEFAULT '',
    public_description text NOT NULL DEFAULT '',
    user_id            bigint NOT NULL REFERENCES users (id),
    team_id            bigint NOT NULL REFERENCES teams (id),
    folder_id          text,
    template_id        bigint,
    document_meta      jsonb NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    completed_at       timestamptz,
    deleted_at         timestamptz,
    UNIQUE (type, legacy_id)
);
CREATE INDEX envelopes_team_created_idx ON envelopes (team_id, created_at DESC, id);
CREATE INDEX envelopes_team_external_idx ON envelopes (team_id, external_id);
CREATE INDEX envelopes_template_idx ON envelopes (template_id) WHERE template_id IS NOT NULL;

CREATE TABLE envelope_items (
    id               text PRIMARY KEY,
    envelope_id      text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    document_data_id text NOT NULL REFERENCES document_data (id),
    -- the file as uploaded; document_data_id moves on when placeholders are whited out
    initial_data_id  text NOT NULL REFERENCES document_data (id),
    title            text NOT NULL,
    item_order       integer NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (envelope_id, item_order)
);

CREATE TABLE recipients (
    id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    envelope_id            text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    email                  text NOT NULL,
    name                   text NOT NULL,
    role                   text NOT NULL CHECK (role IN ('CC', 'SIGNER', 'VIEWER', 'APPROVER', 'ASSISTANT')),
    token                  text NOT NULL UNIQUE,
    read_status            text NOT NULL DEFAULT 'NOT_OPENED' CHECK (read_status IN ('NOT_OPENED', 'OPENED')),
    signing_status         text NOT NULL DEFAULT 'NOT_SIGNED' CHECK (signing_status IN ('NOT_SIGNED', 'SIGNED', 'REJECTED')),
    send_status            text NOT NULL DEFAULT 'NOT_SENT' CHECK (send_status IN ('NOT_SENT', 'SENT')),
    signing_order          integer,
    sent_at                timestamptz,
    signed_at              timestamptz,
    expires_at             timestamptz,
    expiration_notified_at timestamptz,
    document_deleted_at    timestamptz,
    rejection_reason       text,
    access_auth            text[] NOT NULL DEFAULT '{}',
    action_auth            text[] NOT NULL DEFAULT '{}',
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recipients_envelope_idx ON recipients (envelope_id, id);
CREATE INDEX recipients_email_idx ON recipients (lower(email) text_pattern_ops);

CREATE TABLE fields (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    secondary_id     text NOT NULL UNIQUE,
    envelope_id      text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    envelope_item_id text NOT NULL REFERENCES envelope_items (id) ON DELETE CASCADE,
    recipient_id     bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    type             text NOT NULL,
    page             integer NOT NULL CHECK (page >= 1),
    position_x       double precision NOT NULL,
    position_y       double precision NOT NULL,
    width            double precision NOT NULL,
    height           double precision NOT NULL,
    custom_text      text NOT NULL DEFAULT '',
    inserted         boolean NOT NULL DEFAULT false,
    field_meta       jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fields_envelope_idx ON fields (envelope_id, id);
CREATE INDEX fields_recipient_idx ON fields (recipient_id);

CREATE TABLE attachments (
    id          text PRIMARY KEY,
    envelope_id text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    type        text NOT NULL DEFAULT 'link' CHECK (type IN ('link')),
    label       text NOT NULL,
    data        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_envelope_idx ON attachments (envelope_id, created_at);

-- The audit log is append-only. seq gives a total order for pagination and, later, chaining.
CREATE TABLE audit_logs (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    envelope_id text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    type        text NOT NULL,
    data        jsonb NOT NULL,
    name        text,
    email       text,
    user_id     bigint,
    user_agent  text,
    ip_address  text
);
CREATE INDEX audit_logs_envelope_idx ON audit_logs (envelope_id, created_at, seq);

-- +goose Down
DROP TABLE audit_logs;
DROP TABLE attachments;
DROP TABLE fields;
DROP TABLE recipients;
DROP TABLE envelope_items;
DROP TABLE envelopes;
DROP TABLE document_data;
DROP SEQUENCE template_number_seq;
DROP SEQUENCE document_number_seq;
DROP TABLE api_keys;
DROP TABLE team_members;
DROP TABLE users;
DROP TABLE teams;
