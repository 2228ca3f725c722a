import type { AppConfig } from "../config/env";
import type { ProviderName } from "../providers/registry";
import type { Queryable } from "../db/pool";

/** The window a run lists and the page it starts at (null: the window's first page). */
export type ReconcileWindow = { since: Date; until: Date; pageToken: string | null };

/** Whose cursor: each account of a gateway is listed from a cursor of its own. */
export type CursorKey = { provider: ProviderName; account: string };

type CursorRow = { window_start: Date; window_end: Date; page_token: string | null; complete: boolean };

/**
 * Where the next run of a gateway account starts: the window a stopped run left half-listed, resumed at its
 * page; else a new window from where the last one ended (less an overlap, since a gateway's list may
 * show an event late; the inbox key makes a second sight harmless) up to a little before now, at
 * most maxWindowHours long and never older than what the gateway keeps.
 */
export async function nextWindow(
  db: Queryable,
  config: AppConfig,
  key: CursorKey,
  now: Date,
  retentionDays?: number,
): Promise<ReconcileWindow> {
  const { rows } = await db.query<CursorRow>(
    `SELECT window_start, window_end, page_token, complete FROM reconcile_cursors WHERE provider = $1 AND gateway_account = $2`,
    [key.provider, key.account],
  );
  const cursor = rows[0];
  if (cursor && !cursor.complete) return { since: cursor.window_start, until: cursor.window_end, pageToken: cursor.page_token };
  const { lookbackHours, overlapMinutes, lagSeconds, maxWindowHours } = config.reconcile;
  const until = new Date(now.getTime() - lagSeconds * 1000);
  let since = cursor
    ? new Date(cursor.window_end.getTime() - overlapMinutes * 60_000)
    : new Date(until.getTime() - lookbackHours * 3_600_000);
  if (retentionDays !== undefined) since = new Date(Math.max(since.getTime(), now.getTime() - retentionDays * 86_400_000 + 60_000));
  const end = new Date(Math.min(until.getTime(), since.getTime() + maxWindowHours * 3_600_000));
  return { since, until: end > since ? end : since, pageToken: null };
}

/** Records how far a run got: the next page of its window, or the window done. */
export async function saveCursor(db: Queryable, key: CursorKey, window: ReconcileWindow, complete: boolean): Promise<void> {
  await db.query(
    `INSERT INTO reconcile_cursors (provider, gateway_account, window_start, window_end, page_token, complete, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (provider, gateway_account) DO UPDATE
       SET window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end,
           page_token = EXCLUDED.page_token, complete = EXCLUDED.complete, updated_at = now()`,
    [key.provider, key.account, window.since, window.until, complete ? null : window.pageToken, complete],
  );
}
