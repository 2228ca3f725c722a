import { z } from "zod";
import type { Queryable } from "../../db/pool";
import { eventFilterSql, type EventFilter, type SearchAlone } from "./event-filter";

export const EVENT_SORTS = ["received_desc", "received_asc", "occurred_desc", "occurred_asc"] as const;
export type EventSort = (typeof EVENT_SORTS)[number];

export type EventListRow = {
  id: number;
  provider: string;
  account: string;
  eventId: string;
  eventType: string;
  resourceId: string | null;
  customerEmail: string | null;
  status: string;
  ignoredReason: string | null;
  attempts: number;
  occurredAt: Date | null;
  receivedAt: Date;
  lastError: string | null;
};

/** A page and the keysets of its neighbours (null where there is none). */
export type EventPage = { rows: EventListRow[]; nextCursor: string | null; prevCursor: string | null };

// The keyset: the sort value as exact text (microseconds survive, a JS Date would not) and the id.
// A cursor comes back from the URL: anything else than what encodeCursor wrote is no cursor.
const cursorSchema = z.object({
  v: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
    .refine((text) => !Number.isNaN(Date.parse(text))),
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  /** A search's rank (exact matches first), when the list is a search. */
  r: z.number().int().min(-1).max(1).optional(),
});
type Cursor = z.infer<typeof cursorSchema>;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

export function decodeCursor(text: string | undefined): Cursor | null {
  if (!text) return null;
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
  } catch {
    return null;
  }
}

// Each sort has an index whose order it reads (see the console migration).
const SORT_EXPRESSION: Record<"received" | "occurred", string> = {
  received: "received_at",
  occurred: "COALESCE(occurred_at, received_at)",
};

/**
 * The explorer's filter and order: the sort's time, then id, the same way; a search's exact matches
 * first (its rank leads, negated so that it stays ascending whichever way the times run). The CSV
 * export reads with it too (orderSql), so a file comes out in the order the list shows.
 */
export function eventsInOrder(filter: EventFilter, sort: EventSort = "received_desc") {
  const [key, direction] = sort.split("_") as ["received" | "occurred", "desc" | "asc"];
  const expression = SORT_EXPRESSION[key];
  const { where, params, rank, searchAlone } = eventFilterSql(filter);
  const ranked = rank?.((value) => `$${params.push(value)}`);
  const rankKey = ranked ? (direction === "desc" ? `(-${ranked})` : ranked) : null;
  const orderSql = (way: "asc" | "desc" = direction) => `${rankKey ? `${rankKey} ${way}, ` : ""}${expression} ${way}, id ${way}`;
  return { where, params, expression, rankKey, direction, orderSql, searchAlone: key === "received" ? searchAlone : undefined };
}

type PageBounds = { direction: "asc" | "desc"; sortDirection: "asc" | "desc"; cursor: Cursor | null; limit: string };

/**
 * A search alone, by received time: the page's candidates are the newest (in the page's direction,
 * past the cursor) of the exact matches and the newest of the rest, taken from the matches' keys;
 * ranking and reading every match (thousands for a fragment standing for many customers) is left
 * to the at most twice a page's rows that can be on it. The rank a part's rows have is known (0 for
 * the exact ones), so the cursor's (rank, time, id) bound applies in each.
 */
function searchPageKeys(search: SearchAlone, bind: (value: unknown) => string, bounds: PageBounds): string {
  const { direction, sortDirection, cursor, limit } = bounds;
  const after = cursor ? [`${bind(cursor.r ?? 0)}::int`, `${bind(cursor.v)}::timestamptz`, `${bind(cursor.id)}::bigint`].join(", ") : null;
  const part = (exact: boolean) => {
    const rankKey = exact ? 0 : sortDirection === "desc" ? -1 : 1;
    const bound = after ? ` AND (${rankKey}, received_at, id) ${direction === "desc" ? "<" : ">"} (${after})` : "";
    return `(SELECT id, received_at FROM matched WHERE id ${exact ? "IN" : "NOT IN"} (SELECT id FROM exact)${bound}
              ORDER BY received_at ${direction}, id ${direction} LIMIT ${limit})`;
  };
  return `WITH matched AS MATERIALIZED (SELECT DISTINCT id, received_at FROM (${search.keys}) keys),
               exact AS MATERIALIZED (${search.exactIds(bind)})
          ${part(true)} UNION ALL ${part(false)}`;
}

