import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { connectClient } from "./pool";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

// Arbitrary constant: every process applying migrations to one database queues on this lock.
const MIGRATION_LOCK_KEY = 72_310_555;

export type Migration = { name: string; sql: string; checksum: string };

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** The SQL files in Prisma's layout (`<timestamp>_<name>/migration.sql`), in name order. */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(`${dir}/${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

// The bookkeeping table is Prisma's own, with its columns, so a machine with the native engine sees
// these migrations as applied and `prisma migrate status` tells the truth.
const CREATE_LEDGER = `
  CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                  VARCHAR(36)  PRIMARY KEY,
    checksum            VARCHAR(64)  NOT NULL,
    finished_at         TIMESTAMPTZ,
    migration_name      VARCHAR(255) NOT NULL,
    logs                TEXT,
    rolled_back_at      TIMESTAMPTZ,
    started_at          TIMESTAMPTZ  NOT NULL DEFAULT now(),
    applied_steps_count INTEGER      NOT NULL DEFAULT 0
  )`;

export type MigrateResult = { applied: string[]; alreadyApplied: string[] };

/**
 * Applies pending migrations in order, each in its own transaction, under an advisory lock so
 * concurrent starts are safe. Refuses to run when an applied file was changed afterwards.
 */
export async function applyMigrations(connectionString: string, dir: string = MIGRATIONS_DIR): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  const client = await connectClient({ connectionString, application_name: "webhook-inbox:migrate" });
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await client.query(CREATE_LEDGER);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM _prisma_migrations
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    for (const name of applied.keys()) {
      if (!migrations.some((migration) => migration.name === name)) {
        throw new MigrationError(`Migration ${name} is applied in the database but missing from ${dir}.`);
      }
    }
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const recorded = applied.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied (checksum ${recorded.slice(0, 12)}… in the ` +
              `database, ${migration.checksum.slice(0, 12)}… on disk). Add a new migration instead of editing an applied one.`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES (gen_random_uuid()::text, $1, now(), $2, 1)`,
          [migration.checksum, migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/**
 * `npm run db:migrate`: our tables, then the queue's schema and queues (pg-boss's installer, passed
 * in so the database layer doesn't depend on the queue layer above it).
 */
export async function migrateDatabase(
  connectionString: string,
  installQueues: (connectionString: string) => Promise<void>,
): Promise<MigrateResult> {
  const result = await applyMigrations(connectionString);
  await installQueues(connectionString);
  return result;
}
