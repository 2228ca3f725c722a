import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookFor, randomId } from "@/lib/testing/gateway-events";
import { ingestEvent } from "@/lib/inbox/ingest/ingest-event";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";

// kill -9 of a real worker process in the middle of a job loses nothing: after the job expires it
// is retried by a new worker, and the event is processed once.

let app: TestApp;
const children: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
    env: { ...process.env, ...app.env, WORKER_JOB_EXPIRE_SECONDS: "2", QUEUE_MONITOR_SECONDS: "1", WORKER_CONCURRENCY: "2" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  app = await createTestApp("crash", { WORKER_JOB_EXPIRE_SECONDS: "2" });
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await app.close();
});

/**
 * A worker process holding a job mid-way: the event's payment row is locked by the test, so the
 * worker's transaction waits on it after its attempt started. `release` lets it go on.
 */
async function workerMidJob() {
  const chargeId = randomId("ch");
  await app.pool.query(
    "INSERT INTO payments (provider, gateway_charge_id, status, amount, currency) VALUES ('stripe', $1, 'pending', 1000, 'usd')",
    [chargeId],
  );
  const webhook = webhookFor(
    "stripe",
    { chargeId, amount: 1000, currency: "usd", customerId: "c", customerEmail: "c@example.com" },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
    TEST_SECRETS.stripe,
  );
  const stored = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  const inboxId = stored.kind === "stored" ? stored.inboxId : 0;
  const blocker = await app.pool.connect();
  await blocker.query("BEGIN");
  await blocker.query("SELECT 1 FROM payments WHERE gateway_charge_id = $1 FOR UPDATE", [chargeId]);
  const worker = startWorker();
  const exited = new Promise<number | null>((done) => worker.once("exit", (code) => done(code)));
  await waitFor(
    async () => (await app.pool.query("SELECT 1 FROM processing_attempts WHERE inbox_id = $1 AND outcome = 'running'", [inboxId])).rowCount,
    30_000,
    "the worker to be mid-job",
  );
  const release = async () => {
    await blocker.query("ROLLBACK");
    blocker.release();
  };
  return { chargeId, inboxId, worker, exited, release };
}

describe("a worker stopped with SIGTERM mid-job", () => {
  it("finishes the job it holds, then exits cleanly", async () => {
    const { inboxId, worker, exited, release } = await workerMidJob();
    worker.kill("SIGTERM");
    await new Promise((done) => setTimeout(done, 300));
    await release();
    expect(await exited).toBe(0);
    const { rows } = await app.pool.query("SELECT status, attempts FROM webhook_inbox WHERE id = $1", [inboxId]);
    expect(rows[0]).toEqual({ status: "processed", attempts: 1 });
  });
});

describe("a worker killed mid-job", () => {
  it("loses nothing: the event is processed after a new worker starts", async () => {
    const { chargeId, inboxId, worker, exited, release } = await workerMidJob();
    worker.kill("SIGKILL");
    await exited;
    await release();
    expect((await app.pool.query("SELECT status FROM webhook_inbox WHERE id = $1", [inboxId])).rows[0].status).toBe("pending");

    startWorker();
    await waitFor(
      async () => (await app.pool.query("SELECT 1 FROM webhook_inbox WHERE id = $1 AND status = 'processed'", [inboxId])).rowCount,
      60_000,
      "the event to be processed by the second worker",
    );
    const { rows: attempts } = await app.pool.query(
      "SELECT attempt, outcome FROM processing_attempts WHERE inbox_id = $1 ORDER BY attempt",
      [inboxId],
    );
    expect(attempts).toEqual([
      { attempt: 1, outcome: "abandoned" },
      { attempt: 2, outcome: "processed" },
    ]);
    expect((await app.pool.query("SELECT status FROM payments WHERE gateway_charge_id = $1", [chargeId])).rows[0].status).toBe("paid");
  });
});
