import { z } from "zod";
import { logger } from "../../observability/logger";
import { PROVIDER_NAMES } from "../../providers/registry";
import { dueReconciliations } from "../../reconcile/run-due-reconciliations";
import { runReconciliation, type ReconcileResult } from "../../reconcile/run-reconciliation";
import type { JobDefinition } from "../job-definition";
import { enqueueAccountRuns, reportReconciliations } from "./reconcile-accounts";

const reconcileData = z.object({
  /** One gateway now (`cli reconcile`); unset, every account whose interval has passed (the schedule). */
  provider: z.enum(PROVIDER_NAMES).optional(),
  /** With a provider: which of its accounts (unset: the default account). */
  account: z.string().min(1).max(200).optional(),
  /** With a provider: an explicit window, else the gateway's cursor. */
  since: z.coerce.date().optional(),
  until: z.coerce.date().optional(),
  dryRun: z.boolean().default(false),
  /** With a provider: who asked, recorded on the run. */
  trigger: z.enum(["cli", "console"]).default("cli"),
  actor: z.string().nullable().default(null),
});

/** `runs`: the one run asked for; `enqueued`: the due accounts the schedule added a job for (not one already queued). */
export type ReconcileJobResult = { runs: ReconcileResult[]; enqueued: number };

/**
 * Reconciliation: every minute, the schedule enqueues one `reconcile-account` job per gateway account
 * whose RECONCILE_INTERVAL_MINUTES_<P> has passed (worked side by side, RECONCILE_CONCURRENCY per
 * gateway); or it runs the one account asked for (`cli reconcile`). A run lists at most
 * RECONCILE_MAX_PAGES pages through the rate limiter: well within the hour it may take.
 */
export const reconcileJob: JobDefinition<z.infer<typeof reconcileData>, ReconcileJobResult> = {
  name: "reconcile",
  data: reconcileData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
  schedule: () => "* * * * *",
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: async (deps, { provider, ...request }) => {
    if (provider) return { runs: [await runReconciliation(deps, { provider, ...request })], enqueued: 0 };
    return { runs: [], enqueued: await enqueueAccountRuns(deps.boss, await dueReconciliations(deps)) };
  },
  report: ({ runs, enqueued }) => {
    if (enqueued > 0) logger("reconcile").info({ accounts: enqueued }, "scheduled reconciliation runs enqueued");
    reportReconciliations(runs);
  },
};
