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
stopOnSignals(worker.stop, {
  whenLauncherGone: true,
  reportFailure: (error, reason) => log.error({ reason, error: error instanceof Error ? error.message : String(error) }, "stopping failed"),
});

// Each queue scheduled and subscribed as its definition says. The webhooks queue has its own
// concurrency: nothing else this process does can take its slots.
for (const job of JOBS) await workJob(deps.boss, job, deps);

log.info(
  { workerId: deps.workerId, queue: webhooksJob.name, concurrency: deps.config.worker.concurrency, metricsPort: worker.metricsPort },
  "worker started",
);
// Under the launcher: tells it this start succeeded (a crash from now on is not a crash loop).
process.send?.({ type: "ready" });
