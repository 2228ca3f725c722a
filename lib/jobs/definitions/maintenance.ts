import { z } from "zod";
import { compactHourlyCounts } from "../../inbox/maintenance/compact-hourly-counts";
import { logger } from "../../observability/logger";
import { ensureInboxPartitions } from "../../inbox/partitions/ensure-inbox-partitions";
import { compactPaymentTotals } from "../../payments/compact-payment-totals";
import { pruneReconcileRuns } from "../../reconcile/reconcile-runs";
import type { JobDefinition } from "../job-definition";

export type MaintenanceResult = {
  inboxCountsFolded: number;
  paymentTotalsFolded: number;
  partitionsCreated: string[];
  reconcileRunsPruned: number;
};

// Reconciliation runs deleted per minute at most: far more than thousands of accounts each run
// hourly add, and a short statement on a first run over a long backlog.
const RECONCILE_RUNS_PRUNED_PER_RUN = 5_000;

/** Logs the inbox partitions a run created ahead (the worker also ensures them when it starts). */
export function reportPartitionsCreated(created: string[]): void {
  if (created.length > 0) logger("partitions").info({ created }, "inbox partitions created ahead");
}

/**
 * Upkeep of the tables their rooms keep: the hourly rollups' deltas folded into one row per key
 * (inbox_hourly_counts, payment_hourly_totals), and this month's inbox partition and the next ones
 * created, so a month never starts in the default partition while a worker runs; reconciliation runs
 * past RECONCILE_RUNS_KEEP_DAYS that found nothing deleted, a batch a minute. Every minute, as
 * the sweeper that used to do it: each step is a no-op when there is nothing to do.
 */
const maintenanceData = z.object({});

export const maintenanceJob: JobDefinition<z.infer<typeof maintenanceData>, MaintenanceResult> = {
  name: "maintenance",
  data: maintenanceData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 300, deleteAfterSeconds: 3600 },
  schedule: () => "* * * * *",
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: async ({ pool, config }) => ({
    inboxCountsFolded: await compactHourlyCounts(pool),
    paymentTotalsFolded: await compactPaymentTotals(pool),
    partitionsCreated: await ensureInboxPartitions(pool),
    reconcileRunsPruned: await pruneReconcileRuns(pool, config.reconcile.runsKeepDays, RECONCILE_RUNS_PRUNED_PER_RUN),
  }),
  report: ({ partitionsCreated }) => reportPartitionsCreated(partitionsCreated),
};
