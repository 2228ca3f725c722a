import type { Queryable } from "../db/pool";

/**
 * Folds the per-connection slots of hours older than the last two into slot 0 and drops empty rows,
 * as the inbox's hourly counts are folded, so the rollup stays about hours x providers x statuses x
 * currencies rows however many workers wrote it. Run by the worker's sweeper.
 */
export async function compactPaymentTotals(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `WITH moved AS (
       DELETE FROM payment_hourly_totals
        WHERE hour < date_trunc('hour', now(), 'UTC') - interval '2 hours'
          AND slot <> 0
       RETURNING hour, provider, status, currency, payments, amount, refunded
     )
     INSERT INTO payment_hourly_totals AS t (hour, provider, status, currency, slot, payments, amount, refunded)
     SELECT hour, provider, status, currency, 0, sum(payments), sum(amount), sum(refunded) FROM moved GROUP BY 1, 2, 3, 4
     HAVING sum(payments) <> 0 OR sum(amount) <> 0 OR sum(refunded) <> 0
     ON CONFLICT (hour, provider, status, currency, slot) DO UPDATE
        SET payments = t.payments + excluded.payments, amount = t.amount + excluded.amount, refunded = t.refunded + excluded.refunded`,
  );
  // A fold can leave slot 0 at zero (what it held moved elsewhere): such a row counts nothing.
  await db.query(
    `DELETE FROM payment_hourly_totals
      WHERE hour < date_trunc('hour', now(), 'UTC') - interval '2 hours' AND payments = 0 AND amount = 0 AND refunded = 0`,
  );
  return rowCount ?? 0;
}
