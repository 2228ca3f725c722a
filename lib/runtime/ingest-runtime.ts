import { requireDatabaseUrl, type AppConfig } from "../config/env";
import { startAccountDirectory, type AccountDirectory } from "../gateway-accounts/account-directory";
import type { Pool } from "../db/pool";
import type { PgBoss } from "../queue/boss";
import { processPool, startProducer } from "./connections";
import { loadProcessConfig } from "./process-config";

export type IngestRuntime = { config: AppConfig; pool: Pool; boss: PgBoss; accounts: AccountDirectory; close: () => Promise<void> };

/**
 * `npm run ingest`'s dependencies: the web route's pool size, a started job producer and the gateway
 * accounts (loaded before it listens, kept current); no Prisma, no replica.
 */
export async function startIngestRuntime(): Promise<IngestRuntime> {
  const config = loadProcessConfig();
  const pool = processPool(config, "ingest", config.databasePoolMax);
  const boss = await startProducer(config);
  const accounts = startAccountDirectory(config, pool, {
    databaseUrl: requireDatabaseUrl(config),
    applicationName: "webhook-inbox:ingest-accounts",
  });
  await accounts.ready();
  return {
    config,
    pool,
    boss,
    accounts,
    close: async () => {
      await accounts.close();
      await boss.stop({ graceful: false });
      await pool.end();
    },
  };
}
