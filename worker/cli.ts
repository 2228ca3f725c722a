import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import type { PgBoss } from "pg-boss";
import { appConfig, requireDatabaseUrl, type AppConfig } from "@/lib/config/env";
import { EMBEDDED_URL_FILE, loadEnvFiles, useRunningEmbeddedDatabase } from "@/lib/config/env-files";
import { migrateDatabase } from "@/lib/db/migrate";
import { createPool, requireSessionPooling, type Pool } from "@/lib/db/pool";
import { describeZodError } from "@/lib/errors/app-error";
import { createUser, resetPassword, type CreateUserInput } from "@/lib/auth/users";
import { createPrisma, type PrismaClient } from "@/lib/db/prisma";
import { eventFilterSchema } from "@/lib/inbox/queries/event-filter";
import { replayEvents } from "@/lib/inbox/replay/replay-events";
import { runRetention } from "@/lib/inbox/retention/archive-settled-events";
import { restoreArchivedEvents, type RestoreSelector } from "@/lib/inbox/retention/restore-archived-events";
import { sweepPending } from "@/lib/inbox/process/sweep-pending";
import { archiveInboxPartition } from "@/lib/partitions/archive-inbox-partition";
import { ensureInboxPartitions } from "@/lib/partitions/ensure-inbox-partitions";
import { countStrayEvents, listInboxPartitions } from "@/lib/partitions/list-inbox-partitions";
import { restoreInboxPartition } from "@/lib/partitions/restore-inbox-partition";
import { createProducer, installQueues } from "@/lib/queue/boss";
import { isProviderName } from "@/lib/providers/registry";
import { createGatewayClients } from "@/lib/http/gateway-clients";
import { runReconciliation, type ReconcileResult } from "@/lib/reconcile/run-reconciliation";
import { listRuns } from "@/lib/reconcile/reconcile-runs";

// `npm run cli -- <command>`: operator commands. `npm run db:migrate` is `cli migrate`.

const USAGE = `usage: npm run cli -- <command> [options]

  migrate                 apply database migrations and create the queues
  replay                  put stored events back to pending and dispatch them
      --provider P          only this provider
      --status S            failed, ignored or processed (repeat or comma-separate; default failed,ignored)
      --since T --until T   received in [T, T) (ISO-8601)
      --type T              only this event type
      --dry-run             print what would be replayed, change nothing
  sweep                   re-dispatch stale pending events now
      --stale-minutes N     pending for at least N minutes (default SWEEPER_STALE_MINUTES)
  retention               archive and purge the payloads of settled events older than RETENTION_DAYS
      --dry-run             print what would be archived, change nothing
  restore                 bring archived payloads back (checksums verified)
      --id N                one event (repeat for several)
      --provider P --from D --to D   a provider's events received in [D, D] (dates, UTC, inclusive)
  partitions              list the inbox's monthly partitions (attached, archived) and stray events
  partitions:create       create the partition of a month (and move its strays out of the default partition)
      --month YYYY-MM
  partitions:archive      archive a whole partition to ARCHIVE_DIR and drop it (settled events only)
      --name webhook_inbox_pYYYYMM
  partitions:restore      bring an archived partition back (checksums verified)
      --name webhook_inbox_pYYYYMM
  reconcile               compare a gateway's list API with the inbox; ingest missed events, repair drifted payments
      --provider P          the gateway (stripe, mercadopago, asaas, pagarme, zoop; standard: stuck payments only)
      --since T --until T   this window (ISO-8601; --until defaults to now); unset, the gateway's cursor
      --dry-run             print what a run would ingest and repair, change nothing
  reconcile:runs          the latest reconciliation runs
  user:create             add a console user
      --email E --role R    R: viewer, support, finance or admin
      --name N              optional display name
      --password P          optional (12+ characters); without it one is generated and printed once
  user:reset-password     give a user a new generated password (printed once) and end their sessions
      --email E`;

type CliDeps = { config: AppConfig; pool: Pool; boss: PgBoss };

async function withQueue<T>(work: (deps: CliDeps) => Promise<T>): Promise<T> {
  const dependencies = deps();
  await dependencies.boss.start();
  try {
    return await work(dependencies);
  } finally {
    await dependencies.boss.stop({ graceful: false });
    await dependencies.pool.end();
  }
}

/** A small pool for commands that need no queue. */
async function withPool<T>(work: (dependencies: { pool: Pool; config: AppConfig }) => Promise<T>): Promise<T> {
  const config = appConfig();
  const pool = createPool(requireDatabaseUrl(config), 3, "webhook-inbox:cli", undefined, { pooler: config.databasePooler });
  try {
    return await work({ pool, config });
  } finally {
    await pool.end();
  }
}

