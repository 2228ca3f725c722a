-- Ids matched by any part of them: support has the end or the middle of an id ("c1jcw9", an event
-- id without its "evt_"), which the text_pattern_ops b-trees (prefixes) can't find. Trigram GIN
-- indexes serve ILIKE '%part%' on event ids, charge ids (the inbox's and the payments') and the
-- payments' customer ids. A search reads a bounded number of matching rows through them, then finds
-- events and payments by the few values those rows hold, through the b-trees, as prefixes do.
-- The inbox's own customer ids get none: nearly every customer id there is a payment's too, and a
-- fourth index on the inbox would cost every ingest a write for the rare one that is not.
CREATE INDEX webhook_inbox_event_id_trgm_idx ON webhook_inbox USING GIN (event_id gin_trgm_ops);
CREATE INDEX webhook_inbox_resource_id_trgm_idx ON webhook_inbox USING GIN (resource_id gin_trgm_ops) WHERE resource_id IS NOT NULL;
CREATE INDEX payments_gateway_charge_id_trgm_idx ON payments USING GIN (gateway_charge_id gin_trgm_ops);
CREATE INDEX payments_customer_id_trgm_idx ON payments USING GIN (customer_id gin_trgm_ops) WHERE customer_id IS NOT NULL;
