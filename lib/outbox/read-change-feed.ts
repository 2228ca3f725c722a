import { z } from "zod";
import { CHARGE_STATUSES } from "../canonical/charge-event";
import { PROVIDER_NAMES } from "../providers/registry";
import type { Pool, Queryable } from "../db/pool";
import { CHANGE_JSON, type PaymentChange } from "./payment-change";
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

const list = <T extends string>(values: readonly T[]) =>
  z
    .string()
    .transform((value) => value.split(",").filter(Boolean))
    .pipe(z.array(z.enum(values)).max(values.length));

export const MAX_FEED_LIMIT = 1000;
export const MAX_FEED_WAIT_SECONDS = 30;

export const changeFeedQuerySchema = z.object({
  after: cursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_FEED_LIMIT).default(100),
  provider: list(PROVIDER_NAMES).optional(),
  status: list(CHARGE_STATUSES).optional(),
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
       AND ($2::text[] IS NULL OR c.provider = ANY($2))
       AND ($3::text[] IS NULL OR c.status = ANY($3))
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

const POLL_MS = 200;

/**
 * A page of the change feed after the reader's cursor, in feed order (each payment's versions in
 * order), with the cursor to resume from. With `wait`, an empty page is held up to that many seconds
 * until a change arrives. Changes committed since the last sequencing are numbered first.
 */
export async function readChangeFeed(pool: Pool, query: ChangeFeedQuery, signal?: AbortSignal): Promise<ChangeFeedPage> {
  const deadline = Date.now() + query.wait * 1000;
  for (;;) {
    await sequenceChanges(pool);
    const page = await readPage(pool, query);
    if (page.changes.length > 0 || Date.now() >= deadline || signal?.aborted) {
      return { data: page.changes, cursor: encodeCursor(page.cursor) };
    }
    await new Promise((resume) => setTimeout(resume, POLL_MS));
  }
}
