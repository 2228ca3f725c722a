import type { Queryable } from "../db/pool";
import { paymentColumns, type PaymentView } from "./get-payment";

export type PaymentListRow = PaymentView & { events: number };

/**
 * Payments by customer (e-mail or id) or by charge id, most recently updated first. Without a
 * query, the most recently updated payments.
 */
export async function searchPayments(db: Queryable, query: string | undefined, limit = 100): Promise<PaymentListRow[]> {
  const term = query?.trim() ?? "";
  const { rows } = await db.query<PaymentListRow>(
    `SELECT ${paymentColumns("p")},
            (SELECT count(*)::int FROM webhook_inbox i WHERE i.provider = p.provider AND i.resource_id = p.gateway_charge_id) AS events
       FROM payments p
      WHERE $1 = '' OR p.customer_email = lower($1) OR p.customer_id = $1 OR p.gateway_charge_id = $1
      ORDER BY p.updated_at DESC, p.id DESC
      LIMIT $2`,
    [term, limit],
  );
  return rows;
}
