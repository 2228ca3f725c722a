import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../db/pool";
import { recordHeartbeat, recordWorkerStart, recordWorkerStopped, recordWorkerStopping } from "../inbox/process/worker-heartbeats";
import { createTestApp, type TestApp } from "../testing/test-app";
import { checkHealth } from "./health";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("health");
  await app.pool.query(
    `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
     VALUES ('stripe', 'a', 'x', 'pending', now() - interval '90 seconds', '\\x00'), ('stripe', 'b', 'x', 'failed', now(), '\\x00')`,
  );
});
afterAll(async () => app.close());

describe("checkHealth", () => {
  it("is healthy with the database and the queue reachable and a worker alive, and reports the backlog", async () => {
    await recordWorkerStart(app.pool, "host:11");
    const report = await checkHealth(app.pool, async () => app.boss);
    expect(report).toMatchObject({
      ...{ healthy: true, status: "ok", serving: true, problems: [] },
      ...{ database: { ok: true }, queue: { ok: true, ready: expect.any(Number) }, workers: { alive: 1 } },
    });
    expect(report.inbox).toMatchObject({ pending: 1, failed: 1 });
    expect(report.inbox!.oldestPendingSeconds).toBeGreaterThanOrEqual(89);
  });

  it("is unhealthy but serving while events wait and no worker is alive: stopping, stopped or silent", async () => {
    await app.pool.query("TRUNCATE worker_heartbeats");
    const none = await checkHealth(app.pool, async () => app.boss);
    expect(none).toMatchObject({ healthy: false, status: "degraded", serving: true, workers: { alive: 0, lastHeartbeatAt: null } });
    expect(none.problems).toEqual(["no worker alive: 1 event waits; no worker ever beat"]);

    await recordWorkerStart(app.pool, "host:12");
    expect(await checkHealth(app.pool, async () => app.boss)).toMatchObject({ healthy: true, workers: { alive: 1 } });
    // A worker that starts to stop no longer takes jobs: it stops counting at once, not a minute later.
    await recordWorkerStopping(app.pool, "host:12");
    expect(await checkHealth(app.pool, async () => app.boss)).toMatchObject({ healthy: false, workers: { alive: 0 } });
    await recordWorkerStopped(app.pool, "host:12");
    expect(await checkHealth(app.pool, async () => app.boss)).toMatchObject({ healthy: false, workers: { alive: 0 } });

    // A killed worker says nothing: 16 s without a heartbeat is too long for a live one (it beats every 2 s).
    await recordWorkerStart(app.pool, "host:13");
    await app.pool.query("UPDATE worker_heartbeats SET beat_at = now() - interval '16 seconds' WHERE worker = 'host:13'");
    const silent = await checkHealth(app.pool, async () => app.boss);
    expect(silent).toMatchObject({ healthy: false, serving: true, workers: { alive: 0 } });
    expect(silent.problems).toEqual([expect.stringMatching(/^no worker alive: 1 event waits; last heartbeat \d+s ago$/)]);
    await recordHeartbeat(app.pool, "host:13");
    expect(await checkHealth(app.pool, async () => app.boss)).toMatchObject({ healthy: true, workers: { alive: 1 } });
  });

  it("is unhealthy but serving with no worker alive even when nothing waits: a quiet system hides a dead worker", async () => {
    await app.pool.query("TRUNCATE worker_heartbeats");
    await app.pool.query("UPDATE webhook_inbox SET status = 'processed', processed_at = now() WHERE status = 'pending'");
    try {
      const quiet = await checkHealth(app.pool, async () => app.boss);
      expect(quiet).toMatchObject({ healthy: false, status: "degraded", serving: true, inbox: { pending: 0 }, workers: { alive: 0 } });
      expect(quiet.problems).toEqual(["no worker alive: new events and reconciliation will wait; no worker ever beat"]);
      await recordWorkerStart(app.pool, "host:14");
      expect(await checkHealth(app.pool, async () => app.boss)).toMatchObject({ healthy: true, status: "ok", workers: { alive: 1 } });
    } finally {
      await app.pool.query("UPDATE webhook_inbox SET status = 'pending', processed_at = NULL WHERE event_id = 'a'");
      await recordWorkerStart(app.pool, "host:11");
    }
  });

  it("is unhealthy, naming the cause, when the database or the queue can't be reached", async () => {
    const unreachable = createPool(app.db.url.replace(/\/[^/]+$/, "/no_such_database"), 1, "health-test");
    try {
      const report = await checkHealth(unreachable, async () => {
        throw new Error("queue connection refused");
      });
      expect(report).toMatchObject({ healthy: false, status: "degraded", serving: false });
      expect(report.database).toMatchObject({ ok: false, error: expect.stringMatching(/no_such_database/) });
      expect(report.queue).toEqual({ ok: false, error: "queue connection refused" });
    } finally {
      await unreachable.end();
    }
  });

  it("answers degraded within its bound when the database stalls, and ok again once it answers", async () => {
    // A stalled database, for real: another session holds the inbox table exclusively.
    const holder = await app.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE webhook_inbox IN ACCESS EXCLUSIVE MODE");
      // The lock is held until the rollback below: an answer at all means the 500 ms bound fired.
      const stalled = await checkHealth(app.pool, async () => app.boss, 500);
      expect(stalled).toMatchObject({
        healthy: false,
        status: "degraded",
        database: { ok: false, error: expect.stringMatching(/within 500 ms/) },
      });
      await holder.query("ROLLBACK");
      expect(await checkHealth(app.pool, async () => app.boss, 500)).toMatchObject({ healthy: true, status: "ok" });
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
    }
  });
});
