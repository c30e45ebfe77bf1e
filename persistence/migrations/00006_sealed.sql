-- +goose Up
-- The sealed PDF of each item of a COMPLETED envelope (values stamped, certificate appended,
-- digitally signed) and the certificate of completion alone. Written by the workflow's seal
-- step before the envelope is marked COMPLETED; a retried seal replaces its own rows.
CREATE TABLE sealed_items (
    item_id     text PRIMARY KEY REFERENCES envelope_items (id) ON DELETE CASCADE,
    envelope_id text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    data        bytea NOT NULL,
    sha256      bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sealed_items_envelope_idx ON sealed_items (envelope_id);

CREATE TABLE sealed_certificates (
    envelope_id text PRIMARY KEY REFERENCES envelopes (id) ON DELETE CASCADE,
    data        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE sealed_certificates;
DROP TABLE sealed_items;
