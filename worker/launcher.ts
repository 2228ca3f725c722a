import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { appConfig, childEnv, setEnv, type AppConfig } from "@/lib/config/env";
import { migrateDatabase } from "@/lib/db/migrate";
import { createPool } from "@/lib/db/pool";
import { createPrisma } from "@/lib/db/prisma";
import { announceUsers, prepareEnvironment, type LaunchMode } from "./launch-environment";

// `npm run dev` / `npm start`: one command for the whole app. Without DATABASE_URL it starts the
// embedded PostgreSQL (data under .data/), applies migrations, then runs the web server and the
// worker side by side. Ctrl-C (or SIGTERM) stops the children, then the database.

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: launcher.ts dev|start");
  process.exit(2);
}

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");

type EmbeddedInfo = { url: string; port: number; dataDir: string };

const children: { name: string; child: ChildProcess }[] = [];
let database: ChildProcess | undefined;
let shuttingDown = false;

function run(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // Each child leads its own process group, so a signal reaches its grandchildren too (next-server).
  const child = spawn(process.execPath, args, { stdio: "inherit", env, detached: true });
  child.on("exit", (code, signal) => {
    if (!shuttingDown) {
      console.error(`[launcher] ${name} exited (${signal ?? code}); stopping everything`);
      void shutdown(code === 0 ? 1 : (code ?? 1));
    }
  });
  children.push({ name, child });
  return child;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function shutdown(exitCode: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log("[launcher] stopping web and worker…");
  for (const { child } of children) signalGroup(child, "SIGTERM");
  await Promise.all(
    children.map(async ({ name, child }) => {
      if (!(await waitForExit(child, 35_000))) {
        console.error(`[launcher] ${name} did not stop in time; killing it`);
        signalGroup(child, "SIGKILL");
      }
    }),
  );
  if (database) {
    console.log("[launcher] stopping embedded PostgreSQL…");
    signalGroup(database, "SIGTERM");
    if (!(await waitForExit(database, 30_000))) signalGroup(database, "SIGKILL");
  }
  process.exit(exitCode);
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

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

/** Creates the demo admin (dev) or says how to add the first user (start). */
async function printUsersNotice(url: string, config: AppConfig, embedded: boolean) {
  const pool = createPool(url, 1, "webhook-inbox:launcher");
  const prisma = createPrisma(pool);
  try {
    await announceUsers(prisma, mode as LaunchMode, config, embedded);
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}

async function main() {
  let config = prepareEnvironment(mode as LaunchMode);
  const embeddedDatabase = !config.databaseUrl;
  if (embeddedDatabase) {
    const embedded = await startDatabaseProcess(resolve(config.dataDir, "postgres"));
    setEnv("DATABASE_URL", embedded.url);
    config = appConfig();
    console.log(`[launcher] embedded PostgreSQL on 127.0.0.1:${embedded.port} (data in ${embedded.dataDir})`);
  }
  const url = config.databaseUrl!;
  const migrations = await migrateDatabase(url);
  console.log(
    `[launcher] migrations: ${migrations.applied.length} applied, ${migrations.alreadyApplied.length} already there`,
  );
  await printUsersNotice(url, config, embeddedDatabase);
  if (shuttingDown) return;

  const env = childEnv({
    DATABASE_URL: url,
    PORT: String(config.port),
    NEXTAUTH_URL: config.publicUrl ?? `http://localhost:${config.port}`,
  });
  // Production serves through our own server, which hands Next the client's socket address.
  const webArgs = mode === "dev" ? [nextBin, "dev", "-p", String(config.port)] : ["--import", "tsx", "worker/web-server.ts"];
  run("web", webArgs, env);
  run("worker", ["--import", "tsx", "worker/main.ts"], env);
  console.log(`[launcher] web on http://localhost:${config.port} · worker started · Ctrl-C stops both`);
}

main().catch((error: unknown) => {
  console.error("[launcher] failed to start:", error instanceof Error ? error.message : error);
  void shutdown(1);
});
