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

-- The documents made through a direct link: their template and the recipient its visitor became
-- (the workflow mails the owner about them, ownerDocumentCreated).
CREATE TABLE direct_link_documents (
    envelope_id          text PRIMARY KEY REFERENCES envelopes (id) ON DELETE CASCADE,
    template_envelope_id text NOT NULL,
    visitor_recipient_id bigint NOT NULL REFERENCES recipients (id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE direct_link_documents;
DROP TABLE template_direct_links;
