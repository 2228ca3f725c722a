import { z } from "zod";
import type { JobInsert } from "pg-boss";
import { PROVIDER_NAMES } from "../../providers/registry";
import type { ReconcilableAccount } from "../../reconcile/run-due-reconciliations";
import { runReconciliation, type ReconcileResult } from "../../reconcile/run-reconciliation";
import type { PgBoss } from "../../queue/boss";
import { logger } from "../../observability/logger";
import type { JobDefinition } from "../job-definition";

/** Logs each run that ran (one busy elsewhere, or with no access, says nothing). */
export function reportReconciliations(results: ReconcileResult[]): void {
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
}

const accountData = z.object({ provider: z.enum(PROVIDER_NAMES), account: z.string().min(1).max(200) });

// How many scheduled runs one worker takes at once, of any gateways (each holds a connection for its
// lock); RECONCILE_CONCURRENCY bounds each gateway's among them.
const RUNS_PER_WORKER = 4;

/**
 * One account's scheduled reconciliation run, enqueued by the schedule (`reconcile`) for each due
 * account. At most one queued or running per account (exclusive on its key); grouped by gateway, so
 * a worker runs at most RECONCILE_CONCURRENCY of one gateway's at once: they share its rate limiter
 * (REFETCH_RATE_PER_SECOND, per gateway and per worker process, as this bound is), and one gateway's
 * backlog never holds up another's. pg-boss's database-wide group limit is not used: it counts the
 * running jobs as each fetch starts, so fetches at the same moment can pass it together.
 */
export const reconcileAccountJob: JobDefinition<z.infer<typeof accountData>, ReconcileResult> = {
  name: "reconcile-account",
  data: accountData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
  work: (config) => ({
    localConcurrency: Math.max(RUNS_PER_WORKER, config.reconcile.concurrency),
    localGroupConcurrency: config.reconcile.concurrency,
    // pg-boss's shortest: a slot fetches again at once after a run longer than this, else waits for
    // it, so short runs (nothing to find) go at most 2 a second per slot (docs/benchmarks.md).
    pollingIntervalSeconds: 0.5,
  }),
  run: (deps, { provider, account }) => runReconciliation(deps, { provider, account, trigger: "schedule" }),
  report: (result) => reportReconciliations([result]),
};

/** One job per due account (an account already queued or running is skipped by its key): how many were added. */
export async function enqueueAccountRuns(boss: PgBoss, due: ReconcilableAccount[]): Promise<number> {
  if (due.length === 0) return 0;
  const jobs: JobInsert<z.infer<typeof accountData>>[] = due.map(({ provider, account }) => ({
    data: { provider, account },
    singletonKey: `${provider}/${account}`,
    group: { id: provider },
  }));
  return (await boss.insert(reconcileAccountJob.name, jobs, { returnId: true }))?.length ?? 0;
}