/**
 * One page of the events explorer: filtered and sorted on the server, keyset-paginated on
 * (sort value, id). Rows arriving while someone pages don't shift later pages: a page starts
 * strictly after the last row of the one before (`cursor`), or ends strictly before the first row
 * of the one after (`before`, for "previous page").
 */
export async function listEvents(
  db: Queryable,
  input: { filter: EventFilter; sort?: EventSort; cursor?: string; before?: string; limit?: number },
): Promise<EventPage> {
  const backwards = !input.cursor && decodeCursor(input.before) !== null;
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const ordered = eventsInOrder(input.filter, input.sort);
  const { params, expression, rankKey, direction: sortDirection, orderSql, searchAlone } = ordered;
  const bind = (value: unknown) => `$${params.push(value)}`;
  // Paging backwards reads the same index the other way, then turns the page around.
  const direction = backwards ? (sortDirection === "desc" ? "asc" : "desc") : sortDirection;
  const cursor = decodeCursor(backwards ? input.before : input.cursor);
  const pageSize = bind(limit + 1);
  const conditions: string[] = [];
  if (searchAlone) {
    conditions.push(`(id, received_at) IN (${searchPageKeys(searchAlone, bind, { direction, sortDirection, cursor, limit: pageSize })})`);
  } else {
    conditions.push(ordered.where);
    if (cursor) {
      const comparison = direction === "desc" ? "<" : ">";
      // Without a rank the pair is the index's own order, which PostgreSQL reads as a range.
      const keys = rankKey ? [rankKey, expression, "id"] : [expression, "id"];
      const values = rankKey ? [cursor.r ?? 0, cursor.v, cursor.id] : [cursor.v, cursor.id];
      const types = rankKey ? ["int", "timestamptz", "bigint"] : ["timestamptz", "bigint"];
      const placeholders = values.map((value, index) => `${bind(value)}::${types[index]}`);
      conditions.push(`(${keys.join(", ")}) ${comparison} (${placeholders.join(", ")})`);
    }
  }
  const { rows } = await db.query<EventListRow & { sortValue: string; sortRank: number }>(
    `SELECT id, provider, gateway_account AS account, event_id AS "eventId", event_type AS "eventType", resource_id AS "resourceId",
            customer_email AS "customerEmail", status, ignored_reason AS "ignoredReason", attempts,
            occurred_at AS "occurredAt", received_at AS "receivedAt", left(last_error, 200) AS "lastError",
            to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "sortValue", ${rankKey ?? "0"} AS "sortRank"
       FROM webhook_inbox
      WHERE ${conditions.join(" AND ")}
      ORDER BY ${orderSql(direction)}
      LIMIT ${pageSize}`,
    params,
  );
  const more = rows.length > limit;
  const page = backwards ? rows.slice(0, limit).reverse() : rows.slice(0, limit);
  const first = page[0];
  const last = page.at(-1);
  const keyOf = (row: { sortValue: string; sortRank: number; id: number } | undefined) =>
    row ? encodeCursor({ v: row.sortValue, id: row.id, ...(rankKey ? { r: row.sortRank } : {}) }) : null;
  return {
    rows: page.map(({ sortValue: _sortValue, sortRank: _sortRank, ...row }) => row),
    nextCursor: backwards || more ? keyOf(last) : null,
    prevCursor: (backwards ? more : cursor !== null) ? keyOf(first) : null,
  };
}
