import type { Queryable } from "../../db/pool";

// A worker's last sign of life, beside its liveness lock (reclaim-dead-worker-jobs.ts): the lock
// says "alive" to other workers at once; the heartbeat row says when, for people and alerts.

/** A worker counts as alive while its last heartbeat is younger than this. */
export const WORKER_ALIVE_SECONDS = 60;

// Rows of workers gone for longer than this are dropped by the next heartbeat of any worker.
const FORGET_AFTER = "1 day";

export async function recordHeartbeat(db: Queryable, worker: string): Promise<void> {
  await db.query(
    `WITH forgotten AS (DELETE FROM worker_heartbeats WHERE beat_at < now() - interval '${FORGET_AFTER}')
     INSERT INTO worker_heartbeats (worker) VALUES ($1) ON CONFLICT (worker) DO UPDATE SET beat_at = now()`,
    [worker],
  );
}

export type WorkerBeat = { worker: string; startedAt: Date; beatAt: Date; secondsAgo: number; alive: boolean };

/** Workers seen in the last day, most recent heartbeat first. */
export async function listWorkerBeats(db: Queryable): Promise<WorkerBeat[]> {
  const { rows } = await db.query<WorkerBeat>(
    `SELECT worker, started_at AS "startedAt", beat_at AS "beatAt", extract(epoch FROM now() - beat_at)::int AS "secondsAgo",
            beat_at > now() - make_interval(secs => $1) AS alive
       FROM worker_heartbeats ORDER BY beat_at DESC LIMIT 50`,
    [WORKER_ALIVE_SECONDS],
  );
  return rows;
}
