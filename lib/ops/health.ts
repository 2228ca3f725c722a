import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { backlogSummary } from "../inbox/inbox-stats";
import { webhooksQueueDepth } from "../queue/boss";
import { QUEUES } from "../queue/queues";

export type HealthReport = {
  healthy: boolean;
  database: { ok: boolean; error?: string };
  queue: { ok: boolean; error?: string; ready?: number; deferred?: number; active?: number };
  inbox: { pending: number; oldestPendingSeconds: number | null; failed: number } | null;
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
    report.inbox = await backlogSummary(db);
    report.database = { ok: true };
  } catch (error) {
    report.database = { ok: false, error: message(error) };
  }
  try {
    const depth = await webhooksQueueDepth(await boss());
    report.queue = depth
      ? { ok: true, ...depth }
      : { ok: false, error: `queue "${QUEUES.webhooks}" does not exist (run npm run db:migrate)` };
  } catch (error) {
    report.queue = { ok: false, error: message(error) };
  }
  report.healthy = report.database.ok && report.queue.ok;
  return report;
}
