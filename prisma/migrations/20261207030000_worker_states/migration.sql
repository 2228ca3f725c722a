-- A worker says when it starts to stop and when it has stopped: the console tells a worker draining
-- or shut down cleanly from one that vanished (lost), and the health check stops counting it at once.
ALTER TABLE worker_heartbeats ADD COLUMN stopping_at TIMESTAMPTZ(6), ADD COLUMN stopped_at TIMESTAMPTZ(6);
