import { hostname } from "node:os";
import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool } from "@/lib/db/pool";
import { createGatewayClients } from "@/lib/inbox/gateway-clients";
import { consumeWebhooks } from "@/lib/inbox/consume-webhooks";
import { compactHourlyCounts } from "@/lib/inbox/inbox-stats";
import { executeReplayRun } from "@/lib/inbox/replay-runs";
import { sweepPending } from "@/lib/inbox/sweep-pending";
import { createWorkerBoss } from "@/lib/queue/boss";
import { QUEUES, replayJobSchema } from "@/lib/queue/queues";

// `npm run worker`: consumes the webhooks queue and runs the scheduled sweeper. Several workers may
// run against one database: pg-boss hands each job to one of them, the singleton policy keeps one
// job per payment active at a time, and the row locks in processEvent make that a guarantee.
loadEnvFiles();
const config = appConfig();
const url = requireDatabaseUrl(config);
const workerId = `${hostname()}:${process.pid}`;
// Processing commits don't wait for the WAL flush: pg-boss completes each job afterwards with a
// flushing commit, which makes everything the handler committed durable too; a database crash
// before that leaves the job to retry and the event pending (docs/decisions.md).
const pool = createPool(url, config.worker.concurrency + 2, "webhook-inbox:worker", { synchronousCommit: false });
const boss = createWorkerBoss(url, config.worker.queueMonitorSeconds);
boss.on("error", (error) => console.error("[worker] queue error:", error.message));
const deps = { pool, boss, config, gateways: createGatewayClients(config), workerId };

await boss.start();

// The webhooks queue has its own concurrency: nothing else this process does can take its slots.
await consumeWebhooks(boss, deps);

await boss.schedule(QUEUES.sweeper, config.sweeper.cron, null, { tz: "UTC" });
await boss.work(QUEUES.sweeper, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  const result = await sweepPending(deps);
  if (result.dispatched > 0) console.log(`[sweeper] re-dispatched ${result.dispatched} stale pending event(s)`);
  await compactHourlyCounts(pool);
});

// Bulk replays from the console, one at a time per worker.
await boss.work(QUEUES.replays, { localConcurrency: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
  await executeReplayRun(deps, replayJobSchema.parse(job!.data).runId);
});

console.log(`[worker] ${workerId} consuming "${QUEUES.webhooks}" with concurrency ${config.worker.concurrency}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`[worker] ${signal}: finishing in-flight jobs`);
  // Stop fetching, wait for running handlers. A handler still running at the timeout leaves its
  // job to expire and be retried; its inbox row is still pending, so nothing is lost.
  await boss.stop({ graceful: true, timeout: 30_000 });
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
