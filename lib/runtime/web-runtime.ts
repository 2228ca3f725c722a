import type { PgBoss } from "pg-boss";
import { appConfig, requireDatabaseUrl, type AppConfig } from "../config/env";
import { createPool, type Pool } from "../db/pool";
import { createReadRouter, primaryOnly, REPLICA_STATEMENT_MS, type ReadRouter } from "../db/read-replica";
import { createPrisma, type PrismaClient } from "../db/prisma";
import { configureLogger } from "../observability/logger";
import { createProducer } from "../queue/boss";

export type WebRuntime = {
  config: AppConfig;
  pool: Pool;
  prisma: PrismaClient;
  /** The console's read-only queries (explorer, overview, payments, customers): the replica when there is one. */
  reads: ReadRouter;
  /** The job producer, started on first use; a failed start is retried by the next caller. */
  boss: () => Promise<PgBoss>;
};

function createWebRuntime(): WebRuntime {
  const config = appConfig();
  configureLogger({ level: config.logLevel, format: config.logFormat });
  const url = requireDatabaseUrl(config);
  const pooler = { pooler: config.databasePooler };
  const pool = createPool(url, config.databasePoolMax, "webhook-inbox:web", config.databaseTimeouts, pooler);
  const reads = config.readReplica
    ? createReadRouter(
        pool,
        createPool(
          config.readReplica.url,
          config.databasePoolMax,
          "webhook-inbox:web-reads",
          {
            connectMs: config.databaseTimeouts.connectMs,
            statementMs: Math.min(config.databaseTimeouts.statementMs, REPLICA_STATEMENT_MS),
          },
          pooler,
        ),
        {
          maxLagSeconds: config.readReplica.maxLagSeconds,
        },
      )
    : primaryOnly(pool);
  let started: Promise<PgBoss> | undefined;
  const boss = () => {
    started ??= createProducer(url, config.databaseTimeouts.connectMs)
      .start()
      .catch((error: unknown) => {
        started = undefined;
        throw error;
      });
    return started;
  };
  return { config, pool, prisma: createPrisma(pool), reads, boss };
}

// Kept on globalThis so `next dev` module reloads don't open a new pool each time.
const holder = globalThis as typeof globalThis & { __webhookInboxRuntime?: WebRuntime };

/** The web process's shared pool, Prisma client and job producer. */
export function webRuntime(): WebRuntime {
  holder.__webhookInboxRuntime ??= createWebRuntime();
  return holder.__webhookInboxRuntime;
}
