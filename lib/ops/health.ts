import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { backlogSummary } from "../inbox/queries/inbox-stats";
import { workersSummary, type WorkersSummary } from "../inbox/process/worker-heartbeats";
import { webhooksQueueDepth } from "../queue/boss";
import { QUEUES } from "../queue/queues";
import { agree, plural } from "../text/words";

export type HealthReport = {
  /** Everything works: database and queue reachable, and a worker alive. */
  healthy: boolean;
  /** `degraded` while not healthy; back to `ok` by itself once the cause is gone. */
  status: "ok" | "degraded";
  /** This process can take requests (database and queue reachable): what a load balancer should go by. */
  serving: boolean;
  /** What is wrong, one sentence each; empty when healthy. */
  problems: string[];
  database: { ok: boolean; error?: string };
  queue: { ok: boolean; error?: string; ready?: number; deferred?: number; active?: number };
  inbox: { pending: number; oldestPendingSeconds: number | null; failed: number } | null;
  workers: WorkersSummary | null;
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
 * Database and queue reachable (`serving`), the pending backlog and the workers alive. No worker
 * alive makes it unhealthy but still serving: ingest works without workers, and taking the web tier
 * out of a load balancer then would lose webhooks instead of delaying them. It is unhealthy even
 * when nothing waits: a quiet system is when a dead worker goes unnoticed, and the reconciliation
 * that recovers what gateways never sent runs on the workers. A slow backlog with workers alive is
 * reported, not unhealthy. Each check is bounded in time and runs on the process's pools, which
 * reconnect on their own: no restart after an outage.
 */
export async function checkHealth(
  db: Queryable,
  boss: () => Promise<PgBoss>,
  timeoutMs: number = HEALTH_CHECK_TIMEOUT_MS,
): Promise<HealthReport> {
  const report: HealthReport = {
    ...{ healthy: false, status: "degraded", serving: false, problems: [] },
    ...{ database: { ok: false }, queue: { ok: false }, inbox: null, workers: null },
  };
  // All at once, settled together: a rejection is never left unheard while another one runs.
  const [database, queue] = await Promise.allSettled([
    within(Promise.all([backlogSummary(db), workersSummary(db)]), timeoutMs, "the database"),
    within((async () => webhooksQueueDepth(await boss()))(), timeoutMs, "the queue"),
  ]);
  if (database.status === "fulfilled") {
    [report.inbox, report.workers] = database.value;
    report.database = { ok: true };
  } else {
    report.database = { ok: false, error: message(database.reason) };
  }
  if (queue.status === "rejected") report.queue = { ok: false, error: message(queue.reason) };
  else if (queue.value) report.queue = { ok: true, ...queue.value };
  else report.queue = { ok: false, error: `queue "${QUEUES.webhooks}" does not exist (run npm run db:migrate)` };
  report.serving = report.database.ok && report.queue.ok;
  if (!report.database.ok) report.problems.push(`database: ${report.database.error}`);
  if (!report.queue.ok) report.problems.push(`queue: ${report.queue.error}`);
  if (report.inbox && report.workers && report.workers.alive === 0) {
    const { pending } = report.inbox;
    const last = report.workers.lastHeartbeatSecondsAgo;
    const waiting =
      pending > 0 ? `${plural(pending, "event")} ${agree(pending, "waits", "wait")}` : "new events and reconciliation will wait";
    report.problems.push(`no worker alive: ${waiting}; ${last === null ? "no worker ever beat" : `last heartbeat ${last}s ago`}`);
  }
  report.healthy = report.problems.length === 0;
  report.status = report.healthy ? "ok" : "degraded";
  return report;
}
