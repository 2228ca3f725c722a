import type { Queryable } from "../../db/pool";

/**
 * Folds the per-connection slots of hours older than the last two into slot 0 and drops zero rows,
 * so the rollup stays about hours x providers x statuses rows. Run by the worker's sweeper.
 */
export async function compactHourlyCounts(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `WITH moved AS (
       DELETE FROM inbox_hourly_counts
        WHERE hour < date_trunc('hour', now(), 'UTC') - interval '2 hours' AND (slot <> 0 OR n = 0)
       RETURNING hour, provider, status, n
     )
     INSERT INTO inbox_hourly_counts AS c (hour, provider, status, slot, n)
     SELECT hour, provider, status, 0, sum(n) FROM moved GROUP BY 1, 2, 3 HAVING sum(n) <> 0
     ON CONFLICT (hour, provider, status, slot) DO UPDATE SET n = c.n + excluded.n`,
  );
  return rowCount ?? 0;
}
