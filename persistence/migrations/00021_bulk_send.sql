-- +goose Up
-- A bulk send: one document made from a template for each row, and sent when distribute is set.
-- member and actor are who asked (the documents are theirs, the audit entries name them).
CREATE TABLE bulk_send_jobs (
    id           text PRIMARY KEY,
    team_id      bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id      bigint NOT NULL REFERENCES users (id),
    template_id  text NOT NULL,
    distribute   boolean NOT NULL,
    member       jsonb NOT NULL,
    actor        jsonb NOT NULL,
    total        integer NOT NULL CHECK (total BETWEEN 1 AND 1000),
    status       text NOT NULL DEFAULT 'PROCESSING' CHECK (status IN ('PROCESSING', 'COMPLETED')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz
);
CREATE INDEX bulk_send_jobs_team ON bulk_send_jobs (team_id, created_at);

-- One row of a job. envelope_id is decided when the row is stored: the row's document is
-- created with that id, so a repeated attempt finds it made and never makes a second one.
CREATE TABLE bulk_send_rows (
    job_id      text NOT NULL REFERENCES bulk_send_jobs (id) ON DELETE CASCADE,
    row_index   integer NOT NULL,
    input       jsonb NOT NULL,
    envelope_id text NOT NULL UNIQUE,
    status      text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'CREATED', 'SENT', 'FAILED')),
    error       text,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, row_index)
);

-- +goose Down
DROP TABLE bulk_send_rows;
DROP TABLE bulk_send_jobs;
