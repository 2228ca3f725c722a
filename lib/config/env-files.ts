import { existsSync } from "node:fs";
import { resetConfig } from "./env";

// Kept apart from env.ts: the web bundle never reads env files (Next loads .env itself), and
// file access by a computed path in a route's import graph makes Next trace the whole project.

/**
 * Loads `.env` into process.env for variables not already set. When the database is embedded (no
 * DATABASE_URL anywhere) the app is a local trial, so `.env.example`'s development secrets fill what
 * is still missing; a deployment with its own DATABASE_URL never picks up example secrets.
 * Returns the files that were loaded.
 */
export function loadEnvFiles(cwd: string = process.cwd()): string[] {
  const loaded: string[] = [];
  const load = (file: string) => {
    const path = `${cwd}/${file}`;
    if (!existsSync(path)) return;
    process.loadEnvFile(path);
    loaded.push(file);
  };
  load(".env");
  if (!process.env.DATABASE_URL) load(".env.example");
  resetConfig();
  return loaded;
}
