import type { PgBoss } from "pg-boss";
import { loadConfig, type AppConfig } from "../config/env";
import { createPool, type Pool } from "../db/pool";
import { createPrisma, type PrismaClient } from "../db/prisma";
import { ingestEvent } from "../inbox/ingest/ingest-event";
import { createProducer } from "../queue/boss";
import type { SignedWebhook } from "./gateway-events";
import { createTestDatabase, type TestDatabase } from "./test-database";

export const TEST_SECRETS = {
  stripe: "whsec_test_stripe_secret",
  stripeOld: "whsec_test_stripe_old_secret",
  standard: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
} as const;

export type TestApp = {
  db: TestDatabase;
  /** The environment the config was loaded from, for variants (testConfig). */
  env: Record<string, string>;
  config: AppConfig;
  pool: Pool;
  prisma: PrismaClient;
  boss: PgBoss;
  close: () => Promise<void>;
};

/** A database of the test file's own, with a pool, Prisma and a started job producer on it. */
export async function createTestApp(label: string, env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase(label);
  const fullEnv = {
    DATABASE_URL: db.url,
    WEBHOOK_SECRET_STRIPE: `${TEST_SECRETS.stripe},${TEST_SECRETS.stripeOld}`,
    WEBHOOK_SECRET_STANDARD: TEST_SECRETS.standard,
    WORKER_RETRY_DELAYS_SECONDS: "0",
    ...env,
  };
  const config = loadConfig(fullEnv);
  const pool = createPool(db.url, 20, `test:${label}`);
  const boss = createProducer(db.url);
  await boss.start();
  const prisma = createPrisma(pool);
  return {
    db,
    env: fullEnv,
    config,
    pool,
    prisma,
    boss,
    close: async () => {
      await boss.stop({ graceful: false });
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
      await db.drop();
    },
  };
}

/** Empties the inbox, its signature failures and its jobs: between ingest tests. */
export async function clearInbox(app: TestApp): Promise<void> {
  await app.pool.query("TRUNCATE webhook_inbox, signature_failures CASCADE");
  await app.pool.query("DELETE FROM pgboss.job WHERE name = 'webhooks'");
}

/** Stores a signed webhook through ingest's own door, as the route would, answering 200 or 400. */
export async function ingestWebhook(app: TestApp, webhook: SignedWebhook): Promise<{ status: number }> {
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config },
    { provider: webhook.provider, rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  return { status: outcome.kind === "stored" || outcome.kind === "duplicate" ? 200 : 400 };
}
