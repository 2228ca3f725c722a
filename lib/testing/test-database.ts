import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { adminQuery, databaseUrl } from "./admin-database";

export type TestDatabase = { name: string; url: string; drop: () => Promise<void> };

/**
 * A fresh database for one test file, cloned from the migrated template (tables, pg-boss schema and
 * queues), so files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const name = `webhook_inbox_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${inject("templateDatabase")}`);
  return { name, url: databaseUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
