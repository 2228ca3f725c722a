import type { PgBoss } from "pg-boss";
import { withTransaction, type Pool, type Queryable } from "../../db/pool";
import { asActor, type Actor } from "../../audit/record-audit";
import { AppError } from "../../errors/app-error";
import { onClient } from "../../queue/boss";
import { QUEUES } from "../../queue/queues";
import { eventFilterSchema, type EventFilter } from "../queries/event-filter";
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
  by: string | Actor,
  options: { confirmThreshold: number; confirmation?: string },
): Promise<ReplayRun> {
  const preview = await previewReplay(deps.pool, filter);
  if (preview.total === 0) throw new AppError("BAD_REQUEST", "no failed or ignored events match this filter");
  if (confirmationRequired(preview.total, options.confirmThreshold) && options.confirmation?.trim() !== String(preview.total)) {
    throw new AppError("CONFLICT", `type ${preview.total} to confirm a replay of ${preview.total} events (the count may have changed)`);
  }
  const actor = asActor(by);
  return withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      "INSERT INTO replay_runs (actor, ip, filter, expected) VALUES ($1, $2, $3::jsonb, $4) RETURNING id",
      [actor.name, actor.ip ?? null, JSON.stringify(filter), preview.total],
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

type ClaimedRun = Pick<ReplayRun, "actor" | "filter" | "replayed"> & { ip: string | null; resumeAfterId: number };

/**
 * The worker's side: replays the run's filter in batches, recording progress with each batch. A run
 * left `running` by a worker that died resumes after its last committed batch. An error is recorded
 * on the run and rethrown: pg-boss retries the job, and once its retries are spent the dead letter
 * job ends the run `failed` (failAbandonedReplayRun).
 */
export async function executeReplayRun(deps: ReplayDeps, id: number): Promise<void> {
  const { rows } = await deps.pool.query<ClaimedRun>(
    `UPDATE replay_runs SET status = 'running' WHERE id = $1 AND status IN ('queued', 'running')
     RETURNING actor, ip, filter, replayed, resume_after_id AS "resumeAfterId"`,
    [id],
  );
  const run = rows[0];
  if (!run) return;
  try {
    const result = await replayEvents(deps, eventFilterSchema.parse(run.filter), {
      actor: run.actor,
      ip: run.ip,
      runId: id,
      resume: { afterId: run.resumeAfterId, replayed: run.replayed },
      onBatch: async (tx, progress) => {
        await tx.query("UPDATE replay_runs SET replayed = $2, resume_after_id = $3 WHERE id = $1", [
          id,
          progress.replayed,
          progress.lastId,
        ]);
      },
    });
    await deps.pool.query("UPDATE replay_runs SET status = 'done', replayed = $2, error = NULL, finished_at = now() WHERE id = $1", [
      id,
      result.total,
    ]);
  } catch (error) {
    await deps.pool
      .query("UPDATE replay_runs SET error = $2 WHERE id = $1", [id, error instanceof Error ? error.message : String(error)])
      .catch(() => undefined);
    throw error;
  }
}

/** A run whose job ran out of retries (its worker kept dying or failing): ends `failed`, with why. */
export async function failAbandonedReplayRun(db: Queryable, id: number): Promise<void> {
  await db.query(
    `UPDATE replay_runs
        SET status = 'failed', finished_at = now(),
            error = COALESCE(error, 'the worker stopped during this replay') || ' (' || replayed || ' of ' || expected || ' events replayed before it gave up)'
      WHERE id = $1 AND status IN ('queued', 'running')`,
    [id],
  );
}
