import { randomBytes } from "node:crypto";
import pg from "pg";
import { testAdminDatabaseUrl } from "../config/env";

export const TEMPLATE_DATABASE = "webhook_inbox_test_template";

export function databaseUrl(name: string): string {
  const url = new URL(testAdminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testAdminDatabaseUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export type TestDatabase = { name: string; url: string; drop: () => Promise<void> };

/**
 * A fresh database for one test file, cloned from the migrated template (tables, pg-boss schema and
 * queues), so files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const name = `webhook_inbox_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  return { name, url: databaseUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
