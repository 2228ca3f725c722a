-- The overview's counts per received hour (UTC), provider and status, kept by triggers as events
-- are stored, settle, are replayed or purged, so the overview never scans the inbox. Each database
-- connection adds to its own slot (backend pid mod 16): concurrent ingests and settles don't queue
-- on one hot counter row until their commits; readers sum the slots.
CREATE TABLE inbox_hourly_counts (
    hour     TIMESTAMPTZ(6) NOT NULL,
    provider VARCHAR(30)    NOT NULL,
    status   VARCHAR(20)    NOT NULL,
    slot     SMALLINT       NOT NULL,
    n        BIGINT         NOT NULL,
    PRIMARY KEY (hour, provider, status, slot)
);

CREATE FUNCTION inbox_hourly_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO inbox_hourly_counts AS c (hour, provider, status, slot, n)
        VALUES (date_trunc('hour', OLD.received_at, 'UTC'), OLD.provider, OLD.status, pg_backend_pid() % 16, -1)
        ON CONFLICT (hour, provider, status, slot) DO UPDATE SET n = c.n - 1;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO inbox_hourly_counts AS c (hour, provider, status, slot, n)
        VALUES (date_trunc('hour', NEW.received_at, 'UTC'), NEW.provider, NEW.status, pg_backend_pid() % 16, 1)
        ON CONFLICT (hour, provider, status, slot) DO UPDATE SET n = c.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION inbox_hourly_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM inbox_hourly_counts;
    RETURN NULL;
END
$$;

CREATE TRIGGER inbox_hourly_counts_insert AFTER INSERT ON webhook_inbox
    FOR EACH ROW EXECUTE FUNCTION inbox_hourly_counts_track();
CREATE TRIGGER inbox_hourly_counts_update AFTER UPDATE OF status, provider, received_at ON webhook_inbox
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.provider IS DISTINCT FROM NEW.provider
          OR OLD.received_at IS DISTINCT FROM NEW.received_at)
    EXECUTE FUNCTION inbox_hourly_counts_track();
CREATE TRIGGER inbox_hourly_counts_delete AFTER DELETE ON webhook_inbox
    FOR EACH ROW EXECUTE FUNCTION inbox_hourly_counts_track();
CREATE TRIGGER inbox_hourly_counts_truncate AFTER TRUNCATE ON webhook_inbox
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_hourly_counts_clear();

-- Existing rows, counted once (the lock keeps writers out while the triggers take over).
LOCK TABLE webhook_inbox IN SHARE MODE;
INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 0, count(*)
  FROM webhook_inbox
 GROUP BY 1, 2, 3;
