import type { Queryable } from "../db/pool";

/** Which page of a list (1-based) and how long a page is. */
export type Paging = { page: number; pageSize: number };

/** One page of rows and how many the whole list holds (`totalCapped`: at least `total`). */
export type Page<Row> = { rows: Row[]; page: number; pageSize: number; total: number; totalCapped: boolean };

const COUNT_CAP = 10_000;

/**
 * A page of `rows` (its SQL ordered, without LIMIT) and the total of `count` (a SELECT of the same
 * rows), both on `params`. The total is counted up to 10,000, so a destination with millions of
 * deliveries still answers at once; deep pages past it are not offered.
 */
export async function pageOf<Row extends Record<string, unknown>>(
  db: Queryable,
  paging: Paging,
  query: { rows: string; count: string; params: unknown[] },
): Promise<Page<Row>> {
  const pageSize = Math.min(Math.max(Math.floor(paging.pageSize), 1), 200);
  const page = Math.min(Math.max(Math.floor(paging.page), 1), Math.ceil(COUNT_CAP / pageSize));
  const n = query.params.length;
  const [list, count] = await Promise.all([
    db.query<Row>(`${query.rows} LIMIT $${n + 1} OFFSET $${n + 2}`, [...query.params, pageSize, (page - 1) * pageSize]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${query.count} LIMIT $${n + 1}) counted`, [...query.params, COUNT_CAP + 1]),
  ]);
  const total = count.rows[0]!.n;
  return { rows: list.rows, page, pageSize, total: Math.min(total, COUNT_CAP), totalCapped: total > COUNT_CAP };
}
