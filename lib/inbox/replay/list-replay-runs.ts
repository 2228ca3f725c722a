import type { Queryable } from "../../db/pool";
import type { RunOutcomes } from "./replay-history";
import type { ReplayRun } from "./replay-runs";

export type ReplayRunSummary = Omit<ReplayRun, "filter"> & { filter: Record<string, unknown>; outcomes: RunOutcomes };

/**
 * Bulk replay runs, newest first, a page at a time (`before`: the last id of the previous page),
 * each with where its replayed events stand now (each event counted once).
 */
export async function listReplayRuns(
  db: Queryable,
  options: { before?: number; limit?: number } = {},
): Promise<{ runs: ReplayRunSummary[]; nextBefore: number | null }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const { rows } = await db.query<Omit<ReplayRunSummary, "outcomes"> & { outcomes: Partial<RunOutcomes> | null }>(
    `SELECT r.id, r.actor, r.filter, r.expected, r.replayed, r.status, r.error, r.created_at AS "createdAt", r.finished_at AS "finishedAt",
            (SELECT jsonb_object_agg(status, n) FROM (
               SELECT i.status, count(*)::int AS n FROM webhook_inbox i
                WHERE i.id IN (SELECT inbox_id FROM event_replays e WHERE e.run_id = r.id)
                GROUP BY i.status) counted) AS outcomes
       FROM replay_runs r
      WHERE ($1::bigint IS NULL OR r.id < $1)
      ORDER BY r.id DESC
      LIMIT $2`,
    [options.before ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    runs: page.map((run) => ({ ...run, outcomes: { processed: 0, ignored: 0, failed: 0, pending: 0, ...run.outcomes } })),
    nextBefore: rows.length > limit ? page.at(-1)!.id : null,
  };
}