function deps(): CliDeps {
  const config = appConfig();
  const url = requireDatabaseUrl(config);
  return { config, pool: createPool(url, 2, "webhook-inbox:cli", undefined, { pooler: config.databasePooler }), boss: createProducer(url) };
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

async function withPrisma(work: (prisma: PrismaClient) => Promise<void>): Promise<void> {
  const config = appConfig();
  const pool = createPool(requireDatabaseUrl(config), 1, "webhook-inbox:cli", undefined, { pooler: config.databasePooler });
  const prisma = createPrisma(pool);
  try {
    await work(prisma);
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}

const cliActor = () => `cli:${userInfo().username}`;

function cliTime(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new Error(`${name} must be an ISO-8601 time`);
  return time;
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

async function main(argv: string[]): Promise<number> {
  loadEnvFiles();
  const embedded = useRunningEmbeddedDatabase();
  if (embedded) console.error(`using the embedded database of the running \`npm run dev\` (${EMBEDDED_URL_FILE})`);
  const [command, ...rest] = argv;
  switch (command) {
    case "migrate": {
      requireSessionPooling(appConfig().databasePooler, "Migrating");
      const result = await migrateDatabase(requireDatabaseUrl(appConfig()), installQueues);
      console.log(`applied ${result.applied.length} migration(s); ${result.alreadyApplied.length} already applied`);
      for (const name of result.applied) console.log(`  + ${name}`);
      return 0;
    }
    case "replay": {
      const { values } = parseArgs({
        args: rest,
        options: {
          provider: { type: "string" },
          status: { type: "string", multiple: true },
          since: { type: "string" },
          until: { type: "string" },
          type: { type: "string" },
          "dry-run": { type: "boolean", default: false },
        },
      });
      const filter = eventFilterSchema.parse({
        provider: values.provider,
        statuses: values.status?.flatMap((value) => value.split(",")).map((value) => value.trim()),
        receivedFrom: values.since,
        receivedTo: values.until,
        type: values.type,
      });
      const result = await withQueue((dependencies) =>
        replayEvents(dependencies, filter, { actor: cliActor(), dryRun: values["dry-run"] }),
      );
      const perProvider = Object.entries(result.byProvider)
        .map(([provider, count]) => `${provider}: ${count}`)
        .join(", ");
      console.log(`${result.dryRun ? "would replay" : "replayed"} ${result.total} event(s)${perProvider ? ` (${perProvider})` : ""}`);
      return 0;
    }
    case "sweep": {
      const { values } = parseArgs({ args: rest, options: { "stale-minutes": { type: "string" } } });
      const staleMinutes = values["stale-minutes"] === undefined ? undefined : Number(values["stale-minutes"]);
      if (staleMinutes !== undefined && !(staleMinutes >= 0)) throw new Error("--stale-minutes must be a number >= 0");
      const result = await withQueue((dependencies) =>
        sweepPending(dependencies, staleMinutes === undefined ? {} : { staleSeconds: staleMinutes * 60 }),
      );
      console.log(result.skipped ? "another sweep is running; nothing done" : `re-dispatched ${result.dispatched} stale pending event(s)`);
      return 0;
    }
    case "retention": {
      const { values } = parseArgs({ args: rest, options: { "dry-run": { type: "boolean", default: false } } });
      requireSessionPooling(appConfig().databasePooler, "Retention");
      const result = await withPool((dependencies) => runRetention(dependencies, { dryRun: values["dry-run"] }));
      const perProvider = Object.entries(result.byProvider)
        .map(([provider, count]) => `${provider}: ${count}`)
        .join(", ");
      if (result.skipped) console.log("another retention run is in progress; nothing done");
      else {
        console.log(
          `${result.dryRun ? "would archive" : "archived and purged"} ${result.events} event(s), ${result.bytes} raw bytes, ` +
            `received before ${result.cutoff.toISOString()}${perProvider ? ` (${perProvider})` : ""}` +
            (result.dryRun ? "" : ` into ${appConfig().retention.archiveDir}`),
        );
      }
      return 0;
    }
    case "restore": {
      const { values } = parseArgs({
        args: rest,
        options: { id: { type: "string", multiple: true }, provider: { type: "string" }, from: { type: "string" }, to: { type: "string" } },
      });
      const selector = restoreSelector(values);
      const result = await withPool((dependencies) =>
        restoreArchivedEvents(dependencies, selector, { actor: `cli:${userInfo().username}` }),
      );
      console.log(`restored ${result.restored} archived event(s)`);
      return 0;
    }
    case "partitions": {
      await withPool(async ({ pool }) => {
        for (const partition of await listInboxPartitions(pool)) {
          const from = partition.from?.toISOString().slice(0, 10) ?? "(start)";
          console.log(
            `${partition.name.padEnd(24)} ${from} .. ${partition.to.toISOString().slice(0, 10)}  ${partition.state.padEnd(8)} ~${partition.rows} rows`,
          );
        }
        console.log(`${await countStrayEvents(pool)} event(s) in the default partition`);
      });
      return 0;
    }
    case "partitions:create": {
      const { values } = parseArgs({ args: rest, options: { month: { type: "string" } } });
      if (!values.month || !/^\d{4}-(0[1-9]|1[0-2])$/.test(values.month)) throw new Error("partitions:create needs --month YYYY-MM");
      const created = await withPool(({ pool }) =>
        ensureInboxPartitions(pool, { now: new Date(`${values.month}-01T00:00:00Z`), monthsAhead: 0 }),
      );
      console.log(created.length > 0 ? `created ${created.join(", ")}` : "a partition already covers that month");
      return 0;
    }
    case "partitions:archive":
    case "partitions:restore": {
      const { values } = parseArgs({ args: rest, options: { name: { type: "string" } } });
      if (!values.name) throw new Error(`${command} needs --name (see npm run cli -- partitions)`);
      const name = values.name;
      await withPool(async ({ pool, config }) => {
        const deps = { pool, archiveDir: config.retention.archiveDir };
        if (command === "partitions:restore") {
          console.log(`restored ${(await restoreInboxPartition(deps, name, { actor: cliActor() })).restored} event(s) into ${name}`);
          return;
        }
        const outcome = await archiveInboxPartition(deps, name);
        if (outcome.outcome === "archived")
          console.log(`archived ${outcome.rows} event(s) of ${name} into ${config.retention.archiveDir}/${outcome.file}`);
        else if (outcome.outcome === "unsettled") console.log(`${name} still holds pending or failed events; nothing done`);
        else console.log(`${name} is busy (its lock was not granted in time, or another run holds it); try again`);
      });
      return 0;
    }
    case "reconcile": {
      const { values } = parseArgs({
        args: rest,
        options: {
          provider: { type: "string" },
          since: { type: "string" },
          until: { type: "string" },
          "dry-run": { type: "boolean", default: false },
        },
      });
      const provider = values.provider ?? "";
      if (!isProviderName(provider)) throw new Error("reconcile needs --provider P (stripe, standard, pagarme, asaas, mercadopago, zoop)");
      const since = cliTime(values.since, "--since");
      const until = cliTime(values.until, "--until");
      if (until && !since) throw new Error("--until needs --since");
      const result = await withQueue((dependencies) =>
        runReconciliation(
          { ...dependencies, gateways: createGatewayClients(dependencies.config) },
          { provider, since, until, dryRun: values["dry-run"], trigger: "cli", actor: cliActor() },
        ),
      );
      printReconcileResult(result);
      return result.outcome === "finished" ? 0 : 1;
    }
    case "reconcile:runs": {
      const runs = await withPool(({ pool }) => listRuns(pool, 20));
      for (const run of runs) {
        console.log(
          `#${run.id} ${run.provider} ${run.status} ${run.windowStart} .. ${run.windowEnd}: listed ${run.listed}, missed ${run.missingIngested}, ` +
            `repaired ${run.repaired}, stuck refetched ${run.stuckRefetched}, errors ${run.errors}${run.lastError ? ` (${run.lastError})` : ""}`,
        );
      }
      return 0;
    }
    case "user:create": {
      const { values } = parseArgs({
        args: rest,
        options: { email: { type: "string" }, role: { type: "string" }, name: { type: "string" }, password: { type: "string" } },
      });
      await withPrisma(async (prisma) => {
        const { user, password } = await createUser(
          prisma,
          { email: values.email ?? "", role: values.role as CreateUserInput["role"], name: values.name, password: values.password },
          cliActor(),
        );
        console.log(`created ${user.role} ${user.email}${values.password ? "" : ` with password: ${password}`}`);
      });
      return 0;
    }
    case "user:reset-password": {
      const { values } = parseArgs({ args: rest, options: { email: { type: "string" } } });
      await withPrisma(async (prisma) => {
        const { user, password } = await resetPassword(prisma, values.email ?? "", cliActor());
        console.log(`new password for ${user.email}: ${password}`);
        console.log("(shown once; their sessions have been signed out)");
      });
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ZodError ? describeZodError(error, "\n") : error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
