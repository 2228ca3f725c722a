import { appConfig, type AppConfig } from "../config/env";
import { EMBEDDED_URL_FILE, loadEnvFiles, useRunningEmbeddedDatabase } from "../config/env-files";
import { configureLogger } from "../observability/logger";

// Kept apart from connections.ts: the web bundle never reads env files (Next loads .env itself).

/**
 * A node process's configuration: `.env` loaded for variables not already set (the launcher sets
 * them for its children), validated once (a ConfigError names what is wrong), the logger set from it.
 * With `devDatabase` (the CLI), no DATABASE_URL means the embedded database of a running `npm run
 * dev`, if there is one; `devDatabase` hears where its URL came from.
 */
export function loadProcessConfig(options: { devDatabase?: (urlFile: string) => void } = {}): AppConfig {
  loadEnvFiles();
  if (options.devDatabase && useRunningEmbeddedDatabase()) options.devDatabase(EMBEDDED_URL_FILE);
  const config = appConfig();
  configureLogger({ level: config.logLevel, format: config.logFormat });
  return config;
}
