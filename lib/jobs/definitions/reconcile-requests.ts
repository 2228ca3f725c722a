import { z } from "zod";
import type { PgBoss } from "../../queue/boss";
import { PROVIDER_NAMES, type ProviderName } from "../../providers/registry";
import { runReconciliation, type ReconcileResult } from "../../reconcile/run-reconciliation";
import type { JobDefinition } from "../job-definition";

const requestData = z.object({
  provider: z.enum(PROVIDER_NAMES),
  since: z.coerce.date().optional(),
  until: z.coerce.date().optional(),
  dryRun: z.boolean(),
  actor: z.string(),
});
type ReconcileRequestData = z.infer<typeof requestData>;

/**
 * A preview or a run asked for in the console, done by a worker: the gateway's pages are read
 * there, not in the web process (a list page of hundreds of MB once took the console down), and the
 * result comes back as the job's output. Its own queue, so it doesn't wait behind the schedule's runs.
 */
export const reconcileRequestJob: JobDefinition<ReconcileRequestData, ReconcileResult> = {
  name: "reconcile-requests",
  data: requestData,
  queue: { policy: "standard", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 1 }),
  run: (deps, request) => runReconciliation(deps, { ...request, trigger: "console" }),
  keepsResult: true,
};

/** The console's answer: the run's result, or that it is still queued or running when the wait ends. */
export type RequestedReconciliation = ReconcileResult | { outcome: "waiting"; provider: ProviderName; started: boolean };

const POLL_MS = 250;

/** Sends a console reconciliation to the workers and waits up to `waitMs` for its result. */
export async function reconcileInWorker(boss: PgBoss, request: ReconcileRequestData, waitMs: number): Promise<RequestedReconciliation> {
  const id = await boss.send(reconcileRequestJob.name, request);
  if (!id) throw new Error("the reconciliation request was not queued");
  const deadline = Date.now() + waitMs;
  for (;;) {
    const job = await boss.getJobById<ReconcileRequestData>(reconcileRequestJob.name, id);
    if (job?.state === "completed") return job.output as ReconcileResult;
    if (job?.state === "failed" || job?.state === "cancelled") throw new Error("the reconciliation failed in the worker (see its log)");
    if (Date.now() >= deadline) return { outcome: "waiting", provider: request.provider, started: job?.state === "active" };
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}
