import { hostname } from "node:os";
import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool, requireSessionPooling } from "@/lib/db/pool";
import { createGatewayClients } from "@/lib/http/gateway-clients";
import { missingCredentialWarnings } from "@/lib/inbox/process/observe-charge";
import { consumeWebhooks, processingConnections } from "@/lib/inbox/process/consume-webhooks";
import { holdWorkerLiveness, reclaimDeadWorkerJobs } from "@/lib/inbox/process/reclaim-dead-worker-jobs";
import { recordHeartbeat } from "@/lib/inbox/process/worker-heartbeats";
import { executeReplayRun, failAbandonedReplayRun } from "@/lib/inbox/replay/replay-runs";
import { runRetention } from "@/lib/inbox/retention/archive-settled-events";
import { archiveOldPartitions } from "@/lib/partitions/archive-inbox-partition";
import { compactPaymentTotals } from "@/lib/payments/compact-payment-totals";
import { ensureInboxPartitions } from "@/lib/partitions/ensure-inbox-partitions";
import { checkAlerts, circuitOpenAlert, deadDeliveryAlert, destinationGoneAlert } from "@/lib/alerts/check-alerts";
import { sendAlert, type Alert } from "@/lib/alerts/send-alert";
import { configureLogger, logger } from "@/lib/observability/logger";
import { renderMetrics } from "@/lib/ops/render-metrics";
import { serveMetrics } from "@/lib/ops/serve-metrics";
import { compactHourlyCounts } from "@/lib/inbox/maintenance/compact-hourly-counts";
import { sweepPending } from "@/lib/inbox/process/sweep-pending";
import { syncConfiguredDestination } from "@/lib/destinations/manage-destinations";
import { startDeliveryWorker } from "@/lib/destinations/run-delivery-worker";
import { createWorkerBoss } from "@/lib/queue/boss";
import { QUEUES, replayJobSchema } from "@/lib/queue/queues";
import { runDueReconciliations } from "@/lib/reconcile/run-due-reconciliations";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";

// `npm run worker`: consumes the webhooks queue and runs the scheduled sweeper. Several workers may
// run against one database: pg-boss hands each job to one of them, the singleton policy keeps one
// job per payment active at a time, and the row locks in processEvent make that a guarantee.
// A lost database connection is not fatal: pools and pg-boss report it ('error' handlers below and
// in createPool), pg-boss keeps polling, and a job whose handler failed meanwhile is retried.
loadEnvFiles();
const config = appConfig();
configureLogger({ level: config.logLevel, format: config.logFormat });
const log = logger("worker");
const url = requireDatabaseUrl(config);
const workerId = `${hostname()}:${process.pid}`;
// The liveness lock below and retention's run lock are session advisory locks.
requireSessionPooling(config.databasePooler, "The worker");
// +3: the sweeper and replays, and the connection holding this worker's liveness lock.
// Processing commits don't wait for the WAL flush: pg-boss completes each job afterwards with a
// flushing commit, which makes everything the handler committed durable too; a database crash
// before that leaves the job to retry and the event pending (docs/decisions.md).
const pool = createPool(url, processingConnections(config.worker.concurrency) + 3, "webhook-inbox:worker", config.databaseTimeouts, {
  synchronousCommit: false,
  pooler: config.databasePooler,
});
const boss = createWorkerBoss(url, config.worker.queueMonitorSeconds);
// An opening circuit alerts at once (rate-limited); the scheduled check covers what the database shows.
const gateways = createGatewayClients(config, (provider) => {
  sendAlert({ pool, config }, circuitOpenAlert(provider, config.refetch.breakerCooldownSeconds)).catch((error: unknown) =>
    logger("alerts").error({ provider, error: error instanceof Error ? error.message : String(error) }, "circuit alert failed"),
  );
});
const deps = { pool, boss, config, gateways, workerId };
for (const warning of missingCredentialWarnings(config)) log.warn(warning);

// A database that is still starting (or restarting) gets ~30 s before the process gives up and the
// launcher (or systemd) restarts it.
await boss.start({ attempts: 6 });
// One monitor pass now rather than after the first interval: jobs a dead worker had fetched but not
// started (no attempt to reclaim) are failed back as soon as their heartbeat is stale, even if
// workers keep dying before their first scheduled pass.
await boss.supervise();

// This month's partition and the next ones exist before anything is inserted into them; the sweeper
// checks again every run, so a month never starts in the default partition while a worker runs.
const logCreated = (created: string[]) => {
  if (created.length > 0) logger("partitions").info({ created }, "inbox partitions created ahead");
};
logCreated(await ensureInboxPartitions(pool));

// Alive while this lock is held; the jobs of workers whose lock is gone are failed back to retry at
// once (and then every few seconds), so a killed worker's jobs don't wait for their heartbeat.
const liveness = await holdWorkerLiveness(pool, workerId, (line) => log.error(line));
async function reclaim() {
  // The heartbeat rides the same timer: the console and the "no worker alive" alert read it.
  await recordHeartbeat(pool, workerId);
  const result = await reclaimDeadWorkerJobs(deps);
  if (result.abandoned > 0)
    log.warn(
      { abandoned: result.abandoned, jobsFailed: result.jobsFailed },
      "dead workers' attempts abandoned, their jobs sent back to retry",
    );
}
const reclaimFailed = (error: unknown) => log.error({ error: error instanceof Error ? error.message : String(error) }, "reclaim failed");
await reclaim().catch(reclaimFailed);
const reclaimTimer = setInterval(() => {
  reclaim().catch(reclaimFailed);
}, config.worker.reclaimSeconds * 1000);

