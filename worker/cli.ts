import { userInfo } from "node:os";
import { parseArgs, type ParseArgsOptionDescriptor } from "node:util";
import { ZodError } from "zod";
import { createUser, resetPassword, type CreateUserInput } from "@/lib/auth/users";
import { requireSessionPooling } from "@/lib/db/pool";
import { describeZodError } from "@/lib/errors/app-error";
import { eventFilterSchema } from "@/lib/inbox/queries/event-filter";
import { replayEvents } from "@/lib/inbox/replay/replay-events";
import { restoreArchivedEvents, type RestoreSelector } from "@/lib/inbox/retention/restore-archived-events";
import { reconcileJob } from "@/lib/jobs/definitions/reconcile";
import { retentionJob } from "@/lib/jobs/definitions/retention";
import { sweeperJob } from "@/lib/jobs/definitions/sweeper";
import { runJob } from "@/lib/jobs/work-jobs";
import { archiveInboxPartition, type PartitionArchiveOutcome } from "@/lib/inbox/partitions/archive-inbox-partition";
import { ensureInboxPartitions } from "@/lib/inbox/partitions/ensure-inbox-partitions";
import { countStrayEvents, listInboxPartitions } from "@/lib/inbox/partitions/list-inbox-partitions";
import { restoreInboxPartition } from "@/lib/inbox/partitions/restore-inbox-partition";
import { findDriver, isProviderName, PROVIDER_NAMES } from "@/lib/providers/registry";
import { listRuns } from "@/lib/reconcile/reconcile-runs";
import type { ReconcileResult } from "@/lib/reconcile/run-reconciliation";
import { openCliRuntime, type CliRuntime } from "@/lib/runtime/cli-runtime";
import { migrateWithQueues } from "@/lib/runtime/migrate-with-queues";

// `npm run cli -- <command>`: operator commands, one entry each in COMMANDS (its options, its help
// and what it runs); `npm run cli` prints the help made from them. `npm run db:migrate` is `cli migrate`.

/** A command-line option: node's parseArgs descriptor, the placeholder its help shows and its help. */
type Option = ParseArgsOptionDescriptor & {
  arg?: string;
  /** Unset: shown on one line with the options after it, up to one that has help (`--since T --until T`). */
  help?: string;
};
type Options = Record<string, Option>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O }>>["values"];

type Command = {
  name: string;
  summary: string;
  options: Options;
  /** Returns the exit code. */
  run(runtime: CliRuntime, values: Record<string, unknown>): Promise<number>;
};

function command<const O extends Options>(spec: {
  name: string;
  summary: string;
  options?: O;
  run: (runtime: CliRuntime, values: Values<O>) => Promise<number>;
}): Command {
  return { options: {}, ...spec };
}

const cliActor = () => `cli:${userInfo().username}`;

