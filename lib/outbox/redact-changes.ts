import type { Queryable } from "../db/pool";
import { REDACTED } from "../canonical/redacted";

/** The cause type of the change an erasure records on each of its payments; pushed as a `customer.erased` message. */
export const CUSTOMER_ERASED = "customer.erased";

/**
 * An erased customer leaves every recorded change of these payments: the feed still lists every
 * version, its customer REDACTED. Returns how many changes were changed (none the second time).
 */
export async function redactChangeCustomers(db: Queryable, paymentIds: readonly number[]): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE payment_changes
        SET customer_id = CASE WHEN customer_id IS NULL THEN NULL ELSE '${REDACTED}' END,
            customer_email = CASE WHEN customer_email IS NULL THEN NULL ELSE '${REDACTED}' END
      WHERE payment_id = ANY($1::bigint[])
        AND (customer_id IS DISTINCT FROM '${REDACTED}' AND customer_id IS NOT NULL
             OR customer_email IS DISTINCT FROM '${REDACTED}' AND customer_email IS NOT NULL)`,
    [paymentIds],
  );
  return rowCount ?? 0;
}
