import { ensureDemoAdmin } from "@/lib/auth/users";
import { appConfig, ConfigError, type AppConfig } from "@/lib/config/env";
import { setEnv } from "@/lib/config/process-env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { apiTokenEntry } from "@/lib/config/api-tokens";
import { ensureProductionSecrets, type GeneratedSecret } from "@/lib/config/production-secrets";
import type { PrismaClient } from "@/lib/db/prisma";
import { launchDataDir } from "./data-dir";

// What `npm run dev` and `npm start` differ in, kept out of the launcher's process handling.
// dev: development values from .env.example, a demo admin. start: production; never a development
// value (loadConfig refuses them), secrets generated into the data directory when the database is
// embedded, users created with the CLI.

export type LaunchMode = "dev" | "start";

/** The operator's own values of the secrets a production start generates: those are never replaced. */
export function operatorSecrets(config: AppConfig): Record<GeneratedSecret, string | undefined> {
  return {
    AUTH_SECRET: config.authSecret,
    PAYMENTS_API_TOKENS: config.paymentsApiTokens.map(apiTokenEntry).join(","),
    HEALTH_TOKENS: config.healthTokens.join(","),
    METRICS_TOKEN: config.metricsToken,
    ACCOUNT_SECRETS_KEY: config.gatewayAccounts.secretKeys.join(",") || undefined,
  };
}

/** Loads the environment for this mode and validates it; throws ConfigError naming what is wrong. */
export function prepareEnvironment(mode: LaunchMode): AppConfig {
  setEnv("NODE_ENV", mode === "dev" ? "development" : "production");
  const loaded = loadEnvFiles({ developmentDefaults: mode === "dev" });
  if (loaded.includes(".env.example")) {
    console.log("[launcher] no DATABASE_URL: local trial mode, development secrets from .env.example");
  }
  const data = launchDataDir(mode, appConfig());
  if (data.note) console.log(`[launcher] ${data.note}`);
  // Its children (web, worker) see the same directory.
  setEnv("DATA_DIR", data.dataDir);
  if (mode === "start") {
    const initial = appConfig();
    if (initial.databaseUrl) {
      if (!initial.authSecret) {
        throw new ConfigError("Invalid configuration:\n  AUTH_SECRET: required in production (32+ random characters)");
      }
    } else {
      const secrets = ensureProductionSecrets(data.dataDir, operatorSecrets(initial));
      for (const [name, value] of Object.entries(secrets.values)) setEnv(name, value);
      const what = [
        secrets.generated.length ? `generated ${secrets.generated.join(", ")}` : "",
        secrets.reused.length ? `reused ${secrets.reused.join(", ")}` : "",
      ].filter(Boolean);
      if (what.length) console.log(`[launcher] production secrets: ${what.join("; ")} (in ${secrets.file}, mode 0600)`);
    }
  }
  return appConfig();
}

/** dev: the demo admin on an empty database (password printed once). start: how to add the first user. */
export async function announceUsers(prisma: PrismaClient, mode: LaunchMode, config: AppConfig, embedded: boolean): Promise<void> {
  if (mode === "dev") {
    const admin = await ensureDemoAdmin(prisma, config.demoAdminEmail);
    if (!admin) return;
    console.log("[launcher] ──────────────────────────────────────────────────────────────");
    console.log(`[launcher] Demo admin created. Sign in as ${admin.email} with password: ${admin.password}`);
    console.log("[launcher] (shown once; create more users with `npm run cli -- user:create`)");
    console.log("[launcher] ──────────────────────────────────────────────────────────────");
    return;
  }
  if ((await prisma.user.count()) > 0) return;
  // The embedded database's URL carries its generated password: the CLI finds it in the file the
  // launcher leaves for it (0600), so the hint never prints it.
  const where = embedded ? " (from this folder, while npm start runs)" : "";
  console.log(`[launcher] no console users yet. Create the first admin (its password is printed once)${where}:`);
  console.log("[launcher]   npm run cli -- user:create --email you@example.com --role admin");
}

/** `npm start`'s web process: our server around Next (it passes on the client's socket address), its heap bounded. */
export function productionWebArgs(heapLimitMb: number): string[] {
  return [`--max-old-space-size=${heapLimitMb}`, "--import", "tsx", "worker/web-server.ts"];
}
