import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { LaunchMode } from "./launch-environment";

// `next dev` watches the whole checkout, and the embedded PostgreSQL writes its WAL on every page
// view: a data directory inside the tree made the dev console reload itself. So `npm run dev` keeps
// its data outside it, one directory per checkout. `npm start` keeps `.data` (no watcher, and
// existing installs find their data where it was).

export const LEGACY_DATA_DIR = ".data";

export type DataDirChoice = { dataDir: string; note?: string };

/** The per-checkout directory `npm run dev` uses when DATA_DIR is unset. */
export function devDataDir(checkout: string, options: { xdgDataHome?: string; root: boolean; home: string }): string {
  const absolute = resolve(checkout);
  const name = `${basename(absolute)}-${createHash("sha256").update(absolute).digest("hex").slice(0, 8)}`;
  // As root the embedded PostgreSQL runs as `postgres`, which can't enter /root.
  const base = options.xdgDataHome || (options.root ? "/var/lib" : join(options.home, ".local", "share"));
  return join(base, "webhook-inbox", name);
}

/**
 * The launcher's data directory: DATA_DIR when set; for `start` .data; for `dev` devDataDir(),
 * moving a stopped database found in an earlier version's .data there first.
 */
export function launchDataDir(
  mode: LaunchMode,
  configured: { dataDir?: string; xdgDataHome?: string },
  cwd = process.cwd(),
): DataDirChoice {
  if (configured.dataDir) return { dataDir: resolve(cwd, configured.dataDir) };
  const legacy = resolve(cwd, LEGACY_DATA_DIR);
  if (mode === "start") return { dataDir: legacy };
  const target = devDataDir(cwd, { xdgDataHome: configured.xdgDataHome, root: process.getuid?.() === 0, home: homedir() });
  if (!existsSync(join(legacy, "postgres", "PG_VERSION")) || existsSync(target)) return { dataDir: target };
  if (existsSync(join(legacy, "postgres", "postmaster.pid"))) {
    return { dataDir: legacy, note: `the database in ${legacy} looks in use; left there (Next reloads pages while it writes)` };
  }
  try {
    mkdirSync(dirname(target), { recursive: true });
    renameSync(legacy, target);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { dataDir: legacy, note: `could not move ${legacy} to ${target} (${reason}); move it yourself or set DATA_DIR` };
  }
  return { dataDir: target, note: `moved the development database from ${legacy} to ${target}, out of the tree Next watches` };
}
