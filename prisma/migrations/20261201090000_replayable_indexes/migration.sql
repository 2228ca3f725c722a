-- Ignored and failed events: what a bulk replay selects, what its preview counts and dry-runs, and
-- the explorer's rarest status filters. A few percent of the inbox, so these partial indexes stay
-- small, and index-only scans of them answer the preview's counts and breakdown without reading
-- the table: at 10M rows the general indexes made those queries read hundreds of thousands of rows.
CREATE INDEX webhook_inbox_replayable_received_idx ON webhook_inbox (received_at DESC, id DESC)
    INCLUDE (provider, event_type, status, resource_id) WHERE status IN ('ignored', 'failed');
CREATE INDEX webhook_inbox_replayable_provider_idx ON webhook_inbox (provider, received_at DESC, id DESC)
    INCLUDE (event_type, status, resource_id) WHERE status IN ('ignored', 'failed');
