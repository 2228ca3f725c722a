import { withTransaction, type Pool } from "../db/pool";

// Numbers committed changes in the feed's order. A change row is inserted by its processing
// transaction but numbered here, after that transaction committed: a reader following positions can
// then never skip a change whose transaction committed after a later-inserted one was read (what a
// bigserial cursor does). One sequencer at a time (the head row's lock); whoever finds it busy leaves
// the work to the one holding it, whose numbers commit before the next sequencer starts.
const LOCK_HEAD = "SELECT last_position FROM payment_feed_head FOR UPDATE SKIP LOCKED";

// A statement of its own after the lock, so its snapshot includes everything the previous sequencer
// committed. In id order: a payment's version N+1 is inserted only after N committed (the payment
// row lock), so it has the larger id and is never numbered first.
const NUMBER_CHANGES = `
  WITH batch AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM payment_changes WHERE feed_position IS NULL ORDER BY id LIMIT $1
  ), numbered AS (
    UPDATE payment_changes c
       SET feed_position = (SELECT last_position FROM payment_feed_head) + batch.n, committed_at = now()
      FROM batch
     WHERE c.id = batch.id
    RETURNING c.feed_position
  )
  UPDATE payment_feed_head SET last_position = GREATEST(last_position, (SELECT max(feed_position) FROM numbered))
  RETURNING (SELECT count(*) FROM numbered)::int AS numbered`;

const BATCH = 5000;

/**
 * Gives every committed, unnumbered change its feed position; returns how many it numbered, or null
 * when another sequencer was running (its numbers are visible once it commits).
 */
export async function sequenceChanges(pool: Pool): Promise<number | null> {
  let total = 0;
  for (;;) {
    const numbered = await withTransaction(pool, async (tx) => {
      if ((await tx.query(LOCK_HEAD)).rowCount === 0) return null;
      const { rows } = await tx.query<{ numbered: number }>(NUMBER_CHANGES, [BATCH]);
      return rows[0]!.numbered;
    });
    if (numbered === null) return total > 0 ? total : null;
    total += numbered;
    if (numbered < BATCH) return total;
  }
}
