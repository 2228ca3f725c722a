import { withTransaction, type Pool } from "../db/pool";

/**
 * Folds the deltas the triggers appended (slot 1) into one total per hour, provider, status and
 * currency (slot 0), as the inbox's hourly counts are folded, and drops totals an earlier fold
 * brought to nothing, so the rollup stays about hours x providers x statuses x currencies rows. Run by the
 * maintenance job.
 */
export async function compactPaymentTotals(pool: Pool): Promise<number> {
  return withTransaction(pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('payment_hourly_totals'))");
    const { rowCount } = await tx.query(
      `WITH moved AS (
         DELETE FROM payment_hourly_totals WHERE slot = 1 OR (payments = 0 AND amount = 0 AND refunded = 0)
         RETURNING hour, provider, status, currency, payments, amount, refunded
       )
       INSERT INTO payment_hourly_totals AS t (hour, provider, status, currency, slot, payments, amount, refunded)
       SELECT hour, provider, status, currency, 0, sum(payments), sum(amount), sum(refunded) FROM moved GROUP BY 1, 2, 3, 4
       HAVING sum(payments) <> 0 OR sum(amount) <> 0 OR sum(refunded) <> 0
       ON CONFLICT (hour, provider, status, currency) WHERE slot = 0 DO UPDATE
          SET payments = t.payments + excluded.payments, amount = t.amount + excluded.amount, refunded = t.refunded + excluded.refunded`,
    );
    return rowCount ?? 0;
  });
}
