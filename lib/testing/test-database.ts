import { randomBytes } from "node:crypto";
import { relative } from "node:path";
import { expect, inject } from "vitest";
import { adminQuery, databaseUrl } from "./admin-database";

export type TestDatabase = { name: string; url: string; drop: () => Promise<void> };

/**
 * A fresh database for one test file, cloned from the migrated template (tables, pg-boss schema and
 * queues), so files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const template = inject("templateDatabase");
  if (!template) {
    // Only the integration suite (and the browser suite) build the template: see vitest.config.ts.
    throw new Error(
      `${relative(process.cwd(), expect.getState().testPath ?? "this file")} uses PostgreSQL but runs in the unit suite, which has none: name it *.db.test.ts`,
    );
  }
  const name = `webhook_inbox_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  return { name, url: databaseUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
