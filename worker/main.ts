import { hostname } from "node:os";
import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool } from "@/lib/db/pool";
import { createGatewayClients } from "@/lib/inbox/gateway-clients";
import { consumeWebhooks } from "@/lib/inbox/consume-webhooks";
import { holdWorkerLiveness, reclaimDeadWorkerJobs } from "@/lib/inbox/reclaim-dead-worker-jobs";
import { executeReplayRun, failAbandonedReplayRun } from "@/lib/inbox/replay-runs";
import { sweepPending } from "@/lib/inbox/sweep-pending";
import { createWorkerBoss } from "@/lib/queue/boss";
import { QUEUES, replayJobSchema } from "@/lib/queue/queues";

// `npm run worker`: consumes the webhooks queue and runs the scheduled sweeper. Several workers may
// run against one database: pg-boss hands each job to one of them, the singleton policy keeps one
// job per payment active at a time, and the row locks in processEvent make that a guarantee.
// A lost database connection is not fatal: pools and pg-boss report it ('error' handlers below and
// in createPool), pg-boss keeps polling, and a job whose handler failed meanwhile is retried.
loadEnvFiles();
const config = appConfig();
const url = requireDatabaseUrl(config);
const workerId = `${hostname()}:${process.pid}`;
// +3: the sweeper and replays, and the connection holding this worker's liveness lock.
const pool = createPool(url, config.worker.concurrency + 3, "webhook-inbox:worker", config.databaseTimeouts);
const boss = createWorkerBoss(url, config.worker.queueMonitorSeconds);
const deps = { pool, boss, config, gateways: createGatewayClients(config), workerId };

// A database that is still starting (or restarting) gets ~30 s before the process gives up and the
// launcher (or systemd) restarts it.
await boss.start({ attempts: 6 });
// One monitor pass now rather than after the first interval: jobs a dead worker had fetched but not
// started (no attempt to reclaim) are failed back as soon as their heartbeat is stale, even if
// workers keep dying before their first scheduled pass.
await boss.supervise();

// Alive while this lock is held; the jobs of workers whose lock is gone are failed back to retry at
// once (and then every few seconds), so a killed worker's jobs don't wait for their heartbeat.
const liveness = await holdWorkerLiveness(pool, workerId, (line) => console.error(line));
async function reclaim() {
  const result = await reclaimDeadWorkerJobs(deps);
  if (result.abandoned > 0) {
    console.log(`[worker] ${result.abandoned} attempt(s) of dead workers abandoned, ${result.jobsFailed} job(s) sent back to retry`);
  }
}
await reclaim().catch((error: unknown) => console.error("[worker] reclaim failed:", error instanceof Error ? error.message : error));
const reclaimTimer = setInterval(() => {
  reclaim().catch((error: unknown) => console.error("[worker] reclaim failed:", error instanceof Error ? error.message : error));
}, config.worker.reclaimSeconds * 1000);

// The webhooks queue has its own concurrency: nothing else this process does can take its slots.
await consumeWebhooks(boss, deps);

await boss.schedule(QUEUES.sweeper, config.sweeper.cron, null, { tz: "UTC" });
await boss.work(QUEUES.sweeper, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async () => {
  const result = await sweepPending(deps);
  if (result.dispatched > 0) console.log(`[sweeper] re-dispatched ${result.dispatched} stale pending event(s)`);
});

// Bulk replays from the console, one at a time per worker.
await boss.work(QUEUES.replays, { localConcurrency: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
  await executeReplayRun(deps, replayJobSchema.parse(job!.data).runId);
});
await boss.work(QUEUES.replaysAbandoned, { localConcurrency: 1, pollingIntervalSeconds: 5 }, async ([job]) => {
  await failAbandonedReplayRun(pool, replayJobSchema.parse(job!.data).runId);
});

console.log(`[worker] ${workerId} consuming "${QUEUES.webhooks}" with concurrency ${config.worker.concurrency}`);
// Under the launcher: tells it this start succeeded (a crash from now on is not a crash loop).
process.send?.({ type: "ready" });

async function shutdown(signal: string) {
  console.log(`[worker] ${signal}: finishing in-flight jobs`);
  // Stop fetching, wait for running handlers. A handler still running at the timeout leaves its
  // job to its heartbeat: another worker retries it; its inbox row is still pending, so nothing is lost.
  clearInterval(reclaimTimer);
  await boss.stop({ graceful: true, timeout: 30_000 });
  liveness.stop();
  await pool.end();
}
let stopping = false;
function stopFor(reason: string) {
  if (stopping) return;
  stopping = true;
  shutdown(reason).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`[worker] ${reason}: stopping failed:`, error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
process.on("SIGTERM", () => stopFor("SIGTERM"));
process.on("SIGINT", () => stopFor("SIGINT"));
// Started by the launcher: its end (even a kill -9) closes the channel; don't linger as an orphan.
if (process.send) process.on("disconnect", () => stopFor("launcher gone"));
