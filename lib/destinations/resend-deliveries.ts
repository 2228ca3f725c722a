import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import { withTransaction, type Pool } from "../db/pool";
import type { Actor } from "./manage-destinations";

export const resendSchema = z.object({
  destinationId: z.number().int().positive(),
  /** One delivery; without it, every dead delivery of the destination. */
  deliveryId: z.number().int().positive().optional(),
});

/**
 * Sends dead deliveries again (one, or all of a destination), with a fresh retry budget; audited.
 * Returns how many were requeued.
 */
export async function resendDeliveries(pool: Pool, input: z.input<typeof resendSchema>, by: Actor): Promise<number> {
  const { destinationId, deliveryId } = resendSchema.parse(input);
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE deliveries
          SET status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL, finished_at = NULL
        WHERE destination_id = $1 AND status = 'dead' AND ($2::bigint IS NULL OR id = $2)`,
      [destinationId, deliveryId ?? null],
    );
    const resent = rowCount ?? 0;
    await recordAudit(tx, { ...by, action: "delivery_resent", details: { destinationId, ...(deliveryId ? { deliveryId } : {}), resent } });
    return resent;
  });
}
