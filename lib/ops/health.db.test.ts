import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../db/pool";
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
  it("is healthy with the database and the queue reachable, and reports the backlog", async () => {
    const report = await checkHealth(app.pool, async () => app.boss);
    expect(report).toMatchObject({ healthy: true, status: "ok", database: { ok: true }, queue: { ok: true, ready: expect.any(Number) } });
    expect(report.inbox).toMatchObject({ pending: 1, failed: 1 });
    expect(report.inbox!.oldestPendingSeconds).toBeGreaterThanOrEqual(89);
  });

  it("is unhealthy, naming the cause, when the database or the queue can't be reached", async () => {
    const unreachable = createPool(app.db.url.replace(/\/[^/]+$/, "/no_such_database"), 1, "health-test");
    try {
      const report = await checkHealth(unreachable, async () => {
        throw new Error("queue connection refused");
      });
      expect(report).toMatchObject({ healthy: false, status: "degraded" });
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
