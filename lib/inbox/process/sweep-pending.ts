import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool } from "../../db/pool";
import { dispatchEvents, RECEIVED_AT_TEXT, type DispatchableEvent } from "../../queue/boss";

export type SweepDeps = { pool: Pool; boss: PgBoss; config: AppConfig };
export type SweepResult = { dispatched: number; skipped: boolean };

// Any constant: a sweep holds it for its transaction, so two sweeps never run at once.
const SWEEP_LOCK_KEY = 72_310_556;

// Pending rows nobody has touched for a while: their job was lost (deleted, expired past its
// retries, never committed by an older version...). Oldest first, bounded, skipping rows a worker
// holds right now. A row whose retry is scheduled counts from its next_attempt_at.
const STALE_PENDING = `
  SELECT id, provider, resource_id AS "resourceId", event_id AS "eventId", ${RECEIVED_AT_TEXT}
    FROM webhook_inbox
   WHERE status = 'pending'
     AND COALESCE(next_attempt_at, received_at) < now() - make_interval(secs => $1)
   ORDER BY received_at, id
   LIMIT $2
   FOR UPDATE SKIP LOCKED`;

/**
 * Re-dispatches stale pending events (jobs are idempotent, so a duplicate job is harmless). Marks
 * them touched, so the next sweep waits another full staleness window before trying them again.
 */
export async function sweepPending(deps: SweepDeps, options: { staleSeconds?: number; batchSize?: number } = {}): Promise<SweepResult> {
  const staleSeconds = options.staleSeconds ?? deps.config.sweeper.staleMinutes * 60;
  const batchSize = options.batchSize ?? deps.config.sweeper.batchSize;
  return withTransaction(deps.pool, async (tx) => {
    const { rows: lock } = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [SWEEP_LOCK_KEY]);
    if (!lock[0]!.locked) return { dispatched: 0, skipped: true };
    const { rows } = await tx.query<DispatchableEvent>(STALE_PENDING, [staleSeconds, batchSize]);
    if (rows.length === 0) return { dispatched: 0, skipped: false };
    await tx.query("UPDATE webhook_inbox SET next_attempt_at = now() WHERE id = ANY($1::bigint[])", [rows.map((row) => row.id)]);
    await dispatchEvents(deps.boss, tx, rows, { expireInSeconds: deps.config.worker.jobExpireSeconds });
    return { dispatched: rows.length, skipped: false };
  });
}
