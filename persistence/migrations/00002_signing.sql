-- +goose Up
-- Signatures given in SIGNATURE, FREE_SIGNATURE and INITIALS fields: a typed text or a PNG image.
CREATE TABLE signatures (
    field_id     bigint PRIMARY KEY REFERENCES fields (id) ON DELETE CASCADE,
    recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    typed        text,
    image_png    bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CHECK ((typed IS NULL) <> (image_png IS NULL))
);

-- One row per mail Sobre sends, keyed by its Message-ID: a retried activity finds the row and
-- does not send again.
CREATE TABLE mail_log (
    message_id  text PRIMARY KEY,
    envelope_id text NOT NULL,
    kind        text NOT NULL,
    recipient   text NOT NULL,
    state       text NOT NULL CHECK (state IN ('sending', 'transmitting', 'sent')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    sent_at     timestamptz
);
CREATE INDEX mail_log_envelope_idx ON mail_log (envelope_id, created_at);

-- +goose Down
DROP TABLE mail_log;
DROP TABLE signatures;
