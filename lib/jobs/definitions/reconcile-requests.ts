import { QUEUES, reconcileRequestSchema, type ReconcileRequestJob } from "../../queue/queues";
import { runReconciliation, type ReconcileResult } from "../../reconcile/run-reconciliation";
import type { JobDefinition } from "../job-definition";

/**
 * A preview or a run asked for in the console (lib/reconcile/request-reconciliation), done here with
 * the result kept as the job's output. Its own queue, so it doesn't wait behind the schedule's runs.
 */
export const reconcileRequestJob: JobDefinition<ReconcileRequestJob, ReconcileResult> = {
  name: QUEUES.reconcileRequests,
  data: reconcileRequestSchema,
  queue: { policy: "standard", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 1 }),
  run: (deps, request) => runReconciliation(deps, { ...request, trigger: "console" }),
  keepsResult: true,
};
