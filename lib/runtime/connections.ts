import { requireDatabaseUrl, type AppConfig } from "../config/env";
import { createPool, type Pool } from "../db/pool";
import { createPrisma, type PrismaClient } from "../db/prisma";
import { createProducer, type PgBoss } from "../queue/boss";

// The connections every process opens, built one way: the configured timeouts and pooler, and an
// application_name naming the process (pg_stat_activity shows who holds what).

export type PoolRole = "web" | "web-reads" | "web-feed" | "worker" | "destinations" | "ingest" | "cli" | "launcher";

/** A pool of `size` connections for `role`, on DATABASE_URL unless `url` says otherwise. */
export function processPool(
  config: AppConfig,
  role: PoolRole,
  size: number,
  options: { url?: string; statementMs?: number; synchronousCommit?: false } = {},
): Pool {
  const timeouts = { ...config.databaseTimeouts, ...(options.statementMs ? { statementMs: options.statementMs } : {}) };
  return createPool(options.url ?? requireDatabaseUrl(config), size, `webhook-inbox:${role}`, timeouts, {
    pooler: config.databasePooler,
    ...(options.synchronousCommit === false ? { synchronousCommit: false } : {}),
  });
}

/** A started job producer (sends jobs; no maintenance, no schema changes). */
export async function startProducer(config: AppConfig): Promise<PgBoss> {
  const boss = createProducer(requireDatabaseUrl(config), config.databaseTimeouts.connectMs);
  await boss.start();
  return boss;
}

/** Runs `work` with a Prisma client on a one-connection pool of its own, closed afterwards. */
export async function withPrisma<T>(config: AppConfig, role: PoolRole, work: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const pool = processPool(config, role, 1);
  const prisma = createPrisma(pool);
  try {
    return await work(prisma);
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}
