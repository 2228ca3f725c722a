import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { appConfig } from "@/lib/config/env";
import { childEnv, setEnv } from "@/lib/config/process-env";
import { withPrisma } from "@/lib/runtime/connections";
import { migrateWithQueues } from "@/lib/runtime/migrate-with-queues";
import { signalGroup, superviseProcess, waitForExit, type SupervisedProcess } from "@/lib/runtime/supervise-process";
import { announceUsers, prepareEnvironment, productionWebArgs, type LaunchMode } from "@/lib/runtime/launch-environment";

// `npm run dev` / `npm start`: one command for the whole app. Without DATABASE_URL it starts the
// embedded PostgreSQL (data in DATA_DIR, lib/runtime/data-dir.ts), applies migrations, then runs the web server and the
// worker side by side, each restarted with backoff if it dies (lib/runtime/supervise-process.ts).
// Ctrl-C (or SIGTERM) stops the children, then the database.

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: launcher.ts dev|start");
  process.exit(2);
}

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");

type EmbeddedInfo = { url: string; port: number; dataDir: string };

const children: SupervisedProcess[] = [];
let database: ChildProcess | undefined;
let shuttingDown = false;

function run(name: string, args: string[], env: NodeJS.ProcessEnv, ipc = false): void {
  children.push(superviseProcess({ name, args, env, ipc }));
}

async function shutdown(exitCode: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log("[launcher] stopping web and worker…");
  await Promise.all(children.map((child) => child.stop(35_000)));
  if (database) {
    console.log("[launcher] stopping embedded PostgreSQL…");
    signalGroup(database, "SIGTERM");
    if (!(await waitForExit(database, 30_000))) signalGroup(database, "SIGKILL");
  }
  process.exit(exitCode);
}

function shutdownNow(exitCode: number) {
  shutdown(exitCode).catch((error: unknown) => {
    console.error("[launcher] shutdown failed:", error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

/** Starts the embedded database in its own process group (see worker/embedded-database.ts). */
function startDatabaseProcess(dataDir: string): Promise<EmbeddedInfo> {
  const child = spawn(process.execPath, ["--import", "tsx", "worker/embedded-database.ts", dataDir], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    detached: true,
  });
  database = child;
  return new Promise((done, fail) => {
    child.once("message", (message) => done(message as EmbeddedInfo));
    child.once("exit", (code) => fail(new Error(`embedded PostgreSQL exited during start (${code})`)));
  });
}

process.on("SIGINT", () => shutdownNow(0));
process.on("SIGTERM", () => shutdownNow(0));

async function main() {
  let config = prepareEnvironment(mode as LaunchMode);
  const embeddedDatabase = !config.databaseUrl;
  if (embeddedDatabase) {
    const embedded = await startDatabaseProcess(resolve(config.dataDir!, "postgres"));
    setEnv("DATABASE_URL", embedded.url);
    config = appConfig();
    console.log(`[launcher] embedded PostgreSQL on 127.0.0.1:${embedded.port} (data in ${embedded.dataDir})`);
  }
  const url = config.databaseUrl!;
  // It migrates and runs a worker, both of which hold session locks; the web and ingest processes
  // alone can run behind transaction pooling (docs/scaling.md).
  const migrations = await migrateWithQueues(config, "`npm start` (migrations and a worker)");
  console.log(`[launcher] migrations: ${migrations.applied.length} applied, ${migrations.alreadyApplied.length} already there`);
  // The demo admin (dev) or how to add the first user (start).
  await withPrisma(config, "launcher", (prisma) => announceUsers(prisma, mode as LaunchMode, config, embeddedDatabase));
  if (shuttingDown) return;

  const env = childEnv({
    DATABASE_URL: url,
    PORT: String(config.port),
    NEXTAUTH_URL: config.publicUrl ?? `http://localhost:${config.port}`,
    LOG_FORMAT: config.logFormat ?? (mode === "dev" ? "pretty" : "json"),
  });
  const webArgs = mode === "dev" ? [nextBin, "dev", "-p", String(config.port)] : productionWebArgs(config.webHeapLimitMb);
  // Separate bulkheads: each is restarted on its own if it dies; neither stops the other.
  run("web", webArgs, env);
  run("worker", ["--import", "tsx", "worker/worker.ts"], env, true);
  console.log(`[launcher] web on http://localhost:${config.port} · worker started · Ctrl-C stops both`);
}

main().catch((error: unknown) => {
  console.error("[launcher] failed to start:", error instanceof Error ? error.message : error);
  shutdownNow(1);
});
