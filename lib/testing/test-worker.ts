import { loadConfig, type AppConfig } from "../config/env";
import { createPool } from "../db/pool";
import { createGatewayClients } from "../http/gateway-clients";
import type { ProcessOutcome } from "../inbox/process/process-event";
import { processingConnections, processWebhookJobs, webhooksJob } from "../jobs/definitions/webhooks";
import { createWorkerBoss } from "../queue/boss";

export type TestWorker = { outcomes: ProcessOutcome[]; stop: () => Promise<void> };

/** A real pg-boss worker process-in-miniature on the test database (what worker/worker.ts wires). */
export async function startTestWorker(url: string, config: AppConfig, name = "test-worker"): Promise<TestWorker> {
  const pool = createPool(url, processingConnections(config.worker.concurrency) + 2, name);
  const boss = createWorkerBoss(url, config.worker.queueMonitorSeconds);
  await boss.start();
  const deps = { pool, boss, config, gateways: createGatewayClients(config), workerId: name };
  const outcomes: ProcessOutcome[] = [];
  await boss.work(webhooksJob.name, webhooksJob.work(config), (jobs) =>
    processWebhookJobs(deps, jobs, (outcome) => outcomes.push(outcome)),
  );
  return {
    outcomes,
    stop: async () => {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await pool.end().catch(() => undefined);
    },
  };
}

/** Test configuration: the test app's environment plus overrides. */
export function testConfig(base: Record<string, string>, overrides: Record<string, string> = {}): AppConfig {
  return loadConfig({ ...base, ...overrides });
}

/** Polls `check` until it returns a truthy value (tests wait on state, never on fixed sleeps). */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
