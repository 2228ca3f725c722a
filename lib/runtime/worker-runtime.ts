import { hostname } from "node:os";
import { circuitOpenAlert, deadDeliveryAlert, destinationGoneAlert } from "../alerts/check-alerts";
import { sendAlert, type Alert } from "../alerts/send-alert";
import type { AppConfig } from "../config/env";
import { requireDatabaseUrl } from "../config/env";
import { requireSessionPooling } from "../db/pool";
import { syncConfiguredDestination } from "../destinations/manage-destinations";
import { startDeliveryWorker } from "../destinations/run-delivery-worker";
import { createGatewayClients } from "../http/gateway-clients";
import { startAccountDirectory } from "../gateway-accounts/account-directory";
import { missingCredentialWarnings } from "../inbox/process/observe-charge";
import { holdWorkerLiveness, reclaimDeadWorkerJobs } from "../inbox/process/reclaim-dead-worker-jobs";
import { recordHeartbeat, recordWorkerStart, recordWorkerStopped, recordWorkerStopping } from "../inbox/process/worker-heartbeats";
import { reportPartitionsCreated } from "../jobs/definitions/maintenance";
import { processingConnections } from "../jobs/definitions/webhooks";
import type { JobDeps } from "../jobs/job-definition";
import { logger, type Logger } from "../observability/logger";
import { renderMetrics } from "../ops/render-metrics";
import { serveMetrics } from "../ops/serve-metrics";
import { ensureInboxPartitions } from "../inbox/partitions/ensure-inbox-partitions";
import { createWorkerBoss } from "../queue/boss";
import { processPool } from "./connections";
import { loadProcessConfig } from "./process-config";

