import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** Where the running embedded database leaves its URL, so `npm run cli` finds it while `npm run dev` or `npm start` runs. */
export const EMBEDDED_URL_FILE = ".data/embedded-database-url";

export function writeEmbeddedUrl(url: string, cwd: string = process.cwd(), development = false): void {
  mkdirSync(`${cwd}/.data`, { recursive: true });
  // The second line says the database is `npm run dev`'s, whose processes run on .env.example's values.
  writeFileSync(`${cwd}/${EMBEDDED_URL_FILE}`, `${url}\n${development ? "development\n" : ""}`, { mode: 0o600 });
}

export function removeEmbeddedUrl(cwd: string = process.cwd()): void {
  rmSync(`${cwd}/${EMBEDDED_URL_FILE}`, { force: true });
}

/**
 * For the CLI: without DATABASE_URL, use the embedded database a running `npm run dev` or `npm start` started, and
 * for `npm run dev`'s the development values its web and worker run on (so a keyed hash the CLI writes is the one the
 * app computes). Returns the URL it picked up, if any.
 */
export function useRunningEmbeddedDatabase(cwd: string = process.cwd()): string | null {
  if (process.env.DATABASE_URL) return null;
  const path = `${cwd}/${EMBEDDED_URL_FILE}`;
  if (!existsSync(path)) return null;
  const [url = "", mode] = readFileSync(path, "utf8").trim().split("\n");
  if (!/^postgres(ql)?:\/\//.test(url)) return null;
  process.env.DATABASE_URL = url;
  if (mode === "development" && existsSync(`${cwd}/.env.example`)) process.loadEnvFile(`${cwd}/.env.example`);
  resetConfig();
  return url;
}