function cliTime(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new Error(`${name} must be an ISO-8601 time`);
  return time;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `--id N...` or `--provider P --from D --to D` (whole UTC days, both inclusive). */
function restoreSelector(values: { id?: string[]; provider?: string; from?: string; to?: string }): RestoreSelector {
  if (values.id?.length) {
    const ids = values.id.flatMap((value) => value.split(",")).map((value) => Number(value.trim()));
    if (!ids.every((id) => Number.isInteger(id) && id > 0)) throw new Error("--id must be a positive whole number");
    return { ids };
  }
  if (!values.provider || !values.from || !values.to || !DAY.test(values.from) || !DAY.test(values.to)) {
    throw new Error("restore needs --id N, or --provider P --from YYYY-MM-DD --to YYYY-MM-DD");
  }
  const to = new Date(`${values.to}T00:00:00Z`);
  to.setUTCDate(to.getUTCDate() + 1);
  return { provider: values.provider, from: new Date(`${values.from}T00:00:00Z`), to };
}

const perProvider = (byProvider: Record<string, number>) =>
  Object.entries(byProvider)
    .map(([provider, count]) => `${provider}: ${count}`)
    .join(", ");

function describePartitionArchive(outcome: PartitionArchiveOutcome, archiveDir: string): string {
  const { name } = outcome;
  if (outcome.outcome === "archived") return `archived ${outcome.rows} event(s) of ${name} into ${archiveDir}/${outcome.file}`;
  if (outcome.outcome === "unsettled") return `${name} still holds pending or failed events; nothing done`;
  return `${name} is busy (its lock was not granted in time, or another run holds it); try again`;
}

function printReconcileResult(result: ReconcileResult): void {
  if (result.outcome === "busy") return console.log(`a reconciliation of ${result.provider} is already running; nothing done`);
  if (result.outcome === "unavailable") return console.log(`${result.provider}: ${result.reason}`);
  const verb = result.dryRun ? "would ingest" : "ingested";
  console.log(
    `${result.provider} ${result.since} .. ${result.until}${result.runId ? ` (run #${result.runId})` : ""}: listed ${result.listed} in ${result.pages} page(s); ` +
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

const partitionName = { name: { type: "string", arg: "webhook_inbox_pYYYYMM" } } as const;

const COMMANDS: Command[] = [
  command({
    name: "migrate",
    summary: "apply database migrations and create the queues",
    run: async ({ config }) => {
      const result = await migrateWithQueues(config, "Migrating");
      console.log(`applied ${result.applied.length} migration(s); ${result.alreadyApplied.length} already applied`);
      for (const name of result.applied) console.log(`  + ${name}`);
      return 0;
    },
  }),
  command({
    name: "replay",
    summary: "put stored events back to pending and dispatch them",
    options: {
      provider: { type: "string", arg: "P", help: "only this provider" },
      status: {
        type: "string",
        multiple: true,
        arg: "S",
        help: "failed, ignored or processed (repeat or comma-separate; default failed,ignored)",
      },
      since: { type: "string", arg: "T" },
      until: { type: "string", arg: "T", help: "received in [T, T) (ISO-8601)" },
      type: { type: "string", arg: "T", help: "only this event type" },
      "dry-run": { type: "boolean", default: false, help: "print what would be replayed, change nothing" },
    },
    run: async (runtime, values) => {
      const filter = eventFilterSchema.parse({
        provider: values.provider,
        statuses: values.status?.flatMap((value) => value.split(",")).map((value) => value.trim()),
        receivedFrom: values.since,
        receivedTo: values.until,
        type: values.type,
      });
      const deps = { pool: runtime.pool(), boss: await runtime.boss(), config: runtime.config };
      const result = await replayEvents(deps, filter, { actor: cliActor(), dryRun: values["dry-run"] });
      const providers = perProvider(result.byProvider);
      console.log(`${result.dryRun ? "would replay" : "replayed"} ${result.total} event(s)${providers ? ` (${providers})` : ""}`);
      return 0;
    },
  }),
  command({
    name: "sweep",
    summary: "re-dispatch stale pending events now",
    options: {
      "stale-minutes": { type: "string", arg: "N", help: "pending for at least N minutes (default SWEEPER_STALE_MINUTES)" },
    },
    run: async (runtime, values) => {
      const staleMinutes = values["stale-minutes"] === undefined ? undefined : Number(values["stale-minutes"]);
      if (staleMinutes !== undefined && !(staleMinutes >= 0)) throw new Error("--stale-minutes must be a number >= 0");
      const result = await runJob(
        sweeperJob,
        await runtime.jobDeps(),
        staleMinutes === undefined ? {} : { staleSeconds: staleMinutes * 60 },
      );
      console.log(result.skipped ? "another sweep is running; nothing done" : `re-dispatched ${result.dispatched} stale pending event(s)`);
      return 0;
    },
  }),
  command({
    name: "retention",
    summary: "archive and purge the payloads of settled events older than RETENTION_DAYS",
    options: { "dry-run": { type: "boolean", default: false, help: "print what would be archived, change nothing" } },
    run: async (runtime, values) => {
      // Its run lock is a session advisory lock.
      requireSessionPooling(runtime.config.databasePooler, "Retention");
      const { archiveDir } = runtime.config.retention;
      const result = await runJob(retentionJob, await runtime.jobDeps(), { dryRun: values["dry-run"] });
      const providers = perProvider(result.byProvider);
      if (result.skipped) console.log("another retention run is in progress; nothing done");
      else {
        console.log(
          `${result.dryRun ? "would archive" : "archived and purged"} ${result.events} event(s), ${result.bytes} raw bytes, ` +
            `received before ${result.cutoff.toISOString()}${providers ? ` (${providers})` : ""}` +
            (result.dryRun ? "" : ` into ${archiveDir}`),
        );
      }
      for (const outcome of result.partitions) console.log(describePartitionArchive(outcome, archiveDir));
      return 0;
    },
  }),
  command({
    name: "restore",
    summary: "bring archived payloads back (checksums verified)",
    options: {
      id: { type: "string", multiple: true, arg: "N", help: "one event (repeat for several)" },
      provider: { type: "string", arg: "P" },
      from: { type: "string", arg: "D" },
      to: { type: "string", arg: "D", help: "a provider's events received in [D, D] (dates, UTC, inclusive)" },
    },
    run: async (runtime, values) => {
      const selector = restoreSelector(values);
      const result = await restoreArchivedEvents({ pool: runtime.pool(), config: runtime.config }, selector, { actor: cliActor() });
      console.log(`restored ${result.restored} archived event(s)`);
      return 0;
    },
  }),
  command({
    name: "partitions",
    summary: "list the inbox's monthly partitions (attached, archived) and stray events",
    run: async (runtime) => {
      const pool = runtime.pool();
      for (const partition of await listInboxPartitions(pool)) {
        const from = partition.from?.toISOString().slice(0, 10) ?? "(start)";
        console.log(
          `${partition.name.padEnd(24)} ${from} .. ${partition.to.toISOString().slice(0, 10)}  ${partition.state.padEnd(8)} ~${partition.rows} rows`,
        );
      }
      console.log(`${await countStrayEvents(pool)} event(s) in the default partition`);
      return 0;
    },
  }),
  command({
    name: "partitions:create",
    summary: "create the partition of a month (and move its strays out of the default partition)",
    options: { month: { type: "string", arg: "YYYY-MM" } },
    run: async (runtime, values) => {
      if (!values.month || !/^\d{4}-(0[1-9]|1[0-2])$/.test(values.month)) throw new Error("partitions:create needs --month YYYY-MM");
      const created = await ensureInboxPartitions(runtime.pool(), { now: new Date(`${values.month}-01T00:00:00Z`), monthsAhead: 0 });
      console.log(created.length > 0 ? `created ${created.join(", ")}` : "a partition already covers that month");
      return 0;
    },
  }),
  command({
    name: "partitions:archive",
    summary: "archive a whole partition to ARCHIVE_DIR and drop it (settled events only)",
    options: partitionName,
    run: async (runtime, values) => {
      if (!values.name) throw new Error("partitions:archive needs --name (see npm run cli -- partitions)");
      const { archiveDir } = runtime.config.retention;
      console.log(describePartitionArchive(await archiveInboxPartition({ pool: runtime.pool(), archiveDir }, values.name), archiveDir));
      return 0;
    },
  }),
  command({
    name: "partitions:restore",
    summary: "bring an archived partition back (checksums verified)",
    options: partitionName,
    run: async (runtime, values) => {
      if (!values.name) throw new Error("partitions:restore needs --name (see npm run cli -- partitions)");
      const deps = { pool: runtime.pool(), archiveDir: runtime.config.retention.archiveDir };
      const { restored } = await restoreInboxPartition(deps, values.name, { actor: cliActor() });
      console.log(`restored ${restored} event(s) into ${values.name}`);
      return 0;
    },
  }),
  command({
    name: "reconcile",
    summary: "compare a gateway's list API with the inbox; ingest missed events, repair drifted payments",
    options: {
      provider: {
        type: "string",
        arg: "P",
        help: `the gateway (${listingGateways.join(", ")}; ${stuckOnlyGateways.join(", ")}: stuck payments only)`,
      },
      since: { type: "string", arg: "T" },
      until: { type: "string", arg: "T", help: "this window (ISO-8601; --until defaults to now); unset, the gateway's cursor" },
      "dry-run": { type: "boolean", default: false, help: "print what a run would ingest and repair, change nothing" },
    },
    run: async (runtime, values) => {
      const provider = values.provider ?? "";
      if (!isProviderName(provider)) throw new Error(`reconcile needs --provider P (${PROVIDER_NAMES.join(", ")})`);
      const since = cliTime(values.since, "--since");
      const until = cliTime(values.until, "--until");
      if (until && !since) throw new Error("--until needs --since");
      const [result] = await runJob(reconcileJob, await runtime.jobDeps(), {
        provider,
        since,
        until,
        dryRun: values["dry-run"],
        trigger: "cli",
        actor: cliActor(),
      });
      printReconcileResult(result!);
      return result!.outcome === "finished" ? 0 : 1;
    },
  }),
  command({
    name: "reconcile:runs",
    summary: "the latest reconciliation runs",
    run: async (runtime) => {
      for (const run of await listRuns(runtime.pool(), 20)) {
        console.log(
          `#${run.id} ${run.provider} ${run.status} ${run.windowStart} .. ${run.windowEnd}: listed ${run.listed}, missed ${run.missingIngested}, ` +
            `repaired ${run.repaired}, stuck refetched ${run.stuckRefetched}, errors ${run.errors}${run.lastError ? ` (${run.lastError})` : ""}`,
        );
      }
      return 0;
    },
  }),
  command({
    name: "user:create",
    summary: "add a console user",
    options: {
      email: { type: "string", arg: "E" },
      role: { type: "string", arg: "R", help: "R: viewer, support, finance or admin" },
      name: { type: "string", arg: "N", help: "optional display name" },
      password: { type: "string", arg: "P", help: "optional (12+ characters); without it one is generated and printed once" },
    },
    run: async (runtime, values) => {
      const { user, password } = await createUser(
        runtime.prisma(),
        { email: values.email ?? "", role: values.role as CreateUserInput["role"], name: values.name, password: values.password },
        cliActor(),
      );
      console.log(`created ${user.role} ${user.email}${values.password ? "" : ` with password: ${password}`}`);
      return 0;
    },
  }),
  command({
    name: "user:reset-password",
    summary: "give a user a new generated password (printed once) and end their sessions",
    options: { email: { type: "string", arg: "E" } },
    run: async (runtime, values) => {
      const { user, password } = await resetPassword(runtime.prisma(), values.email ?? "", cliActor());
      console.log(`new password for ${user.email}: ${password}`);
      console.log("(shown once; their sessions have been signed out)");
      return 0;
    },
  }),
];

/** The help, made from COMMANDS: each command with its summary, then its options. */
function usage(): string {
  const lines = ["usage: npm run cli -- <command> [options]", ""];
  const column = (text: string, width: number) => (text.length < width ? text.padEnd(width) : `${text}   `);
  for (const { name, summary, options } of COMMANDS) {
    lines.push(`  ${column(name, 24)}${summary}`);
    let flags: string[] = [];
    for (const [option, { type, arg, help }] of Object.entries(options)) {
      flags.push(type === "string" ? `--${option} ${arg ?? "V"}` : `--${option}`);
      if (help === undefined) continue;
      lines.push(`      ${column(flags.join(" "), 22)}${help}`);
      flags = [];
    }
    if (flags.length > 0) lines.push(`      ${flags.join(" ")}`);
  }
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const found = COMMANDS.find((entry) => entry.name === name);
  if (!found) {
    console.error(usage());
    return 2;
  }
  // Commands without options ignore what follows them; the others refuse an unknown option.
  const options = Object.fromEntries(
    Object.entries(found.options).map(([option, { arg: _arg, help: _help, ...descriptor }]) => [option, descriptor]),
  );
  const values = Object.keys(options).length > 0 ? parseArgs({ args: rest, options }).values : {};
  const runtime = openCliRuntime((urlFile) => console.error(`using the embedded database of the running \`npm run dev\` (${urlFile})`));
  try {
    return await found.run(runtime, values);
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ZodError ? describeZodError(error, "\n") : error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
