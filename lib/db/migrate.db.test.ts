import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, databaseUrl } from "../testing/admin-database";
import { applyMigrations, MigrationError } from "./migrate";

// The migration runner on an empty database of its own, with migrations written to a temp dir.

const name = `webhook_inbox_migrate_${process.pid}`;
let dir: string;

async function write(migration: string, sql: string) {
  await mkdir(join(dir, migration), { recursive: true });
  await writeFile(join(dir, migration, "migration.sql"), sql);
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${name}`);
  dir = await mkdtemp(join(tmpdir(), "migrations-"));
  await write("20240101000000_first", "CREATE TABLE a (id int PRIMARY KEY);");
  await write("20240102000000_second", "INSERT INTO a VALUES (1);");
});
afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

describe("applyMigrations", () => {
  it("applies in order, once, even when several processes start together", async () => {
    const results = await Promise.all([1, 2, 3].map(() => applyMigrations(databaseUrl(name), dir)));
    expect(results.flatMap((result) => result.applied)).toEqual(["20240101000000_first", "20240102000000_second"]);
    expect(await query("SELECT id FROM a")).toEqual([{ id: 1 }]);
    const ledger = await query<{ migration_name: string; checksum: string }>(
      "SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name",
    );
    expect(ledger.map((row) => row.migration_name)).toEqual(["20240101000000_first", "20240102000000_second"]);
    expect(ledger[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is idempotent and applies only what is new", async () => {
    await write("20240103000000_third", "INSERT INTO a VALUES (3);");
    const result = await applyMigrations(databaseUrl(name), dir);
    expect(result).toEqual({
      applied: ["20240103000000_third"],
      alreadyApplied: ["20240101000000_first", "20240102000000_second"],
    });
    expect((await applyMigrations(databaseUrl(name), dir)).applied).toEqual([]);
  });

  it("rolls back a failing migration and records nothing for it", async () => {
    await write("20240104000000_broken", "INSERT INTO a VALUES (4); SELECT * FROM missing_table;");
    await expect(applyMigrations(databaseUrl(name), dir)).rejects.toThrow(/20240104000000_broken failed/);
    expect(await query("SELECT id FROM a WHERE id = 4")).toEqual([]);
    await write("20240104000000_broken", "INSERT INTO a VALUES (4);");
    expect((await applyMigrations(databaseUrl(name), dir)).applied).toEqual(["20240104000000_broken"]);
  });

  it("refuses to run when an applied file was edited", async () => {
    await write("20240102000000_second", "INSERT INTO a VALUES (2);");
    await expect(applyMigrations(databaseUrl(name), dir)).rejects.toThrow(MigrationError);
    await expect(applyMigrations(databaseUrl(name), dir)).rejects.toThrow(/was changed after it was applied/);
  });
});
