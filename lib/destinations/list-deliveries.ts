import { z } from "zod";
import type { Queryable } from "../db/pool";
import { changeIdSql } from "../outbox/payment-change";
import { dateParamSchema } from "../request/input-schemas";
import { pageOf, type Page, type Paging } from "./page-of";

export const DELIVERY_STATUSES = ["pending", "delivered", "dead"] as const;

export const deliveryFilterSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  chargeId: z.string().trim().max(150).optional(),
  /** Queued at or after / before (the delivery's creation): the time window of a bulk resend. */
  from: dateParamSchema.optional(),
  to: dateParamSchema.optional(),
});
export type DeliveryFilter = z.infer<typeof deliveryFilterSchema>;

/** A destination's deliveries the filter picks, as SQL over `deliveries d` joined to its change `c`, from parameter `$first` on. */
export function deliveryFilterSql(filter: DeliveryFilter, first: number): { where: string; params: unknown[] } {
  const params = [filter.status ?? null, filter.chargeId || null, filter.from ?? null, filter.to ?? null];
  const [status, charge, from, to] = params.map((_, index) => `$${first + index}`);
  return {
    where: `(${status}::text IS NULL OR d.status = ${status}) AND (${charge}::text IS NULL OR c.gateway_charge_id = ${charge})
            AND (${from}::timestamptz IS NULL OR d.created_at >= ${from}) AND (${to}::timestamptz IS NULL OR d.created_at < ${to})`,
    params,
  };
}

export type DeliveryRow = {
  id: number;
  destinationId: number;
  destinationName: string;
  changeId: string;
  provider: string;
  chargeId: string;
  paymentId: number;
  version: number;
  changeStatus: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  /** Being sent by a worker now (its lease runs). */
  leased: boolean;
  /** The earliest version of its payment still pending before it here (it goes first), if any. */
  waitsForVersion: number | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  lastExcerpt: string | null;
  createdAt: Date;
  finishedAt: Date | null;
};

const SELECT = `
  SELECT d.id, d.destination_id AS "destinationId", t.name AS "destinationName", ${changeIdSql("c")} AS "changeId", c.provider,
         c.gateway_charge_id AS "chargeId", c.payment_id AS "paymentId", c.version, c.status AS "changeStatus", d.status, d.attempts,
         CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS "nextAttemptAt",
         d.status = 'pending' AND COALESCE(d.leased_until >= now(), false) AS leased,
         CASE WHEN d.status = 'pending' THEN (SELECT min(e.version) FROM deliveries e
                WHERE e.destination_id = d.destination_id AND e.payment_id = d.payment_id AND e.status = 'pending' AND e.version < d.version)
         END AS "waitsForVersion",
         last.status_code AS "lastStatusCode", last.latency_ms AS "lastLatencyMs", COALESCE(last.error, d.last_error) AS "lastError",
         last.response_excerpt AS "lastExcerpt", d.created_at AS "createdAt", d.finished_at AS "finishedAt"
    FROM deliveries d
    JOIN destinations t ON t.id = d.destination_id
    JOIN payment_changes c ON c.id = d.change_id
    LEFT JOIN LATERAL (SELECT * FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) last ON true`;

/** A page of a destination's deliveries, newest first, as the filter picks them, with their total (counted up to a cap). */
export async function listDeliveries(
  db: Queryable,
  destinationId: number,
  filter: DeliveryFilter,
  paging: Paging,
): Promise<Page<DeliveryRow>> {
  const { where, params } = deliveryFilterSql(filter, 2);
  return pageOf(db, paging, {
    rows: `${SELECT} WHERE d.destination_id = $1 AND ${where} ORDER BY d.id DESC`,
    count: `SELECT 1 FROM deliveries d JOIN payment_changes c ON c.id = d.change_id WHERE d.destination_id = $1 AND ${where}`,
    params: [destinationId, ...params],
  });
}

export type PaymentChangeRow = {
  changeId: string;
  version: number;
  previousStatus: string | null;
  status: string;
  amountRefunded: number;
  eventId: string | null;
  eventType: string | null;
  committedAt: Date | null;
  deliveries: DeliveryRow[];
};

/** A payment's changes, newest first, each with its delivery to every destination. */
export async function listPaymentChanges(db: Queryable, paymentId: number): Promise<PaymentChangeRow[]> {
  const [{ rows: changes }, { rows: deliveries }] = await Promise.all([
    db.query<Omit<PaymentChangeRow, "deliveries">>(
      `SELECT ${changeIdSql("payment_changes")} AS "changeId", version, previous_status AS "previousStatus", status, amount_refunded AS "amountRefunded",
              event_id AS "eventId", event_type AS "eventType", committed_at AS "committedAt"
         FROM payment_changes WHERE payment_id = $1 ORDER BY version DESC`,
      [paymentId],
    ),
    db.query<DeliveryRow>(`${SELECT} WHERE c.payment_id = $1 ORDER BY d.destination_id`, [paymentId]),
  ]);
  return changes.map((change) => ({ ...change, deliveries: deliveries.filter((delivery) => delivery.changeId === change.changeId) }));
}
