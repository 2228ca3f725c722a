-- Finance's counts and sums per created hour (UTC), provider, status and currency, kept by triggers
-- as payments are written, so the payments list's totals read a few rows per hour instead of every
-- payment of the filter (whole hours from here, the partial hours at a filter's edges from payments).
-- Slots as in inbox_hourly_counts: each connection adds to its own (backend pid mod 16), so two
-- workers' transactions don't queue on one hot row until their commits; readers sum the slots.
-- An unknown currency is '' (a key column can't be null); amounts are numeric sums of minor units.
CREATE TABLE payment_hourly_totals (
    hour     TIMESTAMPTZ(6) NOT NULL,
    provider VARCHAR(30)    NOT NULL,
    status   VARCHAR(30)    NOT NULL,
    currency VARCHAR(3)     NOT NULL,
    slot     SMALLINT       NOT NULL,
    payments BIGINT         NOT NULL,
    amount   NUMERIC        NOT NULL,
    refunded NUMERIC        NOT NULL,
    PRIMARY KEY (hour, provider, status, currency, slot)
);
CREATE INDEX payment_hourly_totals_status_idx ON payment_hourly_totals (status, hour);

CREATE FUNCTION payment_hourly_totals_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO payment_hourly_totals AS t (hour, provider, status, currency, slot, payments, amount, refunded)
        VALUES (date_trunc('hour', OLD.created_at, 'UTC'), OLD.provider, OLD.status, COALESCE(OLD.currency, ''), pg_backend_pid() % 16,
                -1, -COALESCE(OLD.amount, 0), -OLD.amount_refunded)
        ON CONFLICT (hour, provider, status, currency, slot) DO UPDATE
           SET payments = t.payments - 1, amount = t.amount - COALESCE(OLD.amount, 0), refunded = t.refunded - OLD.amount_refunded;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO payment_hourly_totals AS t (hour, provider, status, currency, slot, payments, amount, refunded)
        VALUES (date_trunc('hour', NEW.created_at, 'UTC'), NEW.provider, NEW.status, COALESCE(NEW.currency, ''), pg_backend_pid() % 16,
                1, COALESCE(NEW.amount, 0), NEW.amount_refunded)
        ON CONFLICT (hour, provider, status, currency, slot) DO UPDATE
           SET payments = t.payments + 1, amount = t.amount + COALESCE(NEW.amount, 0), refunded = t.refunded + NEW.amount_refunded;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION payment_hourly_totals_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM payment_hourly_totals;
    RETURN NULL;
END
$$;

CREATE TRIGGER payment_hourly_totals_insert AFTER INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION payment_hourly_totals_track();
CREATE TRIGGER payment_hourly_totals_update AFTER UPDATE OF status, amount, amount_refunded, currency, provider, created_at ON payments
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.amount IS DISTINCT FROM NEW.amount
          OR OLD.amount_refunded IS DISTINCT FROM NEW.amount_refunded OR OLD.currency IS DISTINCT FROM NEW.currency
          OR OLD.provider IS DISTINCT FROM NEW.provider OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION payment_hourly_totals_track();
CREATE TRIGGER payment_hourly_totals_delete AFTER DELETE ON payments
    FOR EACH ROW EXECUTE FUNCTION payment_hourly_totals_track();
CREATE TRIGGER payment_hourly_totals_truncate AFTER TRUNCATE ON payments
    FOR EACH STATEMENT EXECUTE FUNCTION payment_hourly_totals_clear();

-- Existing rows, counted once (the lock keeps writers out while the triggers take over).
LOCK TABLE payments IN SHARE MODE;
INSERT INTO payment_hourly_totals (hour, provider, status, currency, slot, payments, amount, refunded)
SELECT date_trunc('hour', created_at, 'UTC'), provider, status, COALESCE(currency, ''), 0, count(*), COALESCE(sum(amount), 0), sum(amount_refunded)
  FROM payments
 GROUP BY 1, 2, 3, 4;

-- The payments list sorted by amount under any filter: read in amount order, stop at a page.
CREATE INDEX payments_amount_idx ON payments (amount DESC NULLS LAST, id DESC);
