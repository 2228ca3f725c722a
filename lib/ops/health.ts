import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { backlogSummary } from "../inbox/queries/inbox-stats";
import { webhooksQueueDepth } from "../queue/boss";
import { QUEUES } from "../queue/queues";

export type HealthReport = {
  healthy: boolean;
  /** `degraded` while the database or the queue is unreachable; back to `ok` by itself once they answer. */
  status: "ok" | "degraded";
  database: { ok: boolean; error?: string };
  queue: { ok: boolean; error?: string; ready?: number; deferred?: number; active?: number };
  inbox: { pending: number; oldestPendingSeconds: number | null; failed: number } | null;
};

/** How long each check may take: a database that doesn't answer must not hang the health probe. */
export const HEALTH_CHECK_TIMEOUT_MS = 3_000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Database and queue reachable (healthy = both), plus the pending backlog. A stale backlog is
 * reported, not made unhealthy: ingest still works without workers, and taking the web tier out of
 * a load balancer then would lose webhooks instead of delaying them. Each check is bounded in time
 * and runs on the process's pools, which reconnect on their own: no restart after an outage.
 */
export async function checkHealth(
  db: Queryable,
  boss: () => Promise<PgBoss>,
  timeoutMs: number = HEALTH_CHECK_TIMEOUT_MS,
): Promise<HealthReport> {
  const report: HealthReport = { healthy: false, status: "degraded", database: { ok: false }, queue: { ok: false }, inbox: null };
  // Both at once, settled together: a rejection is never left unheard while the other one runs.
  const [database, queue] = await Promise.allSettled([
    within(backlogSummary(db), timeoutMs, "the database"),
    within((async () => webhooksQueueDepth(await boss()))(), timeoutMs, "the queue"),
  ]);
  if (database.status === "fulfilled") {
    report.inbox = database.value;
    report.database = { ok: true };
  } else {
    report.database = { ok: false, error: message(database.reason) };
  }
  if (queue.status === "rejected") report.queue = { ok: false, error: message(queue.reason) };
  else if (queue.value) report.queue = { ok: true, ...queue.value };
  else report.queue = { ok: false, error: `queue "${QUEUES.webhooks}" does not exist (run npm run db:migrate)` };
  report.healthy = report.database.ok && report.queue.ok;
  report.status = report.healthy ? "ok" : "degraded";
  return report;
}
