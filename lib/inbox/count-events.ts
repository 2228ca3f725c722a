import type { Queryable } from "../db/pool";
import { eventFilterSql, type EventFilter } from "./event-filter";

export type EventCount = { count: number; capped: boolean };

/**
 * How many events match, counted up to `cap` (then "cap+"): a pager's total that stays bounded
 * when a broad filter matches millions of rows.
 */
export async function countEvents(db: Queryable, filter: EventFilter, cap = 10_000): Promise<EventCount> {
  const { where, params } = eventFilterSql(filter);
  params.push(cap + 1);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM webhook_inbox WHERE ${where} LIMIT $${params.length}) matched`,
    params,
  );
  const n = rows[0]!.n;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}
