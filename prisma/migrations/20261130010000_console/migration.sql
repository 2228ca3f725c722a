-- Operations console: indexes for the events explorer and the overview, and replay runs.

-- Explorer: newest first by default, keyset over (received_at, id); INCLUDE lets the overview's
-- per-provider status counts over a time window run as index-only scans.
CREATE INDEX webhook_inbox_received_at_id_idx ON webhook_inbox (received_at DESC, id DESC) INCLUDE (provider, status);
CREATE INDEX webhook_inbox_provider_received_at_idx ON webhook_inbox (provider, received_at DESC, id DESC);
CREATE INDEX webhook_inbox_occurred_sort_idx ON webhook_inbox ((COALESCE(occurred_at, received_at)) DESC, id DESC);
CREATE INDEX webhook_inbox_event_type_received_at_idx ON webhook_inbox (event_type, received_at DESC);
-- Lookups by what support staff have in hand.
CREATE INDEX webhook_inbox_event_id_idx ON webhook_inbox (event_id);
CREATE INDEX webhook_inbox_resource_id_idx ON webhook_inbox (resource_id) WHERE resource_id IS NOT NULL;
CREATE INDEX webhook_inbox_customer_email_idx ON webhook_inbox (customer_email) WHERE customer_email IS NOT NULL;
CREATE INDEX webhook_inbox_customer_id_idx ON webhook_inbox (customer_id) WHERE customer_id IS NOT NULL;
-- JSON path/value search: `payload @> '{"a":{"b":"v"}}'`.
CREATE INDEX webhook_inbox_payload_idx ON webhook_inbox USING GIN (payload jsonb_path_ops);

-- A bulk replay started from the console runs in the worker; the page follows its progress here.
CREATE TABLE replay_runs (
    id          BIGSERIAL PRIMARY KEY,
    actor       VARCHAR(320) NOT NULL,
    filter      JSONB        NOT NULL,
    expected    INTEGER      NOT NULL,
    replayed    INTEGER      NOT NULL DEFAULT 0,
    status      VARCHAR(20)  NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    error       TEXT,
    created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ(6)
);
CREATE INDEX replay_runs_created_at_idx ON replay_runs (created_at DESC);

CREATE INDEX payments_updated_at_idx ON payments (updated_at DESC);
CREATE INDEX signature_failures_received_at_idx ON signature_failures (received_at DESC);
CREATE INDEX payments_gateway_charge_id_idx ON payments (gateway_charge_id);
