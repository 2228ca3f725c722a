import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { confirmationRequired, executeReplayRun, failAbandonedReplayRun, getReplayRun, startReplayRun } from "./replay-runs";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("replay_runs");
  for (let i = 0; i < 7; i++) {
    await app.pool.query(`INSERT INTO webhook_inbox (provider, event_id, event_type, status, raw_body) VALUES ($1, $2, 'x', $3, '\\x00')`, [
      i < 5 ? "stripe" : "standard",
      `e${i}`,
      i % 2 === 0 ? "failed" : "ignored",
    ]);
  }
});
afterAll(async () => app.close());

describe("bulk replay runs", () => {
  it("needs the count typed back above the threshold, and refuses empty replays", async () => {
    expect(confirmationRequired(3, 2)).toBe(true);
    expect(confirmationRequired(2, 2)).toBe(false);
    const deps = { pool: app.pool, boss: app.boss };
    await expect(startReplayRun(deps, { provider: "stripe" }, "ops", { confirmThreshold: 2 })).rejects.toThrow(/type 5 to confirm/);
    await expect(startReplayRun(deps, { provider: "stripe" }, "ops", { confirmThreshold: 2, confirmation: "4" })).rejects.toThrow(/type 5/);
    await expect(startReplayRun(deps, { provider: "zoop" }, "ops", { confirmThreshold: 2 })).rejects.toThrow(/no failed or ignored/);
  });

  it("records a queued run with its job, then replays it with progress and an audit row", async () => {
    const run = await startReplayRun({ pool: app.pool, boss: app.boss }, { provider: "stripe" }, "ops@example.com", {
      confirmThreshold: 2,
      confirmation: "5",
    });
    expect(run).toMatchObject({ status: "queued", expected: 5, replayed: 0, actor: "ops@example.com" });
    const { rows: jobs } = await app.pool.query("SELECT data FROM pgboss.job WHERE name = 'replays'");
    expect(jobs).toEqual([{ data: { runId: run.id } }]);

    await executeReplayRun({ pool: app.pool, boss: app.boss, config: app.config }, run.id);
    expect(await getReplayRun(app.pool, run.id)).toMatchObject({ status: "done", replayed: 5, expected: 5 });
    const { rows } = await app.pool.query("SELECT provider, status, count(*)::int AS n FROM webhook_inbox GROUP BY 1, 2 ORDER BY 1, 2");
    expect(rows).toEqual([
      { provider: "standard", status: "failed", n: 1 },
      { provider: "standard", status: "ignored", n: 1 },
      { provider: "stripe", status: "pending", n: 5 },
    ]);
    const { rows: audit } = await app.pool.query("SELECT actor, details->>'count' AS count FROM audit_log WHERE action = 'replay'");
    expect(audit).toEqual([{ actor: "ops@example.com", count: "5" }]);
    // Running it again does nothing: the run is no longer queued.
    await executeReplayRun({ pool: app.pool, boss: app.boss, config: app.config }, run.id);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM audit_log")).rows[0].n).toBe(1);
  });

  it("resumes a run its worker left running after the last committed batch, and records it done", async () => {
    const ids = (await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE provider = 'standard' ORDER BY id")).rows.map(
      (row) => row.id,
    );
    // The first worker replayed the first event (its batch committed with the cursor), then died.
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending' WHERE id = $1", [ids[0]]);
    const { rows } = await app.pool.query<{ id: number }>(
      `INSERT INTO replay_runs (actor, filter, expected, replayed, resume_after_id, status)
       VALUES ('ops', '{"provider":"standard"}', 2, 1, $1, 'running') RETURNING id`,
      [ids[0]],
    );
    await executeReplayRun({ pool: app.pool, boss: app.boss, config: app.config }, rows[0]!.id);
    expect(await getReplayRun(app.pool, rows[0]!.id)).toMatchObject({ status: "done", replayed: 2, error: null });
    const { rows: statuses } = await app.pool.query("SELECT status FROM webhook_inbox WHERE provider = 'standard'");
    expect(statuses).toEqual([{ status: "pending" }, { status: "pending" }]);
  });

  it("ends a run whose job ran out of retries failed, with the last error and how far it got", async () => {
    const { rows } = await app.pool.query<{ id: number }>(
      `INSERT INTO replay_runs (actor, filter, expected, replayed, status, error)
       VALUES ('ops', '{}', 10, 4, 'running', 'Connection terminated unexpectedly') RETURNING id`,
    );
    await failAbandonedReplayRun(app.pool, rows[0]!.id);
    const run = await getReplayRun(app.pool, rows[0]!.id);
    expect(run).toMatchObject({
      status: "failed",
      error: "Connection terminated unexpectedly (4 of 10 events replayed before it gave up)",
    });
    expect(run!.finishedAt).toBeInstanceOf(Date);
  });
});
