import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { dateParamSchema } from "../request/input-schemas";
import { deliveryFilterSql } from "./list-deliveries";
import type { Actor } from "./manage-destinations";

/** What can be sent again: a dead delivery, or a delivered one (a host that lost what it got). */
export const RESENDABLE = ["dead", "delivered"] as const;

export const resendSchema = z.object({
  destinationId: z.number().int().positive(),
  /** One delivery; without it, every delivery of the destination the filter picks. */
  deliveryId: z.number().int().positive().optional(),
  /** Which deliveries: their status (dead unless said) and when they were queued. */
  filter: z
    .object({ status: z.enum(RESENDABLE).default("dead"), from: dateParamSchema.optional(), to: dateParamSchema.optional() })
    .default({ status: "dead" }),
});
export type ResendInput = z.input<typeof resendSchema>;

function resendSql(input: z.infer<typeof resendSchema>): { where: string; params: unknown[] } {
  const { where, params } = deliveryFilterSql(input.filter, 3);
  return {
    where: `d.destination_id = $1 AND ($2::bigint IS NULL OR d.id = $2) AND d.status <> 'pending' AND ${where}`,
    params: [input.destinationId, input.deliveryId ?? null, ...params],
  };
}

/** How many deliveries a resend with this input would send again: the count shown before confirming. */
export async function countResendable(db: Queryable, input: ResendInput): Promise<number> {
  const { where, params } = resendSql(resendSchema.parse(input));
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deliveries d JOIN payment_changes c ON c.id = d.change_id WHERE ${where}`,
    params,
  );
  return rows[0]!.n;
}

/**
 * Sends deliveries again (one, or those of a destination the filter picks: dead ones unless said),
 * with a fresh retry budget; audited with the filter and the count. Returns how many were requeued.
 */
export async function resendDeliveries(pool: Pool, input: ResendInput, by: Actor): Promise<number> {
  const parsed = resendSchema.parse(input);
  const { where, params } = resendSql(parsed);
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE deliveries d
          SET status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL, finished_at = NULL
         FROM payment_changes c
        WHERE c.id = d.change_id AND ${where}`,
      params,
    );
    const resent = rowCount ?? 0;
    const { destinationId, deliveryId, filter } = parsed;
    await recordAudit(tx, {
      ...by,
      action: "delivery_resent",
      details: { destinationId, ...(deliveryId ? { deliveryId } : { filter }), resent },
    });
    return resent;
  });
}
