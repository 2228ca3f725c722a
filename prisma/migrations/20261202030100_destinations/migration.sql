-- Where payment changes are pushed (Standard Webhooks), and each change's delivery to each of them.
CREATE TABLE destinations (
    id                   BIGSERIAL PRIMARY KEY,
    name                 VARCHAR(100) NOT NULL,
    url                  TEXT         NOT NULL,
    -- Empty: every provider / every status.
    providers            TEXT[]       NOT NULL DEFAULT '{}',
    statuses             TEXT[]       NOT NULL DEFAULT '{}',
    enabled              BOOLEAN      NOT NULL DEFAULT true,
    disabled_reason      VARCHAR(200),
    -- whsec_ keys: the worker signs with them, so they are stored as they are (not hashed); after a
    -- rotation the previous one keeps signing beside the new one until previous_secret_until.
    secret               VARCHAR(100) NOT NULL,
    previous_secret      VARCHAR(100),
    previous_secret_until TIMESTAMPTZ(6),
    -- The one destination DESTINATION_URL configures (at most one row).
    from_config          BOOLEAN      NOT NULL DEFAULT false,
    -- The last feed position fanned out into deliveries.
    feed_position        BIGINT       NOT NULL DEFAULT 0,
    -- The circuit breaker, shared by every worker: consecutive failed attempts, and until when
    -- nothing is sent.
    consecutive_failures INTEGER      NOT NULL DEFAULT 0,
    breaker_open_until   TIMESTAMPTZ(6),
    created_at           TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    updated_at           TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX destinations_from_config_key ON destinations (from_config) WHERE from_config;

CREATE TABLE deliveries (
    id              BIGSERIAL PRIMARY KEY,
    destination_id  BIGINT      NOT NULL REFERENCES destinations (id) ON DELETE CASCADE,
    change_id       BIGINT      NOT NULL REFERENCES payment_changes (id) ON DELETE CASCADE,
    payment_id      BIGINT      NOT NULL,
    version         INTEGER     NOT NULL,
    status          VARCHAR(12) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER     NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    -- A worker sending it holds it until then; a killed worker's lease runs out and another sends it.
    leased_until    TIMESTAMPTZ(6),
    last_error      VARCHAR(300),
    created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    finished_at     TIMESTAMPTZ(6),
    CONSTRAINT deliveries_destination_id_change_id_key UNIQUE (destination_id, change_id)
);
-- What is due, and what must go before it (a payment's earlier versions still pending).
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX deliveries_pending_order_idx ON deliveries (destination_id, payment_id, version) WHERE status = 'pending';
CREATE INDEX deliveries_destination_idx ON deliveries (destination_id, id);
CREATE INDEX deliveries_change_idx ON deliveries (change_id);

CREATE TABLE delivery_attempts (
    id              BIGSERIAL PRIMARY KEY,
    delivery_id     BIGINT      NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    destination_id  BIGINT      NOT NULL,
    attempted_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    outcome         VARCHAR(12) NOT NULL CHECK (outcome IN ('delivered', 'failed', 'gone')),
    status_code     INTEGER,
    latency_ms      INTEGER     NOT NULL,
    -- The first 1 KiB of the answer, or why there was none (timeout, refused address...).
    response_excerpt TEXT,
    error           VARCHAR(300)
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id);
CREATE INDEX delivery_attempts_destination_at_idx ON delivery_attempts (destination_id, attempted_at);
