import type { Queryable } from "../db/pool";
import { recordChangesSql } from "../outbox/payment-change";
import { CUSTOMER_ERASED } from "../outbox/redact-changes";
import { REDACTED } from "../canonical/redacted";

// A data subject's erasure, as the payments see it: the customer becomes REDACTED (not null: a
// later event or refetch fills a null customer back in, never a redacted one), every financial
// fact and the status history stay, and each payment records a `customer.erased` change so the
// feed and the destinations tell the host to erase its copy. customer_emails follows by trigger.

const ERASE = `
  WITH erased AS (
    UPDATE payments p
       SET customer_id = CASE WHEN p.customer_id IS NULL THEN NULL ELSE '${REDACTED}' END,
           customer_email = CASE WHEN p.customer_email IS NULL THEN NULL ELSE '${REDACTED}' END,
           version = p.version + 1, updated_at = now()
     WHERE p.id = ANY($1::bigint[])
       AND (p.customer_id IS DISTINCT FROM '${REDACTED}' AND p.customer_id IS NOT NULL
            OR p.customer_email IS DISTINCT FROM '${REDACTED}' AND p.customer_email IS NOT NULL)
    RETURNING p.*
  ), recorded AS (
    ${recordChangesSql(
      {
        paymentId: "p.id",
        version: "p.version",
        provider: "p.provider",
        chargeId: "p.gateway_charge_id",
        previousStatus: "p.status",
        status: "p.status",
        amount: "p.amount",
        amountRefunded: "p.amount_refunded",
        currency: "p.currency",
        customerId: "p.customer_id",
        customerEmail: "p.customer_email",
        inboxId: "NULL::bigint",
        eventId: "$2::text",
        eventType: `'${CUSTOMER_ERASED}'`,
        occurredAt: "now()",
        account: "p.gateway_account",
      },
      "erased p",
      "p.id",
    )}
    RETURNING payment_id
  )
  SELECT count(*)::int AS n FROM recorded`;

/**
 * Erases the customer of these payments, on `db` (the erasure's transaction); `erasureRef` is the
 * change's cause id. Payments already erased are left alone: the count is of those changed now.
 */
export async function eraseCustomerFromPayments(db: Queryable, paymentIds: readonly number[], erasureRef: string): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { rows } = await db.query<{ n: number }>(ERASE, [paymentIds, erasureRef]);
  return rows[0]!.n;
}
