-- +goose Up
-- A team's webhooks. The signing secret is kept sealed with the payload keys (secret_key names
-- the key); after a rotation the previous secret signs too until previous_secret_until.
CREATE TABLE webhooks (
    id                    text PRIMARY KEY,
    team_id               bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id               bigint NOT NULL REFERENCES users (id),
    webhook_url           text NOT NULL,
    event_triggers        text[] NOT NULL,
    enabled               boolean NOT NULL DEFAULT true,
    documenso_compatible  boolean NOT NULL DEFAULT false,
    secret_key            text NOT NULL,
    secret                bytea NOT NULL,
    previous_secret_key   text,
    previous_secret       bytea,
    previous_secret_until timestamptz,
    secret_rotated_at     timestamptz,
    disabled_reason       text,
    disabled_mailed_at    timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_team ON webhooks (team_id, created_at);

-- The outbox: one row per event, written in the transaction of the change that caused it. Its
-- id is the webhook-id every attempt carries; payload is the envelope as it was then. It names
-- its envelope without a foreign key: a deleted envelope's last event is still delivered.
CREATE TABLE webhook_events (
    id          text PRIMARY KEY,
    team_id     bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    envelope_id text NOT NULL,
    event       text NOT NULL,
    payload     json NOT NULL,
    created_at  timestamptz NOT NULL
);

-- One delivery of one event to one webhook. seq orders an envelope's calls to an endpoint.
CREATE TABLE webhook_calls (
    id            text PRIMARY KEY,
    seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    webhook_id    text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id      text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    envelope_id   text NOT NULL,
    status        text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
    attempts      integer NOT NULL DEFAULT 0,
    response_code integer,
    response_body text,
    error         text,
    dispatched_at timestamptz,
    -- a route whose workflow could not be woken waits until then, so that others go first
    dispatch_after timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_calls_route ON webhook_calls (webhook_id, envelope_id, seq) WHERE status = 'PENDING';
CREATE INDEX webhook_calls_undispatched ON webhook_calls (seq) WHERE status = 'PENDING' AND dispatched_at IS NULL;
CREATE INDEX webhook_calls_stale ON webhook_calls (updated_at) WHERE status = 'PENDING' AND dispatched_at IS NOT NULL;
CREATE INDEX webhook_calls_list ON webhook_calls (webhook_id, created_at DESC, seq DESC);
CREATE INDEX webhook_calls_created ON webhook_calls (created_at);

-- Every attempt of a call. An attempt is claimed by one worker (owner) until lease_until: no
-- other worker makes it meanwhile; one left unfinished past its lease (a killed worker) is taken
-- over and made again.
CREATE TABLE webhook_attempts (
    call_id       text NOT NULL REFERENCES webhook_calls (id) ON DELETE CASCADE,
    attempt       integer NOT NULL CHECK (attempt >= 1),
    owner         text NOT NULL,
    lease_until   timestamptz NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    outcome       text CHECK (outcome IN ('success', 'gone', 'failed')),
    response_code integer,
    response_body text,
    error         text,
    duration_ms   integer,
    PRIMARY KEY (call_id, attempt)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_calls;
DROP TABLE webhook_events;
DROP TABLE webhooks;
