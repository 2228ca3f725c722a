import { migrateDatabase } from "@/lib/db/migrate";
import { adminQuery, databaseUrl } from "@/lib/testing/admin-database";

/** A fresh, migrated database of this name on TEST_DATABASE_URL's server, and how to drop it. */
export async function freshBenchDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  await migrateDatabase(url);
  return { url, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A database a previous run kept (`--keep`), migrated to the current schema. */
export async function keptBenchDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = databaseUrl(name);
  await migrateDatabase(url);
  return { url, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