// Retention: archive and purge old settled payloads on its own schedule, one run at a time.
await boss.schedule(QUEUES.retention, config.retention.cron, null, { tz: "UTC" });
await boss.work(QUEUES.retention, { localConcurrency: 1, pollingIntervalSeconds: 30 }, async () => {
  const result = await runRetention(deps);
  logger("retention").info(
    { events: result.events, bytes: result.bytes, batches: result.batches, skipped: result.skipped },
    "retention run finished",
  );
  if (config.retention.partitionMonths > 0) {
    const before = new Date();
    before.setUTCMonth(before.getUTCMonth() - config.retention.partitionMonths);
    for (const outcome of await archiveOldPartitions({ pool, archiveDir: config.retention.archiveDir }, before)) {
      logger("retention").info(outcome, "inbox partition archive");
    }
  }
});

await boss.schedule(QUEUES.alerts, config.alerts.cron, null, { tz: "UTC" });
await boss.work(QUEUES.alerts, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  const sent = (await checkAlerts(deps)).filter((outcome) => outcome.sent).length;
  if (sent > 0) logger("alerts").info({ sent }, "alerts sent");
});

const metricsServer = config.workerMetricsPort
  ? await serveMetrics({ port: config.workerMetricsPort, token: config.metricsToken }, () => renderMetrics(pool, async () => boss))
  : null;
if (metricsServer && !config.metricsToken) log.warn("WORKER_METRICS_PORT is set but METRICS_TOKEN is not: /metrics answers 404");

// Pushing payment changes to destinations, on a pool of its own whose commits wait for the WAL flush:
// a feed position handed out must never be handed out again after a database crash.
const deliveryPool = createPool(url, 4, "webhook-inbox:destinations", config.databaseTimeouts, { pooler: config.databasePooler });
await syncConfiguredDestination(deliveryPool, config.destinations.configured);
const alertInBackground = (alert: Alert) => {
  sendAlert({ pool: deliveryPool, config }, alert).catch((error: unknown) =>
    logger("alerts").error({ kind: alert.kind, error: error instanceof Error ? error.message : String(error) }, "alert failed"),
  );
};
const deliveries = startDeliveryWorker(deliveryPool, config, {
  dead: (dead) => alertInBackground(deadDeliveryAlert(dead)),
  gone: (destination) => alertInBackground(destinationGoneAlert(destination)),
});

// Set before any job is taken, so a signal mid-job always waits for it.
stopOnSignals(
  async (signal) => {
    log.info({ signal }, "finishing in-flight jobs");
    // Stop fetching, wait for running handlers. A handler still running at the timeout leaves its
    // job to its heartbeat: another worker retries it; its inbox row is still pending, so nothing is lost.
    clearInterval(reclaimTimer);
    metricsServer?.server.close();
    await Promise.all([boss.stop({ graceful: true, timeout: 30_000 }), deliveries.stop()]);
    liveness.stop();
    await Promise.all([pool.end(), deliveryPool.end()]);
  },
  {
    whenLauncherGone: true,
    reportFailure: (error, reason) =>
      log.error({ reason, error: error instanceof Error ? error.message : String(error) }, "stopping failed"),
  },
);

// The webhooks queue has its own concurrency: nothing else this process does can take its slots.
await consumeWebhooks(boss, deps);

await boss.schedule(QUEUES.sweeper, config.sweeper.cron, null, { tz: "UTC" });
await boss.work(QUEUES.sweeper, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  const result = await sweepPending(deps);
  if (result.dispatched > 0) logger("sweeper").info({ dispatched: result.dispatched }, "re-dispatched stale pending events");
  await compactHourlyCounts(pool);
  await compactPaymentTotals(pool);
  logCreated(await ensureInboxPartitions(pool));
});

// Reconciliation: every minute, the gateways whose interval has passed (RECONCILE_INTERVAL_MINUTES_<P>).
await boss.schedule(QUEUES.reconcile, "* * * * *", null, { tz: "UTC" });
await boss.work(QUEUES.reconcile, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  for (const result of await runDueReconciliations(deps)) {
    if (result.outcome === "busy" || result.outcome === "unavailable") continue;
    const level = result.outcome === "finished" ? "info" : "warn";
    logger("reconcile")[level](
      {
        provider: result.provider,
        runId: result.runId,
        listed: result.listed,
        missingIngested: result.missingIngested,
        repaired: result.repaired,
        stuckRefetched: result.stuckRefetched,
        errors: result.errors,
        lastError: result.lastError,
      },
      "reconciliation run",
    );
  }
});

// Bulk replays from the console, one at a time per worker.
await boss.work(QUEUES.replays, { localConcurrency: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
  await executeReplayRun(deps, replayJobSchema.parse(job!.data).runId);
});
await boss.work(QUEUES.replaysAbandoned, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async ([job]) => {
  await failAbandonedReplayRun(pool, replayJobSchema.parse(job!.data).runId);
});

log.info({ workerId, queue: QUEUES.webhooks, concurrency: config.worker.concurrency, metricsPort: metricsServer?.port }, "worker started");
// Under the launcher: tells it this start succeeded (a crash from now on is not a crash loop).
process.send?.({ type: "ready" });
