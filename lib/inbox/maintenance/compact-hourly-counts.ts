import { withTransaction, type Pool } from "../../db/pool";

/**
 * Folds the deltas the triggers appended (slot 1) into one total per hour, provider and status
 * (slot 0), deleting them in the same statement, and drops totals an earlier fold brought to zero,
 * so the rollup stays about hours x providers x statuses rows. Deltas of uncommitted writes are invisible here and
 * wait for the next run; no writer ever waits on this. One fold at a time (the lock): two would
 * queue on each other's totals, in whatever order their scans met them. Run by the maintenance job.
 */
export async function compactHourlyCounts(pool: Pool): Promise<number> {
  return withTransaction(pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('inbox_hourly_counts'))");
    const { rowCount } = await tx.query(
      `WITH moved AS (
         DELETE FROM inbox_hourly_counts WHERE slot = 1 OR n = 0
         RETURNING hour, provider, status, n
       )
       INSERT INTO inbox_hourly_counts AS c (hour, provider, status, slot, n)
       SELECT hour, provider, status, 0, sum(n) FROM moved GROUP BY 1, 2, 3 HAVING sum(n) <> 0
       ON CONFLICT (hour, provider, status) WHERE slot = 0 DO UPDATE SET n = c.n + excluded.n`,
    );
    return rowCount ?? 0;
  });
}
