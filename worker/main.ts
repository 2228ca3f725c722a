import { appConfig, loadEnvFiles, requireDatabaseUrl } from "@/lib/config/env";
import { createPool } from "@/lib/db/pool";
import { processEvent } from "@/lib/inbox/process-event";
import { createWorkerBoss } from "@/lib/queue/boss";
import { QUEUES, webhookJobSchema } from "@/lib/queue/queues";

// `npm run worker`: consumes the webhooks queue. Several may run against one database.
loadEnvFiles();
const config = appConfig();
const url = requireDatabaseUrl(config);
const pool = createPool(url, config.worker.concurrency + 2, "webhook-inbox:worker");
const boss = createWorkerBoss(url);
boss.on("error", (error) => console.error("[worker] queue error:", error.message));

await boss.start();
await boss.work(
  QUEUES.webhooks,
  { localConcurrency: config.worker.concurrency, batchSize: 1, pollingIntervalSeconds: 0.5 },
  async ([job]) => {
    const { inboxId } = webhookJobSchema.parse(job!.data);
    await processEvent({ pool }, inboxId);
  },
);
console.log(`[worker] consuming "${QUEUES.webhooks}" with concurrency ${config.worker.concurrency}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`[worker] ${signal}: finishing in-flight jobs`);
  // Stop fetching, wait for running handlers; a job still running at the timeout is released by
  // expiry and retried, and its inbox row is still pending, so nothing is lost.
  await boss.stop({ graceful: true, timeout: 30_000 });
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
