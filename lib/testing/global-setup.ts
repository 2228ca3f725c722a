import { migrateDatabase } from "../db/migrate";
import { adminQuery, databaseUrl, TEMPLATE_DATABASE } from "./test-database";

/** Builds the migrated template database every test file clones. */
export default async function setup(): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await migrateDatabase(databaseUrl(TEMPLATE_DATABASE));
}
