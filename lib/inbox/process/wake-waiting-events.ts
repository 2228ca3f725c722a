import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool, type Queryable } from "../../db/pool";
import { erasedIdentifierHash } from "./kept-customer";
import { registerPayment, registerPaymentSchema, type RegisterPaymentInput } from "../../payments/register-payment";
import { dispatchEvents, RECEIVED_AT_TEXT, type DispatchableEvent } from "../../queue/boss";

export type WakeDeps = { pool: Pool; boss: PgBoss; config: AppConfig };

/**
 * The events of one charge waiting on their retry backoff (the payment they need was not registered
 * yet) run now: due at once and dispatched again, inside the caller's transaction. Returns how many.
 */
export async function wakeWaitingEvents(tx: Queryable, deps: Omit<WakeDeps, "pool">, provider: string, chargeId: string): Promise<number> {
  const { rows: waiting } = await tx.query<DispatchableEvent>(
    `UPDATE webhook_inbox SET next_attempt_at = NULL
      WHERE provider = $1 AND resource_id = $2 AND status = 'pending'
      RETURNING id, provider, resource_id AS "resourceId", event_id AS "eventId", ${RECEIVED_AT_TEXT}`,
    [provider, chargeId],
  );
  await dispatchEvents(deps.boss, tx, waiting, { expireInSeconds: deps.config.worker.jobExpireSeconds });
  return waiting.length;
}

export type RegisteredPayment = { id: number; created: boolean; eventsWoken: number };

/**
 * The host's registration of a payment (idempotent: a second call with the same charge changes
 * nothing), and, when it created the payment, the events that arrived before it woken in the same
 * transaction, so they run now rather than at their next retry.
 */
export async function registerPaymentAndWake(deps: WakeDeps, input: RegisterPaymentInput): Promise<RegisteredPayment> {
  const payment = registerPaymentSchema(deps.config).parse(input);
  return withTransaction(deps.pool, async (tx) => {
    const registered = await registerPayment(tx, payment, erasedIdentifierHash(deps.config));
    const eventsWoken = registered.created ? await wakeWaitingEvents(tx, deps, payment.provider, payment.chargeId) : 0;
    return { ...registered, eventsWoken };
  });
}
