import { hostname } from "node:os";
import { requireDatabaseUrl, type AppConfig } from "../config/env";
import { startAccountDirectory, type AccountDirectory } from "../gateway-accounts/account-directory";
import type { Pool } from "../db/pool";
import { createPrisma, type PrismaClient } from "../db/prisma";
import { createGatewayClients } from "../http/gateway-clients";
import type { JobDeps } from "../jobs/job-definition";
import type { PgBoss } from "../queue/boss";
import { processPool, startProducer } from "./connections";
import { loadProcessConfig } from "./process-config";

/** One CLI command's dependencies, each opened on first use and all closed by `close`. */
export type CliRuntime = {
  config: AppConfig;
  pool: () => Pool;
  /** A started job producer. */
  boss: () => Promise<PgBoss>;
  prisma: () => PrismaClient;
  /** What a job's `run` needs, for the commands that do a job's work now. */
  jobDeps: () => Promise<JobDeps>;
  /** The gateway accounts, read once (a command is over before a change would matter). */
  accounts: () => AccountDirectory;
  close: () => Promise<void>;
};

/** `npm run cli`'s wiring: configuration (with a running `npm run dev`'s or `npm start`'s embedded database, see loadProcessConfig), a small pool. */
export function openCliRuntime(devDatabase: (urlFile: string) => void): CliRuntime {
  const config = loadProcessConfig({ devDatabase });
  let pool: Pool | undefined;
  let boss: Promise<PgBoss> | undefined;
  let prisma: PrismaClient | undefined;
  const openPool = () => (pool ??= processPool(config, "cli", 3));
  const startBoss = () => (boss ??= startProducer(config));
  const openPrisma = () => (prisma ??= createPrisma(openPool()));
  let accounts: AccountDirectory | undefined;
  const openAccounts = () =>
    (accounts ??= startAccountDirectory(config, openPool(), {
      databaseUrl: requireDatabaseUrl(config),
      applicationName: "webhook-inbox:cli",
      watch: false,
    }));
  return {
    config,
    pool: openPool,
    boss: startBoss,
    prisma: openPrisma,
    jobDeps: async () => ({
      pool: openPool(),
      boss: await startBoss(),
      config,
      gateways: createGatewayClients(config),
      accounts: openAccounts(),
      workerId: `cli:${hostname()}:${process.pid}`,
    }),
    accounts: openAccounts,
    close: async () => {
      if (boss)
        await boss.then(
          (started) => started.stop({ graceful: false }),
          () => undefined,
        );
      if (accounts) await accounts.close();
      if (prisma) await prisma.$disconnect();
      if (pool) await pool.end();
    },
  };
}
