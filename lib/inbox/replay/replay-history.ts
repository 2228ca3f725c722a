import type { Queryable } from "../../db/pool";

export type ReplayHistoryEntry = { actor: string; replayedAt: Date; runId: number | null; previousStatus: string };

/** Who replayed one event, when, from which status and in which bulk run, oldest first. */
export async function replayHistory(db: Queryable, inboxId: number): Promise<ReplayHistoryEntry[]> {
  const { rows } = await db.query<ReplayHistoryEntry>(
    `SELECT actor, replayed_at AS "replayedAt", run_id::int AS "runId", previous_status AS "previousStatus"
       FROM event_replays WHERE inbox_id = $1 ORDER BY replayed_at, id`,
    [inboxId],
  );
  return rows;
}

export type RunOutcomes = { processed: number; ignored: number; failed: number; pending: number };

/** Where the events a bulk run replayed stand now (each counted once, however often it was replayed). */
export async function replayRunOutcomes(db: Queryable, runId: number): Promise<RunOutcomes> {
  const { rows } = await db.query<{ status: keyof RunOutcomes; n: number }>(
    `SELECT i.status, count(*)::int AS n
       FROM webhook_inbox i
      WHERE i.id IN (SELECT inbox_id FROM event_replays WHERE run_id = $1)
      GROUP BY i.status`,
    [runId],
  );
  const outcomes: RunOutcomes = { processed: 0, ignored: 0, failed: 0, pending: 0 };
  for (const row of rows) outcomes[row.status] = row.n;
  return outcomes;
}
