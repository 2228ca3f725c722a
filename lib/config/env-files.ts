import { existsSync } from "node:fs";
import { resetConfig } from "./env";

// Kept apart from env.ts: the web bundle never reads env files (Next loads .env itself), and
// file access by a computed path in a route's import graph makes Next trace the whole project.

/**
 * Loads `.env` into process.env for variables not already set. With `developmentDefaults` (only
 * `npm run dev` and the developer tools that talk to it: simulator, benchmarks) and no DATABASE_URL,
 * `.env.example`'s development values fill what is still missing. Production never reads it.
 * Returns the files that were loaded.
 */
export function loadEnvFiles(options: { developmentDefaults?: boolean } = {}, cwd: string = process.cwd()): string[] {
  const loaded: string[] = [];
  const load = (file: string) => {
    const path = `${cwd}/${file}`;
    if (!existsSync(path)) return;
    process.loadEnvFile(path);
    loaded.push(file);
  };
  load(".env");
  if (options.developmentDefaults && !process.env.DATABASE_URL) load(".env.example");
  resetConfig();
  return loaded;
}
