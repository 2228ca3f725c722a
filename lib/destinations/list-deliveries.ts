import { z } from "zod";
import type { Queryable } from "../db/pool";
import { changeIdSql } from "../outbox/payment-change";

export const DELIVERY_STATUSES = ["pending", "delivered", "dead"] as const;

export const deliveryFilterSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  chargeId: z.string().trim().max(150).optional(),
});
export type DeliveryFilter = z.infer<typeof deliveryFilterSchema>;

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
         last.status_code AS "lastStatusCode", last.latency_ms AS "lastLatencyMs", COALESCE(last.error, d.last_error) AS "lastError",
         last.response_excerpt AS "lastExcerpt", d.created_at AS "createdAt", d.finished_at AS "finishedAt"
    FROM deliveries d
    JOIN destinations t ON t.id = d.destination_id
    JOIN payment_changes c ON c.id = d.change_id
    LEFT JOIN LATERAL (SELECT * FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) last ON true`;

/** A destination's deliveries, newest first, filtered by status and charge id. */
export async function listDeliveries(db: Queryable, destinationId: number, filter: DeliveryFilter, limit = 200): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `${SELECT}
     WHERE d.destination_id = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::text IS NULL OR c.gateway_charge_id = $3)
     ORDER BY d.id DESC LIMIT $4`,
    [destinationId, filter.status ?? null, filter.chargeId || null, limit],
  );
  return rows;
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
