import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { dateParamSchema } from "../request/input-schemas";
import type { Actor } from "./manage-destinations";

export const recoverSchema = z.object({
  destinationId: z.number().int().positive(),
  /** Every change committed at or after this instant is sent again. */
  since: dateParamSchema,
});
export type RecoverInput = z.input<typeof recoverSchema>;

/** What a recovery does, change by change: queued anew, sent again (delivered or dead before), or left (already pending). */
export type RecoveryCounts = { queued: number; resent: number; alreadyPending: number };

// The changes committed since T that the destination takes (its filters) and has already read from
// the feed: those past its cursor reach it by fan-out anyway. A change with no delivery here gets one
// (a change from before the destination existed, or one a restore wiped); a delivered or dead one
// goes pending again with a fresh budget; a pending one is left as it is, so no change goes twice.
const CHANGES = `
  SELECT t.id AS destination_id, c.id AS change_id, c.payment_id, c.version
    FROM destinations t JOIN payment_changes c ON c.committed_at >= $2 AND c.feed_position <= t.feed_position
   WHERE t.id = $1
     AND (cardinality(t.providers) = 0 OR c.provider = ANY(t.providers))
     AND (cardinality(t.statuses) = 0 OR c.status = ANY(t.statuses))`;

/** What recovering since T would do, for the confirmation. */
export async function previewRecovery(db: Queryable, input: RecoverInput): Promise<RecoveryCounts> {
  const { destinationId, since } = recoverSchema.parse(input);
  const { rows } = await db.query<RecoveryCounts>(
    `SELECT count(*) FILTER (WHERE d.id IS NULL)::int AS queued, count(*) FILTER (WHERE d.status <> 'pending')::int AS resent,
            count(*) FILTER (WHERE d.status = 'pending')::int AS "alreadyPending"
       FROM (${CHANGES}) s LEFT JOIN deliveries d ON d.destination_id = s.destination_id AND d.change_id = s.change_id`,
    [destinationId, since],
  );
  return rows[0]!;
}

/**
 * Recover since T: every change committed since `since` that the destination takes is delivered
 * again, in each payment's version order (the claim's rule), idempotently: run twice, the second run
 * finds them pending and adds nothing. Audited with T and the counts.
 */
export async function recoverSince(pool: Pool, input: RecoverInput, by: Actor): Promise<RecoveryCounts> {
  const { destinationId, since } = recoverSchema.parse(input);
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<RecoveryCounts>(
      `WITH pending AS (
         SELECT count(*)::int AS n FROM (${CHANGES}) s
           JOIN deliveries d ON d.destination_id = s.destination_id AND d.change_id = s.change_id AND d.status = 'pending'
       ), written AS (
         INSERT INTO deliveries (destination_id, change_id, payment_id, version)
         SELECT destination_id, change_id, payment_id, version FROM (${CHANGES}) s ORDER BY change_id
         ON CONFLICT (destination_id, change_id) DO UPDATE
            SET status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL, finished_at = NULL
          WHERE deliveries.status <> 'pending'
         RETURNING xmax = 0 AS inserted
       )
       SELECT count(*) FILTER (WHERE inserted)::int AS queued, count(*) FILTER (WHERE NOT inserted)::int AS resent,
              (SELECT n FROM pending) AS "alreadyPending"
         FROM written`,
      [destinationId, since],
    );
    const counts = rows[0]!;
    await recordAudit(tx, { ...by, action: "deliveries_recovered", details: { destinationId, since: since.toISOString(), ...counts } });
    return counts;
  });
}
