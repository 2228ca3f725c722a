-- Console: customer-centred search over payments, and each event's replay history.

-- Partial e-mail ("buyer1", "shop.exam") matches anywhere in the address through trigrams; prefixes
-- of e-mails, customer ids and charge ids use a text_pattern_ops b-tree (LIKE 'term%').
-- pg_trgm is a trusted extension: a database owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX payments_customer_email_trgm_idx ON payments USING GIN (customer_email gin_trgm_ops);
CREATE INDEX payments_customer_email_prefix_idx ON payments (customer_email text_pattern_ops);
CREATE INDEX payments_customer_id_prefix_idx ON payments (customer_id text_pattern_ops);
CREATE INDEX payments_gateway_charge_id_prefix_idx ON payments (gateway_charge_id text_pattern_ops);

-- Who put an event back to pending, when, from which status, and in which bulk run (null: one event).
CREATE TABLE event_replays (
    id              BIGSERIAL PRIMARY KEY,
    inbox_id        BIGINT         NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
    run_id          BIGINT         REFERENCES replay_runs (id) ON DELETE SET NULL,
    actor           VARCHAR(320)   NOT NULL,
    previous_status VARCHAR(20)    NOT NULL,
    replayed_at     TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX event_replays_inbox_id_idx ON event_replays (inbox_id, replayed_at);
CREATE INDEX event_replays_run_id_idx ON event_replays (run_id, inbox_id);
