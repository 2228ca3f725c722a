-- The worker settles a batch of events in one UPDATE and writes a batch's payments in one
-- statement. Counted per row, each row moved its hour's counters twice (-1 under its old status,
-- +1 under its new one): new versions of the same few counter rows, over and over in one
-- transaction. Counted per statement, from the statement's old and new rows: one upsert per hour,
-- provider and status (and currency) whose net count changed, none for an update that changed no
-- counted column (an attempt's start). In key order, as the per-statement insert trigger does.
-- A statement trigger with transition tables takes no column list, so it sees every UPDATE; the
-- deletes stay per row (purges, rare).
CREATE FUNCTION inbox_hourly_counts_track_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inbox_hourly_counts AS c (hour, provider, status, slot, n)
    SELECT hour, provider, status, pg_backend_pid() % 16, sum(n)
      FROM (SELECT date_trunc('hour', received_at, 'UTC') AS hour, provider, status, -1 AS n FROM old_rows
            UNION ALL
            SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 1 FROM new_rows) AS moved
     GROUP BY 1, 2, 3
    HAVING sum(n) <> 0
     ORDER BY 1, 2, 3
    ON CONFLICT (hour, provider, status, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END
$$;

DROP TRIGGER inbox_hourly_counts_update ON webhook_inbox;
CREATE TRIGGER inbox_hourly_counts_update AFTER UPDATE ON webhook_inbox
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_hourly_counts_track_updated();

-- One function for the payments' inserts and updates: an insert's rows count +1, an update's old
-- rows -1 and its new ones +1. The transition tables a trigger names depend on its operation, so the
-- source is chosen by TG_OP and the upsert runs as dynamic SQL (which sees them too).
CREATE FUNCTION payment_hourly_totals_track_statement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    counted constant text := 'date_trunc(''hour'', created_at, ''UTC'') AS hour, provider, status, COALESCE(currency, '''') AS currency, amount, amount_refunded';
BEGIN
    EXECUTE format(
        'INSERT INTO payment_hourly_totals AS t (hour, provider, status, currency, slot, payments, amount, refunded)
         SELECT hour, provider, status, currency, pg_backend_pid() %% 16,
                sum(sign), sum(sign * COALESCE(amount, 0)), sum(sign * amount_refunded)
           FROM (%s) AS moved
          GROUP BY 1, 2, 3, 4
         HAVING sum(sign) <> 0 OR sum(sign * COALESCE(amount, 0)) <> 0 OR sum(sign * amount_refunded) <> 0
          ORDER BY 1, 2, 3, 4
         ON CONFLICT (hour, provider, status, currency, slot) DO UPDATE
            SET payments = t.payments + EXCLUDED.payments, amount = t.amount + EXCLUDED.amount, refunded = t.refunded + EXCLUDED.refunded',
        CASE TG_OP
            WHEN 'INSERT' THEN format('SELECT %s, 1 AS sign FROM new_rows', counted)
            ELSE format('SELECT %1$s, -1 AS sign FROM old_rows UNION ALL SELECT %1$s, 1 FROM new_rows', counted)
        END);
    RETURN NULL;
END
$$;

DROP TRIGGER payment_hourly_totals_insert ON payments;
CREATE TRIGGER payment_hourly_totals_insert AFTER INSERT ON payments
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_hourly_totals_track_statement();
DROP TRIGGER payment_hourly_totals_update ON payments;
CREATE TRIGGER payment_hourly_totals_update AFTER UPDATE ON payments
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_hourly_totals_track_statement();
