-- webhook_inbox becomes a table partitioned by month of received_at, and (provider, event_id)
-- moves to a dedupe ledger: a unique key on a partitioned table must include the partition column,
-- so it can no longer say "this event id was seen, whenever". See docs/scaling.md (partitions) for
-- the lifecycle and docs/decisions.md for the foreign keys this drops.
--
-- Converting an existing installation keeps every row where it is: the old table becomes one
-- partition, webhook_inbox_legacy, covering everything up to the end of the month of its newest row;
-- later months get monthly partitions. The whole migration runs in one transaction holding an
-- ACCESS EXCLUSIVE lock on the inbox (ingest and processing wait; gateways' requests queue or time
-- out and are resent). Its time grows with the rows: one index build of (id, received_at), one
-- copy of the keys into the ledger and one scan checking the legacy partition's range.

-- The ledger: every key ever acknowledged, pointing at its row. Rows are never deleted with their
-- partition, so a resend after the partition was archived is still a duplicate.
CREATE TABLE inbox_event_keys (
    provider    VARCHAR(30)    NOT NULL,
    event_id    VARCHAR(150)   NOT NULL,
    inbox_id    BIGINT         NOT NULL,
    received_at TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT inbox_event_keys_pkey PRIMARY KEY (provider, event_id)
);

LOCK TABLE webhook_inbox IN ACCESS EXCLUSIVE MODE;

INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at)
SELECT provider, event_id, id, received_at FROM webhook_inbox;

ALTER TABLE webhook_inbox RENAME TO webhook_inbox_legacy;

-- Foreign keys can only reference a unique key, and the partitioned table's is (id, received_at):
-- the referencing tables (attempts, transitions, replays) keep the id alone, held by the code path.
DO $$
DECLARE fk record;
BEGIN
  FOR fk IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
             WHERE contype = 'f' AND confrelid = 'webhook_inbox_legacy'::regclass LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tbl, fk.conname);
  END LOOP;
END $$;

ALTER TABLE webhook_inbox_legacy DROP CONSTRAINT webhook_inbox_provider_event_id_key;
ALTER TABLE webhook_inbox_legacy DROP CONSTRAINT webhook_inbox_pkey;

-- The parent: the same columns, defaults (the id sequence) and checks.
CREATE TABLE webhook_inbox (LIKE webhook_inbox_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)
    PARTITION BY RANGE (received_at);
ALTER SEQUENCE webhook_inbox_id_seq OWNED BY webhook_inbox.id;

-- Indexes and triggers move to the parent under their own names (whatever earlier migrations
-- added): the legacy table's indexes are renamed, the parent's are created with the old names,
-- and creating an index on a partitioned table adopts a partition's identical index instead of
-- building it again.
CREATE TEMPORARY TABLE inbox_moved_indexes ON COMMIT DROP AS
SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, i.indisunique AS is_unique
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid = 'webhook_inbox_legacy'::regclass;

CREATE TEMPORARY TABLE inbox_moved_triggers ON COMMIT DROP AS
SELECT tgname AS name, pg_get_triggerdef(oid) AS definition
  FROM pg_trigger WHERE tgrelid = 'webhook_inbox_legacy'::regclass AND NOT tgisinternal;

DO $$
DECLARE ix record; tg record;
BEGIN
  IF EXISTS (SELECT 1 FROM inbox_moved_indexes WHERE is_unique) THEN
    RAISE EXCEPTION 'webhook_inbox has a unique index besides its key; a partitioned table needs received_at in it';
  END IF;
  FOR ix IN SELECT name FROM inbox_moved_indexes LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', ix.name, left('legacy_' || ix.name, 63));
  END LOOP;
  FOR tg IN SELECT name FROM inbox_moved_triggers LOOP
    EXECUTE format('DROP TRIGGER %I ON webhook_inbox_legacy', tg.name);
  END LOOP;
END $$;

CREATE UNIQUE INDEX legacy_webhook_inbox_pkey ON webhook_inbox_legacy (id, received_at);

