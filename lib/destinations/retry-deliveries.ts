import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import { withTransaction, type Pool } from "../db/pool";
import { AppError } from "../errors/app-error";
import type { Actor } from "./manage-destinations";

export const retryNowSchema = z.object({
  destinationId: z.number().int().positive(),
  /** One pending delivery; without it, the destination's whole queue. */
  deliveryId: z.number().int().positive().optional(),
});

// The queue (or the one delivery) is due now, and an open circuit lets its probe go now instead
// of after the cooldown: the delivery worker sends within its poll. One delivery is put first in
// its destination's queue (before the earliest due), so that it is the one the probe sends.
const RETRY = `
  WITH destination AS (
    SELECT id FROM destinations WHERE id = $1 AND enabled AND paused_at IS NULL FOR NO KEY UPDATE
  ), earliest AS (
    SELECT min(next_attempt_at) AS at FROM deliveries WHERE destination_id = $1 AND status = 'pending'
  ), retried AS (
    UPDATE deliveries d
       SET next_attempt_at = CASE WHEN $2::bigint IS NULL THEN now() ELSE LEAST(now(), (SELECT at FROM earliest) - interval '1 millisecond') END
     WHERE d.destination_id = (SELECT id FROM destination) AND d.status = 'pending' AND ($2::bigint IS NULL OR d.id = $2)
       AND (d.leased_until IS NULL OR d.leased_until < now())
    RETURNING d.id
  ), probed AS (
    UPDATE destinations t SET breaker_open_until = now()
     WHERE t.id = (SELECT id FROM destination) AND t.breaker_open_until > now() AND EXISTS (SELECT 1 FROM retried)
       AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.destination_id = t.id AND e.status = 'pending' AND e.leased_until >= now())
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM destination)::int AS sendable, (SELECT count(*) FROM retried)::int AS retried,
         (SELECT count(*) FROM probed)::int AS probed`;

/**
 * Retry now: a pending delivery (or every one of the destination) goes without waiting for its
 * backoff, and an open circuit probes now. Audited. Returns how many were made due and whether the
 * circuit was told to probe; a paused or switched-off destination is refused (nothing would go).
 */
export async function retryNow(
  pool: Pool,
  input: z.input<typeof retryNowSchema>,
  by: Actor,
): Promise<{ retried: number; probed: boolean }> {
  const { destinationId, deliveryId } = retryNowSchema.parse(input);
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ sendable: number; retried: number; probed: number }>(RETRY, [destinationId, deliveryId ?? null]);
    const { sendable, retried, probed } = rows[0]!;
    if (!sendable)
      throw new AppError("CONFLICT", "the destination is paused or switched off: nothing would be sent (resume it or switch it on)");
    if (deliveryId && !retried) throw new AppError("CONFLICT", "that delivery is not waiting here (delivered, dead, or being sent now)");
    await recordAudit(tx, {
      ...by,
      action: "delivery_retried",
      details: { destinationId, ...(deliveryId ? { deliveryId } : {}), retried, probed: probed > 0 },
    });
    return { retried, probed: probed > 0 };
  });
}
