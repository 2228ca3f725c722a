import type { ProviderName } from "../providers/registry";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { PgBoss } from "../queue/boss";
import { QUEUES, type ReconcileRequestJob } from "../queue/queues";
import type { ReconcileResult } from "./run-reconciliation";

/** The console's answer: the run's result, or that it is still queued or running when the wait ends. */
export type RequestedReconciliation = ReconcileResult | { outcome: "waiting"; provider: ProviderName; account: string; started: boolean };

const POLL_MS = 250;

/**
 * Sends a console reconciliation to the workers and waits up to `waitMs` for its result: the
 * gateway's pages are read there, never in the web process (a list page of hundreds of MB once took
 * the console down).
 */
export async function reconcileInWorker(boss: PgBoss, request: ReconcileRequestJob, waitMs: number): Promise<RequestedReconciliation> {
  const id = await boss.send(QUEUES.reconcileRequests, request);
  if (!id) throw new Error("the reconciliation request was not queued");
  const deadline = Date.now() + waitMs;
  for (;;) {
    const job = await boss.getJobById<ReconcileRequestJob>(QUEUES.reconcileRequests, id);
    if (job?.state === "completed") return job.output as ReconcileResult;
    if (job?.state === "failed" || job?.state === "cancelled") throw new Error("the reconciliation failed in the worker (see its log)");
    if (Date.now() >= deadline)
      return {
        outcome: "waiting",
        provider: request.provider,
        account: request.account ?? DEFAULT_ACCOUNT,
        started: job?.state === "active",
      };
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}
