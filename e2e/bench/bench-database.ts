import { migrateDatabase } from "@/lib/db/migrate";
import { installQueues } from "@/lib/queue/boss";
import type { Queryable } from "@/lib/db/pool";
import { adminQuery, databaseUrl } from "@/lib/testing/admin-database";

type BenchDatabase = { url: string; drop: () => Promise<void> };

const dropDatabase = (name: string) => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

/** Database `name` on TEST_DATABASE_URL's server, and how to drop it. */
function benchDatabase(name: string): BenchDatabase {
  return { url: databaseUrl(name), drop: () => dropDatabase(name) };
}

/** A fresh, migrated database of this name on TEST_DATABASE_URL's server, and how to drop it. */
export async function freshBenchDatabase(name: string): Promise<BenchDatabase> {
  await dropDatabase(name);
  await adminQuery(`CREATE DATABASE ${name}`);
  const database = benchDatabase(name);
  await migrateDatabase(database.url, installQueues);
  return database;
}

/** A database a previous run kept (`--keep`), migrated to the current schema. */
export async function keptBenchDatabase(name: string): Promise<BenchDatabase> {
  const database = benchDatabase(name);
  await migrateDatabase(database.url, installQueues);
  return database;
}

/**
 * Runs a bulk `load` into webhook_inbox with its triggers off, then counts the hourly rollup once,
 * as its migration does for existing rows: the rollup's per-row trigger would update one counter
 * row once per loaded row, within one statement (slower with every version, past any timeout).
 */
export async function loadWithoutRollupTrigger(db: Queryable, load: () => Promise<void>): Promise<void> {
  await db.query("ALTER TABLE webhook_inbox DISABLE TRIGGER USER");
  await load();
  await db.query("ALTER TABLE webhook_inbox ENABLE TRIGGER USER");
  await db.query(
    `INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
     SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 0, count(*) FROM webhook_inbox GROUP BY 1, 2, 3`,
  );
}

/**
 * A copy of database `source` named `name` (CREATE DATABASE … TEMPLATE), and how to drop it. The
 * source must have no sessions; ones still closing get a few moments.
 */
export async function copyBenchDatabase(source: string, name: string): Promise<BenchDatabase> {
  await dropDatabase(name);
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${source}`);
      break;
    } catch (error) {
      if (attempt >= 20 || !String(error).includes("being accessed by other users")) throw error;
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  return benchDatabase(name);
}
