import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../../db/pool";
import { dispatchEvents } from "../../queue/boss";
import { QUEUES } from "../../queue/queues";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { waitFor } from "../../testing/test-worker";
import { holdWorkerLiveness, reclaimDeadWorkerJobs } from "./reclaim-dead-worker-jobs";

// Two workers' sessions on the real database: one ends (its process died), one lives. Only the
// dead one's running attempt is closed and only its job goes back to retry.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("reclaim");
});
afterAll(async () => app.close());

async function heldJob(worker: string) {
  const { rows } = await app.pool.query<{ id: number }>(
    `INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, status, raw_body, attempts)
     VALUES ('stripe', $1, 'charge.succeeded', $1, 'pending', '\\x00', 1) RETURNING id`,
    [`evt_${worker}`],
  );
  const inboxId = rows[0]!.id;
  await dispatchEvents(app.boss, app.pool, [{ id: inboxId, provider: "stripe", resourceId: `evt_${worker}`, eventId: `evt_${worker}` }], {
    expireInSeconds: 120,
  });
  const [job] = await app.boss.fetch(QUEUES.webhooks, { batchSize: 1 });
  expect(job!.data).toEqual({ inboxId });
  await app.pool.query("INSERT INTO processing_attempts (inbox_id, attempt, worker) VALUES ($1, 1, $2)", [inboxId, worker]);
  return { inboxId, jobId: job!.id };
}

const jobState = async (id: string) => (await app.boss.findJobs(QUEUES.webhooks, { id }))[0]!.state;

describe("reclaimDeadWorkerJobs", () => {
  it("fails the jobs of a worker whose session ended, and leaves a live worker's alone", async () => {
    const deadPool = createPool(app.db.url, 2, "dead-worker");
    const livePool = createPool(app.db.url, 2, "live-worker");
    const dead = await holdWorkerLiveness(deadPool, "host:111", () => undefined);
    const live = await holdWorkerLiveness(livePool, "host:222", () => undefined);
    try {
      const deadJob = await heldJob("host:111");
      const liveJob = await heldJob("host:222");
      const deps = { pool: app.pool, boss: app.boss, workerId: "host:333" };

      // Both alive: nothing to do.
      expect(await reclaimDeadWorkerJobs(deps)).toEqual({ abandoned: 0, jobsFailed: 0 });

      // kill -9 of the first worker, as PostgreSQL sees it: its connections close.
      dead.stop();
      await deadPool.end();
      await waitFor(
        async () => (await app.pool.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'dead-worker'")).rowCount === 0,
        10_000,
        "the dead worker's sessions to end",
      );
      expect(await reclaimDeadWorkerJobs(deps)).toEqual({ abandoned: 1, jobsFailed: 1 });
      expect(await jobState(deadJob.jobId)).toBe("retry");
      expect(await jobState(liveJob.jobId)).toBe("active");
      const { rows } = await app.pool.query("SELECT worker, outcome FROM processing_attempts ORDER BY worker");
      expect(rows).toEqual([
        { worker: "host:111", outcome: "abandoned" },
        { worker: "host:222", outcome: "running" },
      ]);
      // Once: the next pass doesn't touch the job again (by then it may run on a live worker).
      expect(await reclaimDeadWorkerJobs(deps)).toEqual({ abandoned: 0, jobsFailed: 0 });
    } finally {
      dead.stop();
      live.stop();
      await deadPool.end().catch(() => undefined);
      await livePool.end();
    }
  });
});
