import type { PgBoss } from "pg-boss";
import { QUEUES, webhookJobSchema } from "../queue/queues";
import { logger } from "../observability/logger";
import { recordAttempt } from "../observability/metrics";
import { processEvent, type ProcessDeps, type ProcessOutcome } from "./process-event";
import { errorForLog } from "../http/app-error";

/**
 * Subscribes a worker to the webhooks queue: up to `WORKER_CONCURRENCY` events in flight. Jobs are
 * fetched in batches (one job per payment per batch, by the singleton policy) and fetching goes on
 * without a pause while batches come back full, so a backlog drains at processing speed, not at
 * polling speed. Each job settles on its own: one failing handler doesn't fail its batch.
 */
export async function consumeWebhooks(
  boss: PgBoss,
  deps: ProcessDeps,
  onOutcome: (outcome: ProcessOutcome) => void = () => undefined,
): Promise<string> {
  const { concurrency } = deps.config.worker;
  const pollers = concurrency >= 4 ? 2 : 1;
  return boss.work(
    QUEUES.webhooks,
    {
      localConcurrency: pollers,
      batchSize: Math.ceil(concurrency / pollers),
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      perJobResults: true,
    },
    async (jobs) =>
      Promise.all(
        jobs.map(async (job) => {
          const started = performance.now();
          const inboxId = (job.data as { inboxId?: unknown } | null)?.inboxId;
          const log = logger("worker", { inboxId, jobId: job.id });
          try {
            const outcome = await processEvent(deps, webhookJobSchema.parse(job.data).inboxId);
            const seconds = (performance.now() - started) / 1000;
            recordAttempt(outcome, seconds);
            log.info({ outcome, ms: Math.round(seconds * 1000) }, "event attempt finished");
            onOutcome(outcome);
            return { id: job.id, status: "completed" as const };
          } catch (error) {
            recordAttempt("error", (performance.now() - started) / 1000);
            // Unexpected (database unreachable...): pg-boss retries the job; the row stays pending.
            log.error({ error: errorForLog(error) }, "job failed; pg-boss retries it");
            return { id: job.id, status: "failed" as const, output: { message: errorForLog(error).split("\n")[0] } };
          }
        }),
      ),
  );
}
