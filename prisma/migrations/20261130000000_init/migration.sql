-- Webhook Inbox: initial schema. Hand-written (see STACK.md); prisma/schema.prisma mirrors it.

-- Every acknowledged webhook, with its exact bytes. The unique key, not application code, deduplicates.
CREATE TABLE webhook_inbox (
    id                    BIGSERIAL PRIMARY KEY,
    provider              VARCHAR(30)  NOT NULL,
    event_id              VARCHAR(150) NOT NULL,
    event_id_derived      BOOLEAN      NOT NULL DEFAULT false,
    event_type            VARCHAR(80)  NOT NULL,
    resource_id           VARCHAR(150),
    customer_id           VARCHAR(150),
    customer_email        VARCHAR(320),
    payload               JSONB,
    raw_body              BYTEA        NOT NULL,
    headers               JSONB        NOT NULL DEFAULT '{}',
    query_string          VARCHAR(2000),
    occurred_at           TIMESTAMPTZ(6),
    occurred_at_precision VARCHAR(12)
        CHECK (occurred_at_precision IN ('second', 'millisecond', 'microsecond')),
    received_at           TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    status                VARCHAR(20)  NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'processed', 'ignored', 'failed')),
    ignored_reason        VARCHAR(40),
    attempts              SMALLINT     NOT NULL DEFAULT 0,
    next_attempt_at       TIMESTAMPTZ(6),
    last_error            TEXT,
    processed_at          TIMESTAMPTZ(6),
    CONSTRAINT webhook_inbox_provider_event_id_key UNIQUE (provider, event_id)
);
CREATE INDEX webhook_inbox_status_received_at_idx ON webhook_inbox (status, received_at);
CREATE INDEX webhook_inbox_provider_resource_id_idx ON webhook_inbox (provider, resource_id);

CREATE TABLE processing_attempts (
    id          BIGSERIAL PRIMARY KEY,
    inbox_id    BIGINT      NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
    attempt     SMALLINT    NOT NULL,
    started_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ(6),
    duration_ms INTEGER,
    outcome     VARCHAR(20) NOT NULL DEFAULT 'running'
        CHECK (outcome IN ('running', 'processed', 'ignored', 'retry', 'failed', 'deferred', 'abandoned')),
    error       TEXT,
    worker      VARCHAR(100)
);
CREATE INDEX processing_attempts_inbox_id_attempt_idx ON processing_attempts (inbox_id, attempt);

CREATE TABLE payments (
    id                           BIGSERIAL PRIMARY KEY,
    provider                     VARCHAR(30)  NOT NULL,
    gateway_charge_id            VARCHAR(150) NOT NULL,
    status                       VARCHAR(30)  NOT NULL
        CHECK (status IN ('pending', 'authorized', 'paid', 'failed', 'canceled',
                          'partially_refunded', 'refunded', 'disputed', 'charged_back')),
    amount                       BIGINT,
    amount_refunded              BIGINT       NOT NULL DEFAULT 0,
    currency                     VARCHAR(3),
    customer_id                  VARCHAR(150),
    customer_email               VARCHAR(320),
    registered_by                VARCHAR(10)  NOT NULL DEFAULT 'gateway' CHECK (registered_by IN ('gateway', 'host')),
    last_gateway_event_at        TIMESTAMPTZ(6),
    last_gateway_event_precision VARCHAR(12),
    created_at                   TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    updated_at                   TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT payments_provider_gateway_charge_id_key UNIQUE (provider, gateway_charge_id)
);
CREATE INDEX payments_customer_email_idx ON payments (customer_email);
CREATE INDEX payments_customer_id_idx ON payments (customer_id);

-- The effect ledger: an inbox event changes a payment at most once.
CREATE TABLE payment_transitions (
    id                   BIGSERIAL PRIMARY KEY,
    payment_id           BIGINT      NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    inbox_id             BIGINT      UNIQUE REFERENCES webhook_inbox (id) ON DELETE SET NULL,
    from_status          VARCHAR(30),
    to_status            VARCHAR(30) NOT NULL,
    from_amount_refunded BIGINT,
    to_amount_refunded   BIGINT      NOT NULL,
    source               VARCHAR(20) NOT NULL CHECK (source IN ('event', 'refetch', 'registration')),
    applied_at           TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX payment_transitions_payment_id_applied_at_idx ON payment_transitions (payment_id, applied_at);

-- Deliveries rejected before they became events; capped by the ingest path, bodies truncated.
CREATE TABLE signature_failures (
    id           BIGSERIAL PRIMARY KEY,
    provider     VARCHAR(30)  NOT NULL,
    received_at  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    reason       VARCHAR(200) NOT NULL,
    headers      JSONB        NOT NULL DEFAULT '{}',
    body_excerpt TEXT         NOT NULL,
    body_sha256  CHAR(64)     NOT NULL,
    body_bytes   INTEGER      NOT NULL
);
CREATE INDEX signature_failures_provider_received_at_idx ON signature_failures (provider, received_at);

CREATE TABLE audit_log (
    id      BIGSERIAL PRIMARY KEY,
    at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    actor   VARCHAR(320) NOT NULL,
    action  VARCHAR(40)  NOT NULL,
    ip      VARCHAR(64),
    details JSONB        NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at_idx ON audit_log (at);
CREATE INDEX audit_log_action_at_idx ON audit_log (action, at);

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    email         VARCHAR(320) NOT NULL UNIQUE,
    name          VARCHAR(200),
    role          VARCHAR(20)  NOT NULL CHECK (role IN ('viewer', 'support', 'finance', 'admin')),
    password_hash TEXT         NOT NULL,
    created_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    disabled_at   TIMESTAMPTZ(6)
);
