import type { Queryable } from "../../db/pool";

/** How many months past the current one keep a partition ready (the worker checks every sweep). */
export const MONTHS_AHEAD = 2;

/**
 * Creates the inbox partitions of this month and the next `monthsAhead` months (UTC) that are
 * missing; returns the names created. Idempotent and safe from several workers at once: the
 * database function serializes them and skips months already covered.
 */
export async function ensureInboxPartitions(db: Queryable, options: { now?: Date; monthsAhead?: number } = {}): Promise<string[]> {
  const { rows } = await db.query<{ created: string | null }>(
    `SELECT inbox_create_month_partition($1::timestamptz + make_interval(months => m)) AS created
       FROM generate_series(0, $2::int) AS m`,
    [options.now ?? new Date(), options.monthsAhead ?? MONTHS_AHEAD],
  );
  return rows.flatMap((row) => (row.created ? [row.created] : []));
}
