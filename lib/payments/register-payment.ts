import type { PgBoss } from "pg-boss";
import { z } from "zod";
import type { AppConfig } from "../config/env";
import { withTransaction, type Pool } from "../db/pool";
import { dispatchEvents, type DispatchableEvent } from "../queue/boss";
import { PAYMENT_STATUSES } from "./state-machine";

/**
 * What the host application tells us about a payment it created at one of the gateways the
 * configuration knows (its keys: payments know the gateways' names, never their drivers).
 */
export function registerPaymentSchema(config: Pick<AppConfig, "providers">) {
  return z.object({
    provider: z.enum(Object.keys(config.providers)),
    chargeId: z.string().min(1).max(150),
    amount: z.number().int().nonnegative(),
    currency: z
      .string()
      .length(3)
      .transform((value) => value.toLowerCase()),
    status: z.enum(PAYMENT_STATUSES).default("pending"),
    customerId: z.string().max(150).optional(),
    customerEmail: z.email().max(320).optional(),
  });
}
export type RegisterPaymentInput = z.input<ReturnType<typeof registerPaymentSchema>>;

export type RegisteredPayment = { id: number; created: boolean; eventsWoken: number };

/**
 * Registers a payment (idempotent: a second call with the same charge changes nothing) and wakes
 * the events that arrived before it and are waiting on their retry backoff, so they run now.
 */
export async function registerPayment(
  deps: { pool: Pool; boss: PgBoss; config: AppConfig },
  input: RegisterPaymentInput,
): Promise<RegisteredPayment> {
  const payment = registerPaymentSchema(deps.config).parse(input);
  return withTransaction(deps.pool, async (tx) => {
    const inserted = await tx.query<{ id: number }>(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, customer_id, customer_email, registered_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'host')
       ON CONFLICT (provider, gateway_charge_id) DO NOTHING
       RETURNING id`,
      [
        payment.provider,
        payment.chargeId,
        payment.status,
        payment.amount,
        payment.currency,
        payment.customerId ?? null,
        payment.customerEmail?.toLowerCase() ?? null,
      ],
    );
    const created = inserted.rows[0];
    if (!created) {
      const { rows } = await tx.query<{ id: number }>("SELECT id FROM payments WHERE provider = $1 AND gateway_charge_id = $2", [
        payment.provider,
        payment.chargeId,
      ]);
      return { id: rows[0]!.id, created: false, eventsWoken: 0 };
    }
    await tx.query(
      `INSERT INTO payment_transitions (payment_id, to_status, to_amount_refunded, source) VALUES ($1, $2, 0, 'registration')`,
      [created.id, payment.status],
    );
    const { rows: waiting } = await tx.query<DispatchableEvent>(
      `UPDATE webhook_inbox SET next_attempt_at = NULL
        WHERE provider = $1 AND resource_id = $2 AND status = 'pending'
        RETURNING id, provider, resource_id AS "resourceId", event_id AS "eventId"`,
      [payment.provider, payment.chargeId],
    );
    await dispatchEvents(deps.boss, tx, waiting, { expireInSeconds: deps.config.worker.jobExpireSeconds });
    return { id: created.id, created: true, eventsWoken: waiting.length };
  });
}
