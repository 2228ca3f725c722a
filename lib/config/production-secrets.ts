import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

// A production start on the embedded database (no DATABASE_URL) has no operator-provided secrets:
// the ones the app can make itself are generated on first start, kept in the data directory (owner
// read/write only) and reused. Webhook secrets come from each gateway, so they are never generated:
// a provider without one stays unconfigured (answers 503).

export const SECRETS_FILE = "secrets.env";

/** The secrets the app can generate, with how. */
const GENERATED = {
  AUTH_SECRET: () => randomBytes(48).toString("base64url"),
  PAYMENTS_API_TOKENS: () => randomBytes(32).toString("base64url"),
  HEALTH_TOKENS: () => randomBytes(32).toString("base64url"),
  METRICS_TOKEN: () => randomBytes(32).toString("base64url"),
  // Seals the database's gateway accounts' secrets: losing it loses them (the file is kept beside the database).
  ACCOUNT_SECRETS_KEY: () => randomBytes(32).toString("base64url"),
} satisfies Record<string, () => string>;

export type GeneratedSecret = keyof typeof GENERATED;

export type ProductionSecrets = {
  file: string;
  /** Values to put in the environment (variables the operator set themselves are left alone). */
  values: Record<string, string>;
  generated: string[];
  reused: string[];
};

/**
 * Reads `<dataDir>/secrets.env`, generates what is missing and not set in `env`, writes the file back
 * with mode 0600 and returns the values. Never logs a value.
 */
export function ensureProductionSecrets(dataDir: string, env: Partial<Record<GeneratedSecret, string | undefined>>): ProductionSecrets {
  return ensureGeneratedSecrets(dataDir, GENERATED, env);
}

/**
 * The generated secrets file's values for `generators` (made and stored on first use); variables set
 * in `env` are the operator's and are neither generated nor returned.
 */
export function ensureGeneratedSecrets(
  dataDir: string,
  generators: Record<string, () => string>,
  env: Record<string, string | undefined> = {},
): ProductionSecrets {
  const file = join(dataDir, SECRETS_FILE);
  // The directory keeps default permissions: as root, the embedded PostgreSQL runs as `postgres` and
  // must reach its cluster inside it. The file is what is private.
  mkdirSync(dataDir, { recursive: true });
  const stored: Record<string, string> = existsSync(file) ? ({ ...parseEnv(readFileSync(file, "utf8")) } as Record<string, string>) : {};
  const values: Record<string, string> = {};
  const generated: string[] = [];
  const reused: string[] = [];
  for (const [name, generate] of Object.entries(generators)) {
    if (env[name]) continue;
    if (stored[name]) {
      reused.push(name);
    } else {
      stored[name] = generate();
      generated.push(name);
    }
    values[name] = stored[name]!;
  }
  if (generated.length > 0) {
    const lines = Object.entries(stored).map(([name, value]) => `${name}=${value}`);
    writeFileSync(file, `# Generated on first start. Keep private; delete a line to regenerate it.\n${lines.join("\n")}\n`, {
      mode: 0o600,
    });
  }
  // Tightened even when nothing changed: a copy or an umask may have loosened it.
  if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { file, values, generated, reused };
}
