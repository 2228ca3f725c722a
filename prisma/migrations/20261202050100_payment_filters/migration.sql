-- Payments filtered by status, provider and creation date, sorted by creation: each filter a range
-- of one index, in the order the list reads it.
CREATE INDEX payments_created_at_idx ON payments (created_at DESC, id DESC);
CREATE INDEX payments_status_created_at_idx ON payments (status, created_at DESC, id DESC);
CREATE INDEX payments_provider_created_at_idx ON payments (provider, created_at DESC, id DESC);
