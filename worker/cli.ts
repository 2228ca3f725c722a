import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import type { PgBoss } from "pg-boss";
import { appConfig, requireDatabaseUrl, type AppConfig } from "@/lib/config/env";
import { EMBEDDED_URL_FILE, loadEnvFiles, useRunningEmbeddedDatabase } from "@/lib/config/env-files";
import { migrateDatabase } from "@/lib/db/migrate";
import { createPool, type Pool } from "@/lib/db/pool";
import { describeZodError } from "@/lib/http/app-error";
import { createUser, type CreateUserInput } from "@/lib/auth/users";
import { createPrisma } from "@/lib/db/prisma";
import { eventFilterSchema } from "@/lib/inbox/event-filter";
import { replayEvents } from "@/lib/inbox/replay-events";
import { sweepPending } from "@/lib/inbox/sweep-pending";
import { createProducer } from "@/lib/queue/boss";

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
  user:create             add a console user
      --email E --role R    R: viewer, support, finance or admin
      --name N              optional display name
      --password P          optional (12+ characters); without it one is generated and printed once`;

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

function deps(): CliDeps {
  const config = appConfig();
  const url = requireDatabaseUrl(config);
  return { config, pool: createPool(url, 2, "webhook-inbox:cli"), boss: createProducer(url) };
}

async function main(argv: string[]): Promise<number> {
  loadEnvFiles();
  const embedded = useRunningEmbeddedDatabase();
  if (embedded) console.error(`using the embedded database of the running \`npm run dev\` (${EMBEDDED_URL_FILE})`);
  const [command, ...rest] = argv;
  switch (command) {
    case "migrate": {
      const result = await migrateDatabase(requireDatabaseUrl(appConfig()));
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
      const actor = `cli:${userInfo().username}`;
      const result = await withQueue((dependencies) =>
        replayEvents(dependencies, filter, { actor, dryRun: values["dry-run"] }),
      );
      const perProvider = Object.entries(result.byProvider).map(([provider, count]) => `${provider}: ${count}`).join(", ");
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
    case "user:create": {
      const { values } = parseArgs({
        args: rest,
        options: { email: { type: "string" }, role: { type: "string" }, name: { type: "string" }, password: { type: "string" } },
      });
      const pool = createPool(requireDatabaseUrl(appConfig()), 1, "webhook-inbox:cli");
      const prisma = createPrisma(pool);
      try {
        const actor = `cli:${userInfo().username}`;
        const { user, password } = await createUser(prisma, { email: values.email ?? "", role: values.role as CreateUserInput["role"], name: values.name, password: values.password }, actor);
        console.log(`created ${user.role} ${user.email}${values.password ? "" : ` with password: ${password}`}`);
      } finally {
        await prisma.$disconnect();
        await pool.end();
      }
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
