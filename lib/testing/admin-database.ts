import { connectClient } from "../db/pool";
import { testAdminDatabaseUrl } from "../config/process-env";

/** The URL of database `name` on the server tests and benchmarks use (TEST_DATABASE_URL). */
export function databaseUrl(name: string): string {
  const url = new URL(testAdminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement as the admin (CREATE/DROP DATABASE). */
export async function adminQuery(sql: string): Promise<void> {
  const client = await connectClient({ connectionString: testAdminDatabaseUrl() });
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
