import type { Queryable } from "../db/pool";
import { LAST_PAYLOAD, type LocalPayment } from "./record-drift-event";

/** The states a payment may still leave on the gateway's side without anything more from us. */
export const NON_FINAL_STATUSES = ["pending", "authorized", "disputed"] as const;

/** A stuck payment, with its gateway_account. */
export type StuckPayment = LocalPayment & { account: string };

/** Which payments of a gateway: one account's, or those of no account in a list (the default run's). */
export type AccountScope = { of: string } | { notOf: readonly string[] };

/**
 * Payments of a gateway's accounts in `scope` in a non-final state that nothing touched for
 * `minutes` and that have no event waiting: the oldest first, at most `limit`.
 */
export async function findStuckPayments(
  db: Queryable,
  provider: string,
  scope: AccountScope,
  minutes: number,
  limit: number,
): Promise<StuckPayment[]> {
  if (limit === 0) return [];
  const { rows } = await db.query<StuckPayment>(
    `SELECT p.gateway_charge_id AS "chargeId", p.status, p.amount::float8 AS amount, p.amount_refunded::float8 AS "amountRefunded", false AS "pendingEvents",
            p.gateway_account AS account, ${LAST_PAYLOAD} AS "lastPayload"
       FROM payments p
      WHERE p.provider = $1 AND p.status = ANY($2::text[])
        AND (CASE WHEN $5::text IS NOT NULL THEN p.gateway_account = $5 ELSE p.gateway_account <> ALL($6::text[]) END)
        AND GREATEST(p.updated_at, COALESCE(p.last_gateway_event_at, p.updated_at)) < now() - make_interval(mins => $3)
        AND NOT EXISTS (SELECT 1 FROM webhook_inbox w WHERE w.provider = p.provider AND w.resource_id = p.gateway_charge_id AND w.status = 'pending')
      ORDER BY p.updated_at
      LIMIT $4`,
    [provider, NON_FINAL_STATUSES, minutes, limit, "of" in scope ? scope.of : null, "notOf" in scope ? scope.notOf : []],
  );
  return rows;
}
