import { z } from "zod";
import { CHARGE_STATUSES } from "../canonical/charge-event";
import { PROVIDER_NAMES } from "../providers/registry";
import type { Pool, Queryable } from "../db/pool";
import { CHANGE_JSON, erasedProvidersSql, type PaymentChange } from "./payment-change";
import { AppError } from "../errors/app-error";
import { commaListSchema } from "../request/input-schemas";
import { InFlight } from "../request/in-flight";
import { FeedWaiter, type WantedChanges } from "./feed-waiter";
import { sequenceChanges } from "./sequence-changes";

// The cursor is opaque to readers; inside, the last feed position they have been given (or skipped
// past through a filter).
const CURSOR_PREFIX = "p";
export const encodeCursor = (position: number) => Buffer.from(`${CURSOR_PREFIX}${position}`).toString("base64url");
const cursorSchema = z
  .string()
  .max(40)
  .transform((value, context) => {
    const match = /^p(\d{1,18})$/.exec(Buffer.from(value, "base64url").toString());
    if (!match) {
      context.addIssue({ code: "custom", message: "not a cursor this feed gave out" });
      return z.NEVER;
    }
    return Number(match[1]);
  });

export const MAX_FEED_LIMIT = 1000;
export const MAX_FEED_WAIT_SECONDS = 30;

export const changeFeedQuerySchema = z.object({
  after: cursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_FEED_LIMIT).default(100),
  provider: commaListSchema(PROVIDER_NAMES, "provider").optional(),
  status: commaListSchema(CHARGE_STATUSES, "status").optional(),
  wait: z.coerce.number().min(0).max(MAX_FEED_WAIT_SECONDS).default(0),
});

export type ChangeFeedQuery = z.infer<typeof changeFeedQuerySchema>;
export type ChangeFeedPage = { data: PaymentChange[]; cursor: string };

// One statement, so the page and the head come from one snapshot: when the page is not full, every
// numbered change up to the head that matches the filters is in it, and the cursor may move to the
// head (a filtered reader moves past changes it does not want instead of scanning them again).
const READ_PAGE = `
  WITH page AS (
    SELECT c.feed_position, ${CHANGE_JSON} AS change
      FROM payment_changes c
     WHERE c.feed_position > $1
       AND ($2::text[] IS NULL OR c.provider = ANY($2) OR ${erasedProvidersSql("c")} && $2)
       AND ($3::text[] IS NULL OR c.status = ANY($3) OR c.erasure IS NOT NULL)
     ORDER BY c.feed_position
     LIMIT $4
  )
  SELECT (SELECT last_position FROM payment_feed_head) AS head,
         COALESCE((SELECT json_agg(change ORDER BY feed_position) FROM page), '[]') AS changes,
         (SELECT max(feed_position) FROM page) AS last`;

async function readPage(db: Queryable, query: ChangeFeedQuery): Promise<{ changes: PaymentChange[]; cursor: number }> {
  const after = query.after ?? 0;
  const { rows } = await db.query<{ head: number; changes: PaymentChange[]; last: number | null }>(READ_PAGE, [
    after,
    query.provider ?? null,
    query.status ?? null,
    query.limit,
  ]);
  const { head, changes, last } = rows[0]!;
  const cursor = changes.length === query.limit ? last! : Math.max(after, head);
  return { changes, cursor };
}

/** Waiting reads one reader (an API token) may have open at once. */
export const MAX_WAITS_PER_READER = 10;

/** What the feed reads with: its pool (apart from ingest's), the process's one head watcher, the waits per reader. */
export type ChangeFeed = { pool: Pool; waiter: FeedWaiter; waits: InFlight };

export function createChangeFeed(pool: Pool): ChangeFeed {
  return { pool, waiter: new FeedWaiter(pool), waits: new InFlight(MAX_WAITS_PER_READER) };
}

/**
 * A page of the change feed after the reader's cursor, in feed order (each payment's versions in
 * order), with the cursor to resume from. With `wait`, an empty page is held up to that many seconds
 * until a change it wants arrives, by the process's head watcher; a reader (`reader`: its token) may
 * hold MAX_WAITS_PER_READER such reads at once, and gets 429 past them. Changes committed since the
 * last sequencing are numbered first.
 */
export async function readChangeFeed(
  feed: ChangeFeed,
  query: ChangeFeedQuery,
  options: { reader?: string; signal?: AbortSignal } = {},
): Promise<ChangeFeedPage> {
  const release = query.wait > 0 ? feed.waits.tryAcquire(options.reader ?? "") : () => undefined;
  if (!release) throw new AppError("RATE_LIMITED", `at most ${MAX_WAITS_PER_READER} waiting reads per token at once`);
  try {
    const deadline = Date.now() + query.wait * 1000;
    await sequenceChanges(feed.pool);
    let page = await readPage(feed.pool, query);
    const wants: WantedChanges = (provider, status) =>
      (!query.provider || query.provider.includes(provider as never)) && (!query.status || query.status.includes(status as never));
    while (page.changes.length === 0 && Date.now() < deadline && !options.signal?.aborted) {
      const waiting = feed.waiter.wait(page.cursor, wants, deadline, options.signal);
      if (!(await waiting.changed)) return { data: [], cursor: encodeCursor(waiting.cursor()) };
      page = await readPage(feed.pool, { ...query, after: page.cursor });
    }
    return { data: page.changes, cursor: encodeCursor(page.cursor) };
  } finally {
    release();
  }
}
