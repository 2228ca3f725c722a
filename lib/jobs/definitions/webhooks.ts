import type { Job, JobResult } from "pg-boss";
import { errorForLog } from "../../errors/app-error";
import { processEvents, type ProcessOutcome } from "../../inbox/process/process-event";
import { logger } from "../../observability/logger";
import { recordAttempt } from "../../observability/metrics";
import { HEARTBEAT_SECONDS } from "../../queue/boss";
import { QUEUES, webhookJobSchema, type WebhookJob } from "../../queue/queues";
import type { BatchJobDefinition, JobDeps } from "../job-definition";

/**
 * The connections processing needs at most: a batch holds one at a time, and its events take one
 * each only when they settle one by one (a failed batch) or schedule retries, which may queue for a
 * connection; so a large concurrency doesn't open as many.
 */
export function processingConnections(concurrency: number): number {
  return Math.min(concurrency, 16);
}

/**
 * Processes a fetched batch together (lib/inbox/process/process-event.ts), a few statements for all
 * its events; only an unexpected error (the database unreachable) fails its jobs, for pg-boss to
 * retry. `onOutcome` hears each event's outcome (tests count them).
 */
export async function processWebhookJobs(
  deps: JobDeps,
  jobs: Job<unknown>[],
  onOutcome: (outcome: ProcessOutcome) => void = () => undefined,
): Promise<JobResult[]> {
  const started = performance.now();
  const parsed = jobs.map((job) => webhookJobSchema.safeParse(job.data));
  const valid = parsed.flatMap((result) => (result.success ? [result.data] : []));
  let outcomes: ProcessOutcome[];
  try {
    outcomes = await processEvents(
      deps,
      valid.map((job) => job.inboxId),
      valid.map((job) => job.receivedAt),
    );
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
}

/**
 * One job per inbox event to process. The queue has its own table (partition) and its own worker
 * concurrency: a bulkhead, so a flood on another queue can't slow event processing. pg-boss retries
 * cover infrastructure failures only (a crashed worker, an unreachable database); business retries
 * with the 10s..15m schedule are scheduled by lib/inbox/process/process-event.ts, which owns the
 * attempt count. Infrastructure retries start at 1 s and stay short (at most 30 s apart), so a job a
 * killed worker held is back within seconds; a row whose job still runs out of retries is
 * re-dispatched by the sweeper.
 */
export const webhooksJob: BatchJobDefinition<WebhookJob> = {
  name: QUEUES.webhooks,
  data: webhookJobSchema,
  queue: {
    policy: "singleton",
    partition: true,
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 30,
    expireInSeconds: 120,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: 24 * 3600,
  },
  // Up to WORKER_CONCURRENCY events in flight. Jobs are fetched in batches (one job per payment per
  // batch, by the singleton policy) and fetching goes on without a pause while batches come back
  // full, so a backlog drains at processing speed, not at polling speed. Up to four batches at once:
  // while one is parsed and decided in the worker, the others are in the database (with two, each
  // waited on the other and the database idled; docs/decisions.md has the figures).
  work: ({ worker: { concurrency } }) => {
    const pollers = concurrency < 4 ? 1 : Math.min(4, Math.max(2, Math.floor(concurrency / 16)));
    return {
      localConcurrency: pollers,
      batchSize: Math.ceil(concurrency / pollers),
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      perJobResults: true,
    };
  },
  runBatch: (deps, jobs) => processWebhookJobs(deps, jobs),
};
