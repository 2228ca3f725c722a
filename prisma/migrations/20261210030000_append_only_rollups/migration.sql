-- The hourly rollups' triggers upserted a counter row per key and slot (backend pid mod 16): two
-- connections whose pids shared a slot wrote the same row, and the second waited for the first's
-- commit. A transaction held open (a long batch, a test) stalled every ingest or settle that landed
-- on its slot, hour, provider and status. Now the triggers only append delta rows (slot 1), which
-- no unique index covers, so no writer ever waits on another's counts; the maintenance job alone
-- folds deltas into one total row per key (slot 0, unique), deleting them in the same statement.
-- Readers sum every row of a key, as before: exact at any moment.

-- The written tables first, then their rollups, in the order a writer's triggers take them: the
-- migration never deadlocks with a writer, and none writes until it commits.
LOCK TABLE webhook_inbox, payments IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE inbox_hourly_counts, payment_hourly_totals IN ACCESS EXCLUSIVE MODE;

-- Existing slots folded into one total per key.
ALTER TABLE inbox_hourly_counts DROP CONSTRAINT inbox_hourly_counts_pkey;
WITH moved AS (DELETE FROM inbox_hourly_counts RETURNING hour, provider, status, n)
INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
SELECT hour, provider, status, 0, sum(n) FROM moved GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
ALTER TABLE inbox_hourly_counts ADD CONSTRAINT inbox_hourly_counts_slot_check CHECK (slot IN (0, 1));
CREATE UNIQUE INDEX inbox_hourly_counts_total_key ON inbox_hourly_counts (hour, provider, status) WHERE slot = 0;
CREATE INDEX inbox_hourly_counts_hour_provider_status_idx ON inbox_hourly_counts (hour, provider, status);
COMMENT ON COLUMN inbox_hourly_counts.slot IS '0: the total the maintenance job folded (one per key); 1: a delta a trigger appended';

ALTER TABLE payment_hourly_totals DROP CONSTRAINT payment_hourly_totals_pkey;
WITH moved AS (DELETE FROM payment_hourly_totals RETURNING hour, provider, status, currency, payments, amount, refunded)
INSERT INTO payment_hourly_totals (hour, provider, status, currency, slot, payments, amount, refunded)
SELECT hour, provider, status, currency, 0, sum(payments), sum(amount), sum(refunded) FROM moved GROUP BY 1, 2, 3, 4
HAVING sum(payments) <> 0 OR sum(amount) <> 0 OR sum(refunded) <> 0;
ALTER TABLE payment_hourly_totals ADD CONSTRAINT payment_hourly_totals_slot_check CHECK (slot IN (0, 1));
CREATE UNIQUE INDEX payment_hourly_totals_total_key ON payment_hourly_totals (hour, provider, status, currency) WHERE slot = 0;
CREATE INDEX payment_hourly_totals_hour_provider_status_currency_idx ON payment_hourly_totals (hour, provider, status, currency);
COMMENT ON COLUMN payment_hourly_totals.slot IS '0: the total the maintenance job folded (one per key); 1: a delta a trigger appended';

-- The same functions as before, appending where they upserted.
CREATE OR REPLACE FUNCTION inbox_hourly_counts_track_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
    SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 1, count(*)
      FROM inserted
     GROUP BY 1, 2, 3;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION inbox_hourly_counts_track_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
    SELECT hour, provider, status, 1, sum(n)
      FROM (SELECT date_trunc('hour', received_at, 'UTC') AS hour, provider, status, -1 AS n FROM old_rows
            UNION ALL
            SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 1 FROM new_rows) AS moved
     GROUP BY 1, 2, 3
    HAVING sum(n) <> 0;
    RETURN NULL;
END
$$;

-- Deletes stay counted per row (purges are rare, and a month's strays leave the default partition
-- by a DELETE on the partition itself, which only a row trigger sees): a delta per deleted row.
-- These row functions serve only the delete triggers now.
CREATE OR REPLACE FUNCTION inbox_hourly_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
    VALUES (date_trunc('hour', OLD.received_at, 'UTC'), OLD.provider, OLD.status, 1, -1);
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION payment_hourly_totals_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_hourly_totals (hour, provider, status, currency, slot, payments, amount, refunded)
    VALUES (date_trunc('hour', OLD.created_at, 'UTC'), OLD.provider, OLD.status, COALESCE(OLD.currency, ''), 1,
            -1, -COALESCE(OLD.amount, 0), -OLD.amount_refunded);
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION payment_hourly_totals_track_statement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    counted constant text := 'date_trunc(''hour'', created_at, ''UTC'') AS hour, provider, status, COALESCE(currency, '''') AS currency, amount, amount_refunded';
BEGIN
    EXECUTE format(
        'INSERT INTO payment_hourly_totals (hour, provider, status, currency, slot, payments, amount, refunded)
         SELECT hour, provider, status, currency, 1, sum(sign), sum(sign * COALESCE(amount, 0)), sum(sign * amount_refunded)
           FROM (%s) AS moved
          GROUP BY 1, 2, 3, 4
         HAVING sum(sign) <> 0 OR sum(sign * COALESCE(amount, 0)) <> 0 OR sum(sign * amount_refunded) <> 0',
        CASE TG_OP
            WHEN 'INSERT' THEN format('SELECT %s, 1 AS sign FROM new_rows', counted)
            ELSE format('SELECT %1$s, -1 AS sign FROM old_rows UNION ALL SELECT %1$s, 1 FROM new_rows', counted)
        END);
    RETURN NULL;
END
$$;
