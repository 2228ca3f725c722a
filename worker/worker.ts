import { webhooksJob } from "@/lib/jobs/definitions/webhooks";
import { JOBS } from "@/lib/jobs/job-list";
import { workJob } from "@/lib/jobs/work-jobs";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";
import { startWorkerRuntime } from "@/lib/runtime/worker-runtime";

// `npm run worker`: takes every queue of lib/jobs/job-list.ts. Several workers may run against one
// database: pg-boss hands each job to one of them, the singleton policy keeps one job per payment
// active at a time, and the row locks in processing make that a guarantee.
const worker = await startWorkerRuntime();
const { deps, log } = worker;

// Set before any job is taken, so a signal mid-job always waits for it.
let stopping = false;
stopOnSignals(
  async (reason) => {
    stopping = true;
    await worker.stop(reason);
  },
  {
    whenLauncherGone: true,
    reportFailure: (error, reason) =>
      log.error({ reason, error: error instanceof Error ? error.message : String(error) }, "stopping failed"),
  },
);

// Each queue scheduled and subscribed as its definition says. The webhooks queue has its own
// concurrency: nothing else this process does can take its slots. A job of the first queues may
// already run while the last subscribe: a signal then stops the queue under the loop, which ends
// there while the stop finishes the jobs taken.
try {
  for (const job of JOBS) {
    if (stopping) break;
    await workJob(deps.boss, job, deps);
  }
} catch (error) {
  if (!stopping) throw error;
}

if (!stopping) {
  log.info(
    { workerId: deps.workerId, queue: webhooksJob.name, concurrency: deps.config.worker.concurrency, metricsPort: worker.metricsPort },
    "worker started",
  );
  // Under the launcher: tells it this start succeeded (a crash from now on is not a crash loop).
  process.send?.({ type: "ready" });
}
