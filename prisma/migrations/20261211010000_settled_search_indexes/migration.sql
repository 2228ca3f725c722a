-- The inbox's search indexes that only the console reads (the payload's GIN for JSON path searches,
-- the trigram GINs for any part of an event or charge id) hold settled events only. Ingest then
-- writes none of them (a GIN entry per trigram and per payload path, the costliest part of an
-- insert), nor does an attempt's start; the settle, which rewrites the row's indexes anyway (it
-- changes the indexed status), writes them once. The console's searches read pending events
-- through the (status, received_at) b-tree instead (lib/inbox/queries): a backlog's worth of rows.
DROP INDEX webhook_inbox_payload_idx;
CREATE INDEX webhook_inbox_payload_idx ON webhook_inbox USING GIN (payload jsonb_path_ops) WHERE status <> 'pending';
DROP INDEX webhook_inbox_event_id_trgm_idx;
CREATE INDEX webhook_inbox_event_id_trgm_idx ON webhook_inbox USING GIN (event_id gin_trgm_ops) WHERE status <> 'pending';
DROP INDEX webhook_inbox_resource_id_trgm_idx;
CREATE INDEX webhook_inbox_resource_id_trgm_idx ON webhook_inbox USING GIN (resource_id gin_trgm_ops)
  WHERE resource_id IS NOT NULL AND status <> 'pending';
