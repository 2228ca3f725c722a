-- Payments filtered by when they were paid, refunded or disputed ("refunded in the last day"): the
-- transitions into those statuses in a time window, read from one index without the table.
CREATE INDEX payment_transitions_to_status_applied_at_idx ON payment_transitions (to_status, applied_at) INCLUDE (payment_id);
