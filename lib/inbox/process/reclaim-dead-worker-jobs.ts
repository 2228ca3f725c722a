import type { PgBoss } from "pg-boss";
import type { Pool, PoolClient } from "../../db/pool";
import { QUEUES } from "../../queue/queues";

// A worker killed with SIGKILL (or OOM-killed, or on a host that vanished) leaves its jobs `active`
// in pg-boss. Their heartbeat (lib/queue/boss.ts) frees them within ~15 s; this frees them sooner,
// and even when workers keep dying before a heartbeat goes stale. Each worker holds a session-level
// advisory lock named after it for as long as it lives: PostgreSQL drops it the moment the process's
// connection closes. Any worker then finds the attempts still `running` under a worker whose lock is
// gone, closes them as abandoned, and fails their jobs back to pg-boss's short retry.

/** classid of the liveness locks (objid is hashtext(worker id)); any constant of our own. */
const LIVENESS_LOCK_CLASS = 72_310_557;

export type WorkerLiveness = { held: () => boolean; stop: () => void };

/**
 * Takes this worker's liveness lock on a connection of its own and keeps it: a lost connection
 * (database restart) is replaced and the lock taken again, retrying with a growing delay.
 */
export async function holdWorkerLiveness(pool: Pool, workerId: string, log: (line: string) => void): Promise<WorkerLiveness> {
  let client: PoolClient | undefined;
  let stopped = false;
  let retryMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const take = async (): Promise<void> => {
    const next = await pool.connect();
    next.on("error", (error) => {
      if (client !== next) return;
      client = undefined;
      next.release(error);
      log(`[worker] liveness lock lost (${error.message}); taking it again`);
      schedule();
    });
    await next.query("SELECT pg_advisory_lock($1, hashtext($2))", [LIVENESS_LOCK_CLASS, workerId]);
    client = next;
    retryMs = 500;
  };
  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      take().catch((error: unknown) => {
        log(`[worker] liveness lock: ${error instanceof Error ? error.message : error}; retrying in ${retryMs} ms`);
        retryMs = Math.min(retryMs * 2, 10_000);
        schedule();
      });
    }, retryMs);
  };
  await take();
  return {
    held: () => client !== undefined,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      // Releasing the connection ends the session's lock with it.
      client?.release(true);
      client = undefined;
    },
  };
}

// Attempts of other workers whose liveness lock is gone: closed here, once, so a later pass never
// touches the job again (by then it may belong to a live worker), and counted on their events (the
// worker may have died of the event: a poison event spends its tries). The events' rows are locked
// first, in the order an attempt's start takes them, so the two never wait on each other in turn.
const ABANDON_DEAD_ATTEMPTS = `
  WITH dead AS (
    SELECT a.id, a.inbox_id FROM processing_attempts a
     WHERE a.outcome = 'running' AND a.worker IS NOT NULL AND a.worker <> $1
       AND NOT EXISTS (
         SELECT 1 FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.classid = $2 AND l.objid = hashtext(a.worker)::oid AND l.objsubid = 2
       )
  ), events AS (
    SELECT id FROM webhook_inbox WHERE id IN (SELECT inbox_id FROM dead) AND status = 'pending' FOR NO KEY UPDATE
  ), abandoned AS (
    UPDATE processing_attempts a
       SET outcome = 'abandoned', finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - a.started_at) * 1000)::int,
           error = 'the worker stopped during this attempt (its database session ended)'
     WHERE a.id IN (SELECT id FROM dead) AND a.outcome = 'running' AND (SELECT count(*) FROM events) >= 0
    RETURNING a.inbox_id, a.started_at, a.worker
  ), counted AS (
    UPDATE webhook_inbox SET attempts = attempts + 1
     WHERE id IN (SELECT id FROM events) AND id IN (SELECT inbox_id FROM abandoned)
  )
  SELECT inbox_id AS "inboxId", started_at AS "startedAt", worker FROM abandoned`;

export type ReclaimResult = { abandoned: number; jobsFailed: number };

/** Frees the jobs of dead workers now (see above); the job's next try starts after pg-boss's retry delay. */
export async function reclaimDeadWorkerJobs(deps: { pool: Pool; boss: PgBoss; workerId: string }): Promise<ReclaimResult> {
  const { rows } = await deps.pool.query<{ inboxId: number; startedAt: Date; worker: string }>(ABANDON_DEAD_ATTEMPTS, [
    deps.workerId,
    LIVENESS_LOCK_CLASS,
  ]);
  let jobsFailed = 0;
  for (const attempt of rows) {
    const jobs = await deps.boss.findJobs(QUEUES.webhooks, { data: { inboxId: attempt.inboxId } });
    // The job the dead attempt ran in: active, and fetched before the attempt started. The
    // retryCount fences the fail to that very try.
    const held = jobs.filter((job) => job.state === "active" && job.startedOn.getTime() <= attempt.startedAt.getTime());
    if (held.length === 0) continue;
    await deps.boss.fail(
      QUEUES.webhooks,
      held.map((job) => ({ id: job.id, retryCount: job.retryCount })),
      { message: `worker ${attempt.worker} died during this job` },
    );
    jobsFailed += held.length;
  }
  return { abandoned: rows.length, jobsFailed };
}
