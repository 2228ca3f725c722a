import type { Pool } from "../db/pool";
import { feedAfterSql } from "../outbox/payment-change";
import { sequenceChanges } from "../outbox/sequence-changes";

// A destination's next stretch of the feed becomes its deliveries, in one statement: the destination
// row is locked (a worker finding it locked leaves it to the other), the outbox's changes after its
// cursor that pass its filters become pending deliveries, and the cursor moves past the stretch. An
// erasure's change passes when it lists a payment of the destination's gateways, whatever its statuses.
const FAN_OUT = `
  WITH destination AS (
    SELECT id, feed_position, providers, statuses FROM destinations WHERE id = $1 AND enabled FOR UPDATE SKIP LOCKED
  ), stretch AS (${feedAfterSql("(SELECT feed_position FROM destination)", "$2")}
  ), queued AS (
    INSERT INTO deliveries (destination_id, change_id, payment_id, version)
    SELECT d.id, s.id, s.payment_id, s.version
      FROM stretch s, destination d
     WHERE (cardinality(d.providers) = 0 OR s.provider = ANY(d.providers) OR s.erased_providers && d.providers)
       AND (cardinality(d.statuses) = 0 OR s.status = ANY(d.statuses) OR s.erased_providers IS NOT NULL)
     ORDER BY s.feed_position
    ON CONFLICT (destination_id, change_id) DO NOTHING
    RETURNING 1
  )
  UPDATE destinations SET feed_position = (SELECT max(feed_position) FROM stretch)
   WHERE id = (SELECT id FROM destination) AND EXISTS (SELECT 1 FROM stretch)
  RETURNING (SELECT count(*) FROM stretch)::int AS read, (SELECT count(*) FROM queued)::int AS queued`;

const STRETCH = 5000;

/** Numbers newly committed changes and queues them for every enabled destination; returns how many deliveries it queued. */
export async function fanOutChanges(pool: Pool): Promise<number> {
  await sequenceChanges(pool);
  const { rows: destinations } = await pool.query<{ id: number }>("SELECT id FROM destinations WHERE enabled ORDER BY id");
  let queued = 0;
  for (const { id } of destinations) {
    for (;;) {
      const { rows } = await pool.query<{ read: number; queued: number }>(FAN_OUT, [id, STRETCH]);
      queued += rows[0]?.queued ?? 0;
      if ((rows[0]?.read ?? 0) < STRETCH) break;
    }
  }
  return queued;
}
