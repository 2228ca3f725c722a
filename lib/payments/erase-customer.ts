import type { Queryable } from "../db/pool";
import { changedPaymentSql, recordChangesSql, statusKeptSql } from "../outbox/payment-change";
import { CUSTOMER_ERASED } from "../outbox/redact-changes";
import { REDACTED } from "../canonical/redacted";

// A data subject's erasure, as the payments see it: the customer (id and e-mail, even one not known
// yet) becomes REDACTED (not null: a later event or refetch fills a null customer in, never a
// redacted one, so a refund naming the e-mail a month later can't bring it back), every financial
// fact and the status history stay. The host is told once: the first payment changed records one
// `customer.erased` change listing every payment changed (the others change in place, no new
// version: their recorded versions are redacted by the outbox, so the feed says nothing new of
// them). customer_emails follows by trigger.

const ERASE = `
  UPDATE payments p
     SET customer_id = '${REDACTED}', customer_email = '${REDACTED}', updated_at = now()
   WHERE p.id = ANY($1::bigint[])
     AND (p.customer_id IS DISTINCT FROM '${REDACTED}' OR p.customer_email IS DISTINCT FROM '${REDACTED}')
  RETURNING p.id, p.provider, p.gateway_account AS account, p.gateway_charge_id AS "chargeId"`;

const RECORD_ERASURE = `
  WITH erased AS (
    UPDATE payments p SET version = p.version + 1 WHERE p.id = $1 RETURNING p.*
  )
  ${recordChangesSql(
    {
      ...changedPaymentSql("p"),
      ...statusKeptSql("p"),
      inboxId: "NULL::bigint",
      eventId: "$2::text",
      eventType: `'${CUSTOMER_ERASED}'`,
      occurredAt: "now()",
      erasure: "$3::jsonb",
    },
    "erased p",
    "p.id",
  )}`;

/**
 * Erases the customer of these payments, on `db` (the erasure's transaction), and records the one
 * change that tells the host (cause id `erasure_<id>`). Payments already erased are left alone: the
 * count is of those changed now, and none changed records no change.
 */
export async function eraseCustomerFromPayments(db: Queryable, paymentIds: readonly number[], erasureId: number): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { rows } = await db.query<{ id: number; provider: string; account: string; chargeId: string }>(ERASE, [paymentIds]);
  if (rows.length === 0) return 0;
  rows.sort((a, b) => a.id - b.id);
  const erasure = { id: String(erasureId), payments: rows.map(({ provider, account, chargeId }) => ({ provider, account, chargeId })) };
  await db.query(RECORD_ERASURE, [rows[0]!.id, `erasure_${erasureId}`, JSON.stringify(erasure)]);
  return rows.length;
}
