import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { QUEUES } from "../queue/queues";

export type HealthReport = {
  healthy: boolean;
  database: { ok: boolean; error?: string };
  queue: { ok: boolean; error?: string; ready?: number; active?: number };
  inbox: { pending: number; oldestPendingSeconds: number | null } | null;
};

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Database and queue reachable (healthy = both), plus the pending backlog. A stale backlog is
 * reported, not made unhealthy: ingest still works without workers, and taking the web tier out of
 * a load balancer then would lose webhooks instead of delaying them.
 */
export async function checkHealth(db: Queryable, boss: () => Promise<PgBoss>): Promise<HealthReport> {
  const report: HealthReport = { healthy: false, database: { ok: false }, queue: { ok: false }, inbox: null };
  try {
    const { rows } = await db.query<{ pending: number; oldest: number | null }>(
      `SELECT count(*)::int AS pending,
              extract(epoch FROM now() - min(received_at))::float8 AS oldest
         FROM webhook_inbox WHERE status = 'pending'`,
    );
    report.database = { ok: true };
    report.inbox = { pending: rows[0]!.pending, oldestPendingSeconds: rows[0]!.oldest === null ? null : Math.round(rows[0]!.oldest) };
  } catch (error) {
    report.database = { ok: false, error: message(error) };
  }
  try {
    const queue = await (await boss()).getQueue(QUEUES.webhooks);
    report.queue = queue
      ? { ok: true, ready: queue.readyCount, active: queue.activeCount }
      : { ok: false, error: `queue "${QUEUES.webhooks}" does not exist (run npm run db:migrate)` };
  } catch (error) {
    report.queue = { ok: false, error: message(error) };
  }
  report.healthy = report.database.ok && report.queue.ok;
  return report;
}
