import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../db/migrate";
import { installQueues } from "../jobs/install-queues";
import { adminQuery, databaseUrl } from "./admin-database";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Builds the migrated template database every test file clones. Its name is unique to this run, so
 * two test runs on one server (a developer and CI, say) never drop each other's template.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = `webhook_inbox_template_${process.pid}`;
  await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${template}`);
  await migrateDatabase(databaseUrl(template), installQueues);
  project.provide("templateDatabase", template);
  return () => adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
}
