import { migrateDatabase } from "@/lib/db/migrate";
import { installQueues } from "@/lib/jobs/install-queues";
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

// Each rolled-up table's count from scratch, as its migration does for existing rows.
const RECOUNT = {
  webhook_inbox: `INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
                  SELECT date_trunc('hour', received_at, 'UTC'), provider, status, 0, count(*) FROM webhook_inbox GROUP BY 1, 2, 3`,
  payments: `INSERT INTO payment_hourly_totals (hour, provider, status, currency, slot, payments, amount, refunded)
             SELECT date_trunc('hour', created_at, 'UTC'), provider, status, COALESCE(currency, ''), 0, count(*), COALESCE(sum(amount), 0), sum(amount_refunded)
               FROM payments GROUP BY 1, 2, 3, 4`,
};

/**
 * Runs a bulk `load` into `table` with its triggers off, then counts its hourly rollup once: the
 * rollup's per-row trigger would update one counter row once per loaded row, within one statement
 * (slower with every version, past any timeout).
 */
export async function loadWithoutRollupTrigger(
  db: Queryable,
  load: () => Promise<void>,
  table: keyof typeof RECOUNT = "webhook_inbox",
): Promise<void> {
  await db.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
  await load();
  await db.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
  await db.query(RECOUNT[table]);
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

/**
 * Turns a migrated database's partitioned inbox back into one plain table with the same columns,
 * indexes and triggers (the baseline the partitioned schema is compared with in the same run). The
 * dedupe ledger stays, so the code under test is the same and only partitioning differs; the
 * partition catalog stays too, so a worker's "create the months ahead" finds them and does nothing.
 */
export async function flattenInbox(db: Queryable): Promise<void> {
  await db.query(`
    DO $$
    DECLARE tg record;
    BEGIN
      CREATE TABLE webhook_inbox_flat (LIKE webhook_inbox INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES);
      INSERT INTO webhook_inbox_flat SELECT * FROM webhook_inbox;
      CREATE TEMPORARY TABLE flat_triggers ON COMMIT DROP AS
        SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE tgrelid = 'webhook_inbox'::regclass AND NOT tgisinternal;
      ALTER SEQUENCE webhook_inbox_id_seq OWNED BY NONE;
      DROP TABLE webhook_inbox;
      ALTER TABLE webhook_inbox_flat RENAME TO webhook_inbox;
      ALTER SEQUENCE webhook_inbox_id_seq OWNED BY webhook_inbox.id;
      FOR tg IN SELECT definition FROM flat_triggers LOOP EXECUTE tg.definition; END LOOP;
    END $$`);
}
