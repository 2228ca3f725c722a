import { z } from "zod";
import { reconcileJob } from "../../jobs/definitions/reconcile";
import { runJob } from "../../jobs/work-jobs";
import { findDriver, PROVIDER_NAMES } from "../../providers/registry";
import { listRuns } from "../../reconcile/reconcile-runs";
import type { ReconcileResult } from "../../reconcile/run-reconciliation";
import { cliActor, command, flag, option } from "./cli-command";
import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";

/** "P" for the default account, "P account A" for another. */
const whose = (result: { provider: string; account: string }) =>
  result.account === DEFAULT_ACCOUNT ? result.provider : `${result.provider} account ${result.account}`;

function printReconcileResult(result: ReconcileResult): void {
  if (result.outcome === "busy") return console.log(`a reconciliation of ${whose(result)} is already running; nothing done`);
  if (result.outcome === "unavailable") return console.log(`${whose(result)}: ${result.reason}`);
  const verb = result.dryRun ? "would ingest" : "ingested";
  console.log(
    `${whose(result)} ${result.since} .. ${result.until}${result.runId ? ` (run #${result.runId})` : ""}: listed ${result.listed} in ${result.pages} page(s); ` +
      `${verb} ${result.missingIngested} missed event(s), ${result.dryRun ? "would repair" : "repaired"} ${result.repaired} payment(s), ` +
      `refetched ${result.stuckRefetched} stuck payment(s), ${result.errors} error(s)${result.complete ? "" : " (window not finished: the next run resumes it)"}`,
  );
  if (result.lastError) console.log(`  last error: ${result.lastError}`);
  for (const finding of result.findings.slice(0, 50)) {
    console.log(
      `  ${finding.kind} ${finding.resourceId ?? "-"} ${finding.eventType ?? ""} ${finding.ours !== undefined ? `${finding.ours ?? "none"} -> ${finding.theirs}` : (finding.eventId ?? "")}`,
    );
  }
}

// The gateways reconcile can ask, from the registry: those with a list API, then those without one.
const listingGateways = PROVIDER_NAMES.filter((provider) => findDriver(provider)?.lister);
const stuckOnlyGateways = PROVIDER_NAMES.filter((provider) => !findDriver(provider)?.lister);

const time = (name: string) => z.coerce.date({ error: `${name} must be an ISO-8601 time` }).optional();

/** Reconcile's run for one gateway, now; exits 1 unless the run finished. */
export const reconcileCommand = command({
  name: "reconcile",
  summary: "compare a gateway's list API with the inbox; ingest missed events, repair drifted payments",
  options: z
    .object({
      provider: option(z.enum(PROVIDER_NAMES, { error: `reconcile needs --provider P (${PROVIDER_NAMES.join(", ")})` }), {
        arg: "P",
        help: `the gateway (${listingGateways.join(", ")}; ${stuckOnlyGateways.join(", ")}: stuck payments only)`,
      }),
      account: option(z.string().min(1).optional(), { arg: "A", help: "one of its accounts (unset: the default account)" }),
      since: option(time("--since"), { arg: "T" }),
      until: option(time("--until"), { arg: "T", help: "this window (ISO-8601; --until defaults to now); unset, the gateway's cursor" }),
      "dry-run": flag("print what a run would ingest and repair, change nothing"),
    })
    .refine(({ since, until }) => !until || since, "--until needs --since"),
  run: async (runtime, { provider, account, since, until, "dry-run": dryRun }) => {
    const {
      runs: [result],
    } = await runJob(reconcileJob, await runtime.jobDeps(), {
      provider,
      account,
      since,
      until,
      dryRun,
      trigger: "cli",
      actor: cliActor(),
    });
    printReconcileResult(result!);
    return result!.outcome === "finished" ? 0 : 1;
  },
});

export const reconcileRunsCommand = command({
  name: "reconcile:runs",
  summary: "the latest reconciliation runs",
  run: async (runtime) => {
    for (const run of await listRuns(runtime.pool(), 20)) {
      console.log(
        `#${run.id} ${whose(run)} ${run.status} ${run.windowStart} .. ${run.windowEnd}: listed ${run.listed}, missed ${run.missingIngested}, ` +
          `repaired ${run.repaired}, stuck refetched ${run.stuckRefetched}, errors ${run.errors}${run.lastError ? ` (${run.lastError})` : ""}`,
      );
    }
    return 0;
  },
});
