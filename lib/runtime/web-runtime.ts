import type { PgBoss } from "pg-boss";
import { appConfig, requireDatabaseUrl, type AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import { createReadRouter, primaryOnly, REPLICA_STATEMENT_MS, type ReadRouter } from "../db/read-replica";
import { createPrisma, type PrismaClient } from "../db/prisma";
import { createGatewayClients, type GatewayClients } from "../http/gateway-clients";
import { startAccountDirectory, type AccountDirectory } from "../gateway-accounts/account-directory";
import { configureLogger } from "../observability/logger";
import { createChangeFeed, type ChangeFeed } from "../outbox/read-change-feed";
import { processPool, startProducer } from "./connections";

export type WebRuntime = {
  config: AppConfig;
  pool: Pool;
  prisma: PrismaClient;
  /** The console's read-only queries (explorer, overview, payments, customers): the replica when there is one. */
  reads: ReadRouter;
  /** The job producer, started on first use; a failed start is retried by the next caller. */
  boss: () => Promise<PgBoss>;
  /** The gateways' outbound clients (the console's reconciliations), shared by the process's requests. */
  gateways: GatewayClients;
  /** The change feed's reads, on a pool of their own: long polls never take ingest's connections. */
  feed: ChangeFeed;
  /** The gateway accounts, cached and kept current (started on first use, with its listening connection). */
  accounts: () => AccountDirectory;
  /** Stops keeping the accounts current (tests; the process otherwise ends with them). */
  closeAccounts: () => Promise<void>;
};

/** Connections of the web process's change feed pool, beside DATABASE_POOL_MAX. */
export const FEED_POOL_SIZE = 4;

function createWebRuntime(): WebRuntime {
  // Next loads .env itself, and the launcher sets the rest: the web process reads no env file.
  const config = appConfig();
  configureLogger({ level: config.logLevel, format: config.logFormat });
  const pool = processPool(config, "web", config.databasePoolMax);
  const reads = config.readReplica
    ? createReadRouter(
        pool,
        processPool(config, "web-reads", config.databasePoolMax, {
          url: config.readReplica.url,
          statementMs: Math.min(config.databaseTimeouts.statementMs, REPLICA_STATEMENT_MS),
        }),
        { maxLagSeconds: config.readReplica.maxLagSeconds },
      )
    : primaryOnly(pool);
  let started: Promise<PgBoss> | undefined;
  const boss = () => {
    started ??= startProducer(config).catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  const feed = createChangeFeed(processPool(config, "web-feed", FEED_POOL_SIZE));
  let directory: AccountDirectory | undefined;
  const accounts = () =>
    (directory ??= startAccountDirectory(config, pool, {
      databaseUrl: requireDatabaseUrl(config),
      applicationName: "webhook-inbox:web-accounts",
    }));
  return {
    config,
    pool,
    prisma: createPrisma(pool),
    reads,
    boss,
    gateways: createGatewayClients(config),
    feed,
    accounts,
    closeAccounts: async () => directory?.close(),
  };
}

// Kept on globalThis so `next dev` module reloads don't open a new pool each time.
const holder = globalThis as typeof globalThis & { __webhookInboxRuntime?: WebRuntime };

/** The web process's shared pool, Prisma client, job producer and gateway clients. */
export function webRuntime(): WebRuntime {
  holder.__webhookInboxRuntime ??= createWebRuntime();
  return holder.__webhookInboxRuntime;
}
