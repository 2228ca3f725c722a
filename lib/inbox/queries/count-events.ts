import type { Queryable } from "../../db/pool";
import { eventFilterSql, type EventFilter } from "./event-filter";

export type EventCount = {
  total: number;
  byProvider: Record<string, number>;
  /** The count stopped at the cap: there are at least `total` matching events. */
  atLeast: boolean;
};

// Conditions the hourly rollup answers exactly (it counts by provider and status, nothing else).
const ROLLUP_KEYS = new Set<keyof EventFilter>(["provider", "statuses"]);

function rollupAnswers(filter: EventFilter): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || ROLLUP_KEYS.has(key as keyof EventFilter));
}

/**
 * How many events match, per provider, without reading the whole inbox: a filter by provider and
 * status only is summed from the hourly rollup (exact); any other filter is counted through its
 * index up to `cap` rows, and beyond that reported as "at least cap".
 */
export async function countEvents(db: Queryable, filter: EventFilter, cap: number): Promise<EventCount> {
  let rows: { provider: string; n: number }[];
  if (rollupAnswers(filter)) {
    ({ rows } = await db.query<{ provider: string; n: number }>(
      `SELECT provider, sum(n)::int AS n FROM inbox_hourly_counts
        WHERE ($1::text IS NULL OR provider = $1) AND ($2::text[] IS NULL OR status = ANY($2::text[]))
        GROUP BY provider HAVING sum(n) > 0 ORDER BY provider`,
      [filter.provider ?? null, filter.statuses?.length ? filter.statuses : null],
    ));
  } else {
    const { where, params, searchAlone } = eventFilterSql(filter);
    params.push(cap + 1);
    // A search alone is counted from the keys its lookups found (each with its provider), without
    // reading those events again.
    const matching = searchAlone
      ? `SELECT DISTINCT id, received_at, provider FROM (${searchAlone.keys}) keys`
      : `SELECT provider FROM webhook_inbox WHERE ${where}`;
    ({ rows } = await db.query<{ provider: string; n: number }>(
      `SELECT provider, count(*)::int AS n FROM (${matching} LIMIT $${params.length}) AS matching GROUP BY provider ORDER BY provider`,
      params,
    ));
  }
  const total = rows.reduce((sum, row) => sum + row.n, 0);
  const atLeast = !rollupAnswers(filter) && total > cap;
  return {
    total: atLeast ? cap : total,
    byProvider: Object.fromEntries(rows.map((row) => [row.provider, row.n])),
    atLeast,
  };
}
