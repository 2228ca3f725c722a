import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { backlogSummary, pendingByAccount } from "../inbox/queries/inbox-stats";
import { webhooksQueueDepth } from "../queue/boss";
import { hasValidApiToken } from "../auth/api-token";
import { metrics, PENDING_ACCOUNTS_SHOWN } from "../observability/metrics";
import { recoveredByProvider } from "../reconcile/reconcile-runs";
import { destinationHealth } from "../destinations/destination-stats";
import { workersSummary } from "../inbox/process/worker-heartbeats";

/** The Prometheus text of this process, backlog gauges refreshed from the database first. */
export async function renderMetrics(db: Queryable, boss: () => Promise<PgBoss>): Promise<string> {
  const m = metrics();
  const [backlog, depth, destinations, recovered, workers, accounts] = await Promise.all([
    backlogSummary(db),
    boss().then(webhooksQueueDepth),
    destinationHealth(db),
    recoveredByProvider(db),
    workersSummary(db),
    pendingByAccount(db, PENDING_ACCOUNTS_SHOWN),
  ]);
  m.workersAlive.set(workers.alive);
  m.pendingEvents.set(backlog.pending);
  m.failedEvents.set(backlog.failed);
  // Reset first: an account that no longer waits leaves the gauge instead of staying at its last count.
  m.pendingByAccount.reset();
  for (const { provider, account, pending } of accounts) m.pendingByAccount.set({ provider, account }, pending);
  m.oldestPendingSeconds.set(backlog.oldestPendingSeconds ?? 0);
  for (const state of ["ready", "deferred", "active"] as const) m.queueJobs.set({ state }, depth?.[state] ?? 0);
  for (const row of recovered) {
    m.reconcileRecovered.set({ provider: row.provider, kind: "missed" }, row.missingIngested);
    m.reconcileRecovered.set({ provider: row.provider, kind: "repaired" }, row.repaired);
  }
  for (const gauge of [m.deliveryLagSeconds, m.destinationUndelivered, m.destinationFailing]) gauge.reset();
  for (const { name: destination, oldestUndeliveredSeconds, undelivered, circuitOpen, gone } of destinations) {
    m.deliveryLagSeconds.set({ destination }, oldestUndeliveredSeconds);
    m.destinationUndelivered.set({ destination }, undelivered);
    m.destinationFailing.set({ destination, reason: "circuit_open" }, circuitOpen ? 1 : 0);
    m.destinationFailing.set({ destination, reason: "gone" }, gone ? 1 : 0);
  }
  return m.registry.metrics();
}

export type MetricsAccess = "allowed" | "not_configured" | "unauthorized";

/** A scrape needs `Authorization: Bearer <METRICS_TOKEN>`; with no token configured, nobody gets in. */
export function checkMetricsAccess(token: string | undefined, authorization: string | null | undefined): MetricsAccess {
  if (!token) return "not_configured";
  return hasValidApiToken(authorization ?? null, [token]) ? "allowed" : "unauthorized";
}
