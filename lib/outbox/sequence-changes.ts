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

// Per pool, the run under way and the one queued after it. A caller arriving during a run waits for
// the next one, which all such callers share: its snapshot is newer than their call, so none misses a
// change committed before it asked, and a thousand long polls arriving at once cost two runs, not a
// thousand transactions of four round trips each on a small pool.
type Sequencing = { current: Promise<number | null>; next: Promise<number | null> | null };
const sequencing = new WeakMap<Pool, Sequencing>();
const settled = () => undefined;

/**
 * Gives every committed, unnumbered change its feed position; returns how many it numbered, or null
 * when another sequencer was running (its numbers are visible once it commits).
 */
export function sequenceChanges(pool: Pool): Promise<number | null> {
  const state = sequencing.get(pool);
  if (!state) return startRun(pool);
  state.next ??= state.current.then(settled, settled).then(() => startRun(pool));
  return state.next;
}

function startRun(pool: Pool): Promise<number | null> {
  const run = numberChanges(pool);
  const state: Sequencing = { current: run, next: null };
  sequencing.set(pool, state);
  // Runs before any queued run's start (one step after the run settles, that start two): with none
  // queued, the pool has no run under way.
  const forget = () => {
    if (sequencing.get(pool) === state && state.next === null) sequencing.delete(pool);
  };
  run.then(forget, forget);
  return run;
}

async function numberChanges(pool: Pool): Promise<number | null> {
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
