import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { PgBoss } from "../queue/boss";
import { processPool, startProducer } from "./connections";
import { loadProcessConfig } from "./process-config";

export type IngestRuntime = { config: AppConfig; pool: Pool; boss: PgBoss; close: () => Promise<void> };

/** `npm run ingest`'s dependencies: the web route's pool size and a started job producer; no Prisma, no replica. */
export async function startIngestRuntime(): Promise<IngestRuntime> {
  const config = loadProcessConfig();
  const pool = processPool(config, "ingest", config.databasePoolMax);
  const boss = await startProducer(config);
  return {
    config,
    pool,
    boss,
    close: async () => {
      await boss.stop({ graceful: false });
      await pool.end();
    },
  };
}
