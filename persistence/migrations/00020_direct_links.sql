-- +goose Up
-- A template's direct link: one per template, its public token (published by the owner, so kept
-- as is, unlike signing tokens), whether it takes visitors, and the template recipient a visitor
-- becomes. placeholder: that recipient was made for the link, and goes with it.
CREATE TABLE template_direct_links (
    id                  text PRIMARY KEY,
    envelope_id         text NOT NULL UNIQUE REFERENCES envelopes (id) ON DELETE CASCADE,
    token               text NOT NULL UNIQUE,
    enabled             boolean NOT NULL DEFAULT true,
    direct_recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    placeholder         boolean NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE template_direct_links;
