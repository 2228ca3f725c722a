-- The outbox: one row per change a processing transaction makes to a payment, written by the same
-- statement that updates the payment, so a change exists exactly when its payment change committed.
-- `version` counts a payment's changes (1, 2, 3...); a host-registered payment starts at 0.
ALTER TABLE payments ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE payment_changes (
    id                BIGSERIAL PRIMARY KEY,
    payment_id        BIGINT       NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    version           INTEGER      NOT NULL,
    provider          VARCHAR(30)  NOT NULL,
    gateway_charge_id VARCHAR(150) NOT NULL,
    previous_status   VARCHAR(30),
    status            VARCHAR(30)  NOT NULL,
    amount            BIGINT,
    amount_refunded   BIGINT       NOT NULL,
    currency          VARCHAR(3),
    customer_id       VARCHAR(150),
    customer_email    VARCHAR(320),
    -- The cause. No foreign key to webhook_inbox: the inbox is partitioned and purged on its own
    -- schedule, and a change outlives the event that caused it.
    inbox_id          BIGINT,
    event_id          VARCHAR(150),
    event_type        VARCHAR(80),
    occurred_at       TIMESTAMPTZ(6),
    recorded_at       TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
    -- Numbered after commit by the sequencer (lib/outbox/sequence-changes.ts): the feed's order.
    -- committed_at is when the sequencer first saw the change committed.
    feed_position     BIGINT       UNIQUE,
    committed_at      TIMESTAMPTZ(6),
    CONSTRAINT payment_changes_payment_id_version_key UNIQUE (payment_id, version)
);
-- What the sequencer numbers next: small, since rows leave it as soon as they are numbered.
CREATE INDEX payment_changes_unsequenced_idx ON payment_changes (id) WHERE feed_position IS NULL;

-- The sequencer's head: the last feed position handed out. Its row lock serializes sequencers.
CREATE TABLE payment_feed_head (
    id            BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
    last_position BIGINT  NOT NULL DEFAULT 0
);
INSERT INTO payment_feed_head DEFAULT VALUES;
