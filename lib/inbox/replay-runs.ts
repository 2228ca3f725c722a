import type { PgBoss } from "pg-boss";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { AppError } from "../http/app-error";
import { onClient } from "../queue/boss";
import { QUEUES } from "../queue/queues";
import { eventFilterSchema, type EventFilter } from "./event-filter";
import { previewReplay, replayEvents, type ReplayDeps } from "./replay-events";

export type ReplayRun = {
  id: number;
  actor: string;
  filter: EventFilter;
  expected: number;
  replayed: number;
  status: "queued" | "running" | "done" | "failed";
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
};

/** Above `confirmThreshold` events, a bulk replay needs the count typed back as confirmation. */
export function confirmationRequired(expected: number, confirmThreshold: number): boolean {
  return expected > confirmThreshold;
}

/**
 * Starts a bulk replay in the background: records the run with the preview's count and enqueues it
 * for a worker, in one transaction. The console follows the run's progress. Refuses an empty
 * replay, and a large one whose typed confirmation doesn't match a fresh count.
 */
export async function startReplayRun(
  deps: { pool: Pool; boss: PgBoss },
  filter: EventFilter,
  actor: string,
  options: { confirmThreshold: number; confirmation?: string },
): Promise<ReplayRun> {
  const preview = await previewReplay(deps.pool, filter);
  if (preview.total === 0) throw new AppError("BAD_REQUEST", "no failed or ignored events match this filter");
  if (confirmationRequired(preview.total, options.confirmThreshold) && options.confirmation?.trim() !== String(preview.total)) {
    throw new AppError("CONFLICT", `type ${preview.total} to confirm a replay of ${preview.total} events (the count may have changed)`);
  }
  return withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      "INSERT INTO replay_runs (actor, filter, expected) VALUES ($1, $2::jsonb, $3) RETURNING id",
      [actor, JSON.stringify(filter), preview.total],
    );
    const id = rows[0]!.id;
    await deps.boss.insert(QUEUES.replays, [{ data: { runId: id } }], { db: onClient(tx) });
    return (await getReplayRun(tx, id))!;
  });
}

export async function getReplayRun(db: Queryable, id: number): Promise<ReplayRun | null> {
  const { rows } = await db.query<ReplayRun>(
    `SELECT id, actor, filter, expected, replayed, status, error, created_at AS "createdAt", finished_at AS "finishedAt"
       FROM replay_runs WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** The worker's side: replays the run's filter in batches, recording progress as it goes. */
export async function executeReplayRun(deps: ReplayDeps, id: number): Promise<void> {
  const { rows } = await deps.pool.query<Pick<ReplayRun, "actor" | "filter">>(
    "UPDATE replay_runs SET status = 'running' WHERE id = $1 AND status = 'queued' RETURNING actor, filter",
    [id],
  );
  const run = rows[0];
  if (!run) return;
  try {
    const result = await replayEvents(deps, eventFilterSchema.parse(run.filter), {
      actor: run.actor,
      runId: id,
      onProgress: (replayed) =>
        void deps.pool.query("UPDATE replay_runs SET replayed = GREATEST(replayed, $2) WHERE id = $1", [id, replayed]),
    });
    await deps.pool.query("UPDATE replay_runs SET status = 'done', replayed = $2, finished_at = now() WHERE id = $1", [id, result.total]);
  } catch (error) {
    await deps.pool.query("UPDATE replay_runs SET status = 'failed', error = $2, finished_at = now() WHERE id = $1", [
      id,
      error instanceof Error ? error.message : String(error),
    ]);
    throw error;
  }
}
