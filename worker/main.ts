import { hostname } from "node:os";
import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool } from "@/lib/db/pool";
import { createGatewayClients, missingCredentialWarnings } from "@/lib/inbox/gateway-clients";
import { consumeWebhooks } from "@/lib/inbox/consume-webhooks";
import { executeReplayRun } from "@/lib/inbox/replay-runs";
import { runRetention } from "@/lib/inbox/archive-settled-events";
import { checkAlerts, circuitOpenAlert } from "@/lib/alerts/check-alerts";
import { sendAlert } from "@/lib/alerts/send-alert";
import { configureLogger, logger } from "@/lib/observability/logger";
import { renderMetrics } from "@/lib/observability/render-metrics";
import { serveMetrics } from "@/lib/observability/serve-metrics";
import { sweepPending } from "@/lib/inbox/sweep-pending";
import { createWorkerBoss } from "@/lib/queue/boss";
import { QUEUES, replayJobSchema } from "@/lib/queue/queues";

// `npm run worker`: consumes the webhooks queue and runs the scheduled sweeper. Several workers may
// run against one database: pg-boss hands each job to one of them, the singleton policy keeps one
// job per payment active at a time, and the row locks in processEvent make that a guarantee.
loadEnvFiles();
const config = appConfig();
configureLogger({ level: config.logLevel, format: config.logFormat });
const log = logger("worker");
const url = requireDatabaseUrl(config);
const workerId = `${hostname()}:${process.pid}`;
const pool = createPool(url, config.worker.concurrency + 2, "webhook-inbox:worker");
const boss = createWorkerBoss(url, config.worker.queueMonitorSeconds);
boss.on("error", (error) => log.error({ error: error.message }, "queue error"));
// An opening circuit alerts at once (rate-limited); the scheduled check covers what the database shows.
const gateways = createGatewayClients(config, (provider) => {
  sendAlert({ pool, config }, circuitOpenAlert(provider, config.refetch.breakerCooldownSeconds)).catch((error: unknown) =>
    logger("alerts").error({ provider, error: error instanceof Error ? error.message : String(error) }, "circuit alert failed"),
  );
});
const deps = { pool, boss, config, gateways, workerId };
for (const warning of missingCredentialWarnings(config)) log.warn(warning);

await boss.start();

// Retention: archive and purge old settled payloads on its own schedule, one run at a time.
await boss.schedule(QUEUES.retention, config.retention.cron, null, { tz: "UTC" });
await boss.work(QUEUES.retention, { localConcurrency: 1, pollingIntervalSeconds: 30 }, async () => {
  const result = await runRetention(deps);
  logger("retention").info({ events: result.events, bytes: result.bytes, batches: result.batches, skipped: result.skipped }, "retention run finished");
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

// The webhooks queue has its own concurrency: nothing else this process does can take its slots.
await consumeWebhooks(boss, deps);

await boss.schedule(QUEUES.sweeper, config.sweeper.cron, null, { tz: "UTC" });
await boss.work(QUEUES.sweeper, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  const result = await sweepPending(deps);
  if (result.dispatched > 0) logger("sweeper").info({ dispatched: result.dispatched }, "re-dispatched stale pending events");
});

// Bulk replays from the console, one at a time per worker.
await boss.work(QUEUES.replays, { localConcurrency: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
  await executeReplayRun(deps, replayJobSchema.parse(job!.data).runId);
});

log.info({ workerId, queue: QUEUES.webhooks, concurrency: config.worker.concurrency, metricsPort: metricsServer?.port }, "worker started");

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "finishing in-flight jobs");
  // Stop fetching, wait for running handlers. A handler still running at the timeout leaves its
  // job to expire and be retried; its inbox row is still pending, so nothing is lost.
  metricsServer?.server.close();
  await boss.stop({ graceful: true, timeout: 30_000 });
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
