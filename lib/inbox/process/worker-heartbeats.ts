import type { Queryable } from "../../db/pool";

// A worker's last sign of life, beside its liveness lock (reclaim-dead-worker-jobs.ts): the lock
// says "alive" to other workers at once; the heartbeat row says when, for people, health and alerts.
// A worker also writes when it starts to stop and when it has stopped, so one that drains or shut
// down cleanly is told apart from one that vanished.

/**
 * A worker counts as alive while its last heartbeat is younger than this. It beats every
 * WORKER_RECLAIM_SECONDS (2 s by default): a killed worker is "lost" within this, and the web's
 * check (every WORKER_CHECK_SECONDS) raises the alert well within 30 s.
 */
export const WORKER_ALIVE_SECONDS = 15;

/** How often each web process looks for "no worker alive while events wait". */
export const WORKER_CHECK_SECONDS = 10;

// A stopping worker drains for 30 s at most: past this it was killed while draining (lost).
const STOPPING_SECONDS = 45;

// Past workers fade out: a lost one shows for an hour, a cleanly stopped one for ten minutes; rows
// are dropped after a day by the next heartbeat of any worker.
const LOST_SHOWN = "1 hour";
const STOPPED_SHOWN = "10 minutes";
const FORGET_AFTER = "1 day";

export type WorkerState = "alive" | "stopping" | "lost" | "stopped";

const STATE = `CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
       WHEN stopping_at IS NOT NULL THEN CASE WHEN stopping_at > now() - make_interval(secs => ${STOPPING_SECONDS}) THEN 'stopping' ELSE 'lost' END
       WHEN beat_at > now() - make_interval(secs => ${WORKER_ALIVE_SECONDS}) THEN 'alive'
       ELSE 'lost' END`;

/** A (re)started worker: a fresh row, even when a previous process had the same id (a reused pid). */
export async function recordWorkerStart(db: Queryable, worker: string): Promise<void> {
  await db.query(
    `INSERT INTO worker_heartbeats (worker) VALUES ($1)
     ON CONFLICT (worker) DO UPDATE SET started_at = now(), beat_at = now(), stopping_at = NULL, stopped_at = NULL`,
    [worker],
  );
}

export async function recordHeartbeat(db: Queryable, worker: string): Promise<void> {
  await db.query(
    `WITH forgotten AS (DELETE FROM worker_heartbeats WHERE beat_at < now() - interval '${FORGET_AFTER}')
     INSERT INTO worker_heartbeats (worker) VALUES ($1) ON CONFLICT (worker) DO UPDATE SET beat_at = now()`,
    [worker],
  );
}

/** The worker stopped taking jobs and drains what it runs; it no longer counts as alive. */
export async function recordWorkerStopping(db: Queryable, worker: string): Promise<void> {
  await db.query("UPDATE worker_heartbeats SET stopping_at = now() WHERE worker = $1", [worker]);
}

export async function recordWorkerStopped(db: Queryable, worker: string): Promise<void> {
  await db.query("UPDATE worker_heartbeats SET stopping_at = COALESCE(stopping_at, now()), stopped_at = now() WHERE worker = $1", [worker]);
}

export type WorkerBeat = {
  worker: string;
  startedAt: Date;
  beatAt: Date;
  stoppedAt: Date | null;
  secondsAgo: number;
  state: WorkerState;
};

/** Workers alive or draining, then those lost in the last hour or stopped in the last ten minutes. */
export async function listWorkerBeats(db: Queryable): Promise<WorkerBeat[]> {
  const { rows } = await db.query<WorkerBeat>(
    `SELECT * FROM (
       SELECT worker, started_at AS "startedAt", beat_at AS "beatAt", stopped_at AS "stoppedAt",
              extract(epoch FROM now() - beat_at)::int AS "secondsAgo", ${STATE} AS state
         FROM worker_heartbeats
        WHERE stopped_at IS NULL AND beat_at > now() - interval '${LOST_SHOWN}'
           OR stopped_at > now() - interval '${STOPPED_SHOWN}') w
      ORDER BY array_position(ARRAY['alive', 'stopping', 'lost', 'stopped'], state), "beatAt" DESC
      LIMIT 50`,
  );
  return rows;
}

export type WorkersSummary = { alive: number; lastHeartbeatAt: Date | null; lastHeartbeatSecondsAgo: number | null };

/** How many workers are alive now, and the last heartbeat any worker sent. */
export async function workersSummary(db: Queryable): Promise<WorkersSummary> {
  const { rows } = await db.query<WorkersSummary>(
    `SELECT count(*) FILTER (WHERE ${STATE} = 'alive')::int AS alive, max(beat_at) AS "lastHeartbeatAt",
            extract(epoch FROM now() - max(beat_at))::int AS "lastHeartbeatSecondsAgo"
       FROM worker_heartbeats`,
  );
  return rows[0]!;
}
