import { z } from "zod";
import { logger } from "../../observability/logger";
import { PROVIDER_NAMES } from "../../providers/registry";
import { runDueReconciliations } from "../../reconcile/run-due-reconciliations";
import { runReconciliation, type ReconcileResult } from "../../reconcile/run-reconciliation";
import type { JobDefinition } from "../job-definition";

const reconcileData = z.object({
  /** One gateway now (`cli reconcile`); unset, every gateway whose interval has passed (the schedule). */
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

/**
 * Reconciliation: every minute, the gateway accounts whose RECONCILE_INTERVAL_MINUTES_<P> has passed,
 * one after the other; or the one account asked for. A run lists at most RECONCILE_MAX_PAGES pages
 * through the rate limiter: well within the hour it may take.
 */
export const reconcileJob: JobDefinition<z.infer<typeof reconcileData>, ReconcileResult[]> = {
  name: "reconcile",
  data: reconcileData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
  schedule: () => "* * * * *",
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: async (deps, { provider, ...request }) =>
    provider ? [await runReconciliation(deps, { provider, ...request })] : runDueReconciliations(deps),
  report: (results) => {
    for (const result of results) {
      if (result.outcome === "busy" || result.outcome === "unavailable") continue;
      const level = result.outcome === "finished" ? "info" : "warn";
      logger("reconcile")[level](
        {
          provider: result.provider,
          account: result.account,
          runId: result.runId,
          listed: result.listed,
          missingIngested: result.missingIngested,
          repaired: result.repaired,
          stuckRefetched: result.stuckRefetched,
          errors: result.errors,
          lastError: result.lastError,
        },
        "reconciliation run",
      );
    }
  },
};