DO $$
DECLARE upper_bound timestamptz;
BEGIN
  -- An empty installation starts with monthly partitions from this month on; an existing one keeps
  -- its rows, so the legacy partition ends at the month after its newest row.
  SELECT date_trunc('month', max(received_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'
    INTO upper_bound FROM webhook_inbox_legacy;
  upper_bound := greatest(coalesce(upper_bound, '-infinity'), date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
  EXECUTE format('ALTER TABLE webhook_inbox ATTACH PARTITION webhook_inbox_legacy FOR VALUES FROM (MINVALUE) TO (%L)', upper_bound);
END $$;

ALTER TABLE webhook_inbox ADD CONSTRAINT webhook_inbox_pkey PRIMARY KEY (id, received_at);

DO $$
DECLARE ix record; tg record;
BEGIN
  FOR ix IN SELECT definition FROM inbox_moved_indexes LOOP
    EXECUTE replace(ix.definition, ' ON public.webhook_inbox_legacy ', ' ON public.webhook_inbox ');
  END LOOP;
  FOR tg IN SELECT definition FROM inbox_moved_triggers LOOP
    EXECUTE replace(tg.definition, ' ON public.webhook_inbox_legacy ', ' ON public.webhook_inbox ');
  END LOOP;
END $$;

-- Emptying the inbox empties its ledger (as it empties the hourly counts): the keys would otherwise
-- call every resend of a truncated event a duplicate of nothing.
CREATE FUNCTION inbox_event_keys_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE inbox_event_keys;
  RETURN NULL;
END $$;
CREATE TRIGGER inbox_event_keys_truncate AFTER TRUNCATE ON webhook_inbox
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_event_keys_clear();

-- Rows whose month has no partition (a clock far off, a month the worker did not create ahead)
-- land here instead of failing; an alert reports them.
CREATE TABLE webhook_inbox_default PARTITION OF webhook_inbox DEFAULT;

-- Partitions by month, what the worker keeps ahead and what retention archived: the catalog of
-- the lifecycle (attached -> archived -> restored as attached again).
CREATE TABLE inbox_partitions (
    name         VARCHAR(63)    PRIMARY KEY,
    range_from   TIMESTAMPTZ(6) NOT NULL,
    range_to     TIMESTAMPTZ(6) NOT NULL,
    state        VARCHAR(20)    NOT NULL DEFAULT 'attached' CHECK (state IN ('attached', 'detached', 'archived')),
    rows         BIGINT,
    archive_file VARCHAR(200),
    archive_sha256 CHAR(64),
    created_at   TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    archived_at  TIMESTAMPTZ(6)
);

INSERT INTO inbox_partitions (name, range_from, range_to)
SELECT 'webhook_inbox_legacy', '-infinity',
       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz
  FROM pg_class c WHERE c.oid = 'webhook_inbox_legacy'::regclass;

-- Creates the partition of the month holding `at` (UTC months), unless one covers it already.
-- Rows that waited in the default partition for that month move into it (delete then re-insert
-- through the parent, so the hourly counts' triggers net to zero). The worker calls this ahead of
-- time; the advisory lock makes concurrent calls from several workers queue instead of racing.
CREATE FUNCTION inbox_create_month_partition(at timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  lower_bound timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  upper_bound timestamptz := (date_trunc('month', at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  part text := 'webhook_inbox_p' || to_char(at AT TIME ZONE 'UTC', 'YYYYMM');
  strays webhook_inbox[];
  archived text;
BEGIN
  PERFORM pg_advisory_xact_lock(72310560);
  -- An archived month comes back with its rows (restore), never as an empty table over its record.
  SELECT name INTO archived FROM inbox_partitions
   WHERE state <> 'attached' AND range_from < upper_bound AND range_to > lower_bound LIMIT 1;
  IF archived IS NOT NULL THEN
    RAISE EXCEPTION '% holds that month and was archived: restore it (npm run cli -- partitions:restore --name %)', archived, archived;
  END IF;
  IF EXISTS (SELECT 1 FROM inbox_partitions
              WHERE state = 'attached' AND range_from < upper_bound AND range_to > lower_bound) THEN
    RETURN NULL;
  END IF;
  WITH moved AS (
    DELETE FROM webhook_inbox_default WHERE received_at >= lower_bound AND received_at < upper_bound RETURNING *
  ) SELECT array_agg(moved::webhook_inbox) INTO strays FROM moved;
  EXECUTE format('CREATE TABLE %I PARTITION OF webhook_inbox FOR VALUES FROM (%L) TO (%L)', part, lower_bound, upper_bound);
  IF strays IS NOT NULL THEN
    INSERT INTO webhook_inbox SELECT * FROM unnest(strays);
  END IF;
  INSERT INTO inbox_partitions (name, range_from, range_to) VALUES (part, lower_bound, upper_bound)
    ON CONFLICT (name) DO UPDATE SET state = 'attached', range_from = excluded.range_from, range_to = excluded.range_to;
  RETURN part;
END $$;

SELECT inbox_create_month_partition(now() + make_interval(months => m)) FROM generate_series(0, 2) AS m;
