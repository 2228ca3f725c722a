import { requireDatabaseUrl, type AppConfig } from "../config/env";
import { migrateDatabase, type MigrateResult } from "../db/migrate";
import { requireSessionPooling } from "../db/pool";
import { installQueues } from "../jobs/install-queues";

/**
 * `npm run db:migrate` (and the launcher's start): our tables, then pg-boss's schema and every
 * queue of JOBS. Holds a session advisory lock, so never through a transaction pooler; `who` names
 * the caller in that refusal.
 */
export function migrateWithQueues(config: AppConfig, who: string): Promise<MigrateResult> {
  requireSessionPooling(config.databasePooler, who);
  return migrateDatabase(requireDatabaseUrl(config), installQueues);
}
