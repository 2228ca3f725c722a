-- A destination during an incident: paused by a person (nothing is sent, deliveries keep queueing),
-- and when its circuit opened (breaker_open_until says when it next probes).
ALTER TABLE destinations
    ADD COLUMN paused_at         TIMESTAMPTZ(6),
    ADD COLUMN paused_by         VARCHAR(320),
    ADD COLUMN breaker_opened_at TIMESTAMPTZ(6);

-- What each attempt sent and got, for the console's inspector: the request's headers (the signature
-- masked before it is stored) and the answer's headers, both bounded (lib/destinations/attempt-headers.ts).
-- The body sent is not stored: it is built from the change, which the outbox redacts.
ALTER TABLE delivery_attempts
    ADD COLUMN request_headers  JSONB,
    ADD COLUMN response_headers JSONB;

-- The attempts table pages a destination's attempts newest first.
CREATE INDEX delivery_attempts_destination_id_idx ON delivery_attempts (destination_id, id);
