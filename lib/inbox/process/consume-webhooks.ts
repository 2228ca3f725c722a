import type { PgBoss } from "pg-boss";
import { QUEUES, webhookJobSchema } from "../../queue/queues";
import { logger } from "../../observability/logger";
import { recordAttempt } from "../../observability/metrics";
import { processEvents, type ProcessDeps, type ProcessOutcome } from "./process-event";
import { errorForLog } from "../../errors/app-error";

/**
 * The connections processing needs at most: a batch holds one at a time, and its events take one
 * each only when they settle one by one (a failed batch) or schedule retries, which may queue for a
 * connection; so a large concurrency doesn't open as many.
 */
export function processingConnections(concurrency: number): number {
  return Math.min(concurrency, 16);
}

/**
 * Subscribes a worker to the webhooks queue: up to `WORKER_CONCURRENCY` events in flight. Jobs are
 * fetched in batches (one job per payment per batch, by the singleton policy) and fetching goes on
 * without a pause while batches come back full, so a backlog drains at processing speed, not at
 * polling speed. A batch is processed together (lib/inbox/process/process-event.ts), a few statements for
 * all its events; only an unexpected error (the database unreachable) fails its jobs, for pg-boss
 * to retry.
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
    async (jobs) => {
      const started = performance.now();
      const parsed = jobs.map((job) => webhookJobSchema.safeParse(job.data));
      const inboxIds = parsed.flatMap((result) => (result.success ? [result.data.inboxId] : []));
      let outcomes: ProcessOutcome[];
      try {
        outcomes = await processEvents(deps, inboxIds);
      } catch (error) {
        // Unexpected (database unreachable...): pg-boss retries the batch's jobs; their rows stay
        // pending, or are settled already and their retry skips them.
        const message = errorForLog(error);
        logger("worker", { jobs: jobs.length }).error({ error: message }, "batch failed; pg-boss retries its jobs");
        const seconds = (performance.now() - started) / 1000;
        jobs.forEach(() => recordAttempt("error", seconds));
        return jobs.map((job) => ({ id: job.id, status: "failed" as const, output: { message: message.split("\n")[0] } }));
      }
      const seconds = (performance.now() - started) / 1000;
      let next = 0;
      return jobs.map((job, index) => {
        const result = parsed[index]!;
        const log = logger("worker", { inboxId: result.success ? result.data.inboxId : undefined, jobId: job.id });
        if (!result.success) {
          log.error({ error: result.error.message }, "job data is not a webhook job");
          return { id: job.id, status: "failed" as const, output: { message: "job data is not a webhook job" } };
        }
        const outcome = outcomes[next++]!;
        recordAttempt(outcome, seconds);
        log.info({ outcome, ms: Math.round(seconds * 1000) }, "event attempt finished");
        onOutcome(outcome);
        return { id: job.id, status: "completed" as const };
      });
    },
  );
}