export type WorkerRuntime = {
  config: AppConfig;
  log: Logger;
  /** What every job's run gets; its boss works the queues. */
  deps: JobDeps;
  metricsPort: number | undefined;
  /** Stops fetching, waits for running handlers (30 s at most), then lets go of everything. */
  stop: (reason: string) => Promise<void>;
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Everything `npm run worker` runs beside its queues, started: the pools, a pg-boss worker instance,
 * the gateway clients, this month's partitions, the liveness lock with its reclaim-and-heartbeat
 * timer, the optional /metrics server and the delivery loop that pushes changes to destinations.
 * The caller subscribes the queues (lib/jobs) once its signal handling is in place.
 * A lost database connection is not fatal: pools and pg-boss report it, pg-boss keeps polling, and a
 * job whose handler failed meanwhile is retried.
 */
export async function startWorkerRuntime(): Promise<WorkerRuntime> {
  const config = loadProcessConfig();
  const log = logger("worker");
  const workerId = `${hostname()}:${process.pid}`;
  // The liveness lock below and retention's run lock are session advisory locks.
  requireSessionPooling(config.databasePooler, "The worker");
  // +3: the scheduled jobs and replays (one at a time each), and the connection holding this
  // worker's liveness lock. Processing commits don't wait for the WAL flush: pg-boss completes each
  // job afterwards with a flushing commit, which makes everything the handler committed durable too;
  // a database crash before that leaves the job to retry and the event pending (docs/decisions.md).
  const pool = processPool(config, "worker", processingConnections(config.worker.concurrency) + 3, { synchronousCommit: false });
  const boss = createWorkerBoss(requireDatabaseUrl(config), config.worker.queueMonitorSeconds);
  // An opening circuit alerts at once (rate-limited); the scheduled check covers what the database shows.
  const gateways = createGatewayClients(config, (provider) => {
    sendAlert({ pool, config }, circuitOpenAlert(provider, config.refetch.breakerCooldownSeconds)).catch((error: unknown) =>
      logger("alerts").error({ provider, error: message(error) }, "circuit alert failed"),
    );
  });
  // Every account's credentials, kept current: an account added or rotated anywhere is refetched with at once.
  const accounts = startAccountDirectory(config, pool, {
    databaseUrl: requireDatabaseUrl(config),
    applicationName: "webhook-inbox:worker-accounts",
  });
  const deps: JobDeps = { pool, boss, config, gateways, accounts, workerId };
  for (const warning of missingCredentialWarnings(config)) log.warn(warning);

  // A database that is still starting (or restarting) gets ~30 s before the process gives up and the
  // launcher (or systemd) restarts it.
  await boss.start({ attempts: 6 });
  // One monitor pass now rather than after the first interval: jobs a dead worker had fetched but not
  // started (no attempt to reclaim) are failed back as soon as their heartbeat is stale, even if
  // workers keep dying before their first scheduled pass.
  await boss.supervise();

  // This month's partition and the next ones exist before anything is inserted into them; the
  // maintenance job checks again every minute, so a month never starts in the default partition.
  reportPartitionsCreated(await ensureInboxPartitions(pool));

  // Alive while this lock is held; the jobs of workers whose lock is gone are failed back to retry at
  // once (and then every few seconds), so a killed worker's jobs don't wait for their heartbeat.
  const liveness = await holdWorkerLiveness(pool, workerId, (line) => log.error(line));
  const reclaim = async () => {
    // The heartbeat rides the same timer: the console and the "no worker alive" alert read it.
    await recordHeartbeat(pool, workerId);
    const result = await reclaimDeadWorkerJobs(deps);
    if (result.abandoned > 0)
      log.warn(
        { abandoned: result.abandoned, jobsFailed: result.jobsFailed },
        "dead workers' attempts abandoned, their jobs sent back to retry",
      );
  };
  const reclaimFailed = (error: unknown) => log.error({ error: message(error) }, "reclaim failed");
  await recordWorkerStart(pool, workerId);
  await reclaim().catch(reclaimFailed);
  const reclaimTimer = setInterval(() => {
    reclaim().catch(reclaimFailed);
  }, config.worker.reclaimSeconds * 1000);

  const metricsServer = config.workerMetricsPort
    ? await serveMetrics({ port: config.workerMetricsPort, token: config.metricsToken }, () => renderMetrics(pool, async () => boss))
    : null;
  if (metricsServer && !config.metricsToken) log.warn("WORKER_METRICS_PORT is set but METRICS_TOKEN is not: /metrics answers 404");

  // Pushing payment changes to destinations, on a pool of its own whose commits wait for the WAL flush:
  // a feed position handed out must never be handed out again after a database crash.
  const deliveryPool = processPool(config, "destinations", 4);
  await syncConfiguredDestination(deliveryPool, config.destinations.configured);
  const alertInBackground = (alert: Alert) => {
    sendAlert({ pool: deliveryPool, config }, alert).catch((error: unknown) =>
      logger("alerts").error({ kind: alert.kind, error: message(error) }, "alert failed"),
    );
  };
  const deliveries = startDeliveryWorker(deliveryPool, config, {
    dead: (dead) => alertInBackground(deadDeliveryAlert(dead)),
    gone: (destination) => alertInBackground(destinationGoneAlert(destination)),
  });

  const stop = async (reason: string) => {
    log.info({ signal: reason }, "finishing in-flight jobs");
    // Stop fetching, wait for running handlers. A handler still running at the timeout leaves its
    // job to its heartbeat: another worker retries it; its inbox row is still pending, so nothing is lost.
    clearInterval(reclaimTimer);
    metricsServer?.server.close();
    // Said first, so health and the console stop counting this worker while it drains.
    const stateFailed = (error: unknown) => log.warn({ error: message(error) }, "could not record the worker's state");
    await recordWorkerStopping(pool, workerId).catch(stateFailed);
    await Promise.all([boss.stop({ graceful: true, timeout: 30_000 }), deliveries.stop()]);
    await recordWorkerStopped(pool, workerId).catch(stateFailed);
    liveness.stop();
    await accounts.close();
    await Promise.all([pool.end(), deliveryPool.end()]);
  };
  return { config, log, deps, metricsPort: metricsServer?.port, stop };
}
