import type { Queryable } from "../db/pool";
import type { LocalPayment } from "./repair-drift";

/** The states a payment may still leave on the gateway's side without anything more from us. */
export const NON_FINAL_STATUSES = ["pending", "authorized", "disputed"] as const;

/**
 * Payments of a gateway in a non-final state that nothing touched for `minutes` and that have no
 * event waiting: the oldest first, at most `limit`.
 */
export async function findStuckPayments(db: Queryable, provider: string, minutes: number, limit: number): Promise<LocalPayment[]> {
  if (limit === 0) return [];
  const { rows } = await db.query<{ charge_id: string; status: string; amount_refunded: string }>(
    `SELECT p.gateway_charge_id AS charge_id, p.status, p.amount_refunded::text
       FROM payments p
      WHERE p.provider = $1 AND p.status = ANY($2::text[])
        AND GREATEST(p.updated_at, COALESCE(p.last_gateway_event_at, p.updated_at)) < now() - make_interval(mins => $3)
        AND NOT EXISTS (SELECT 1 FROM webhook_inbox w WHERE w.provider = p.provider AND w.resource_id = p.gateway_charge_id AND w.status = 'pending')
      ORDER BY p.updated_at
      LIMIT $4`,
    [provider, NON_FINAL_STATUSES, minutes, limit],
  );
  return rows.map((row) => ({ chargeId: row.charge_id, status: row.status, amountRefunded: Number(row.amount_refunded), pendingEvents: false }));
}
