import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplicatedPostgres, waitForReplay, type ReplicatedPostgres } from "@/e2e/harness/replicated-postgres";
import { waitFor } from "../testing/test-worker";
import { createPool, type Pool } from "./pool";
import { createReadRouter, describeReadTarget, type ReadRouter } from "./read-replica";

// The console's read routing against a real streaming standby (pg_basebackup) on clusters this
// file owns: reads go to the replica while it is close, to the primary when it falls behind or
// goes away, and back once it returns.

let replicated: ReplicatedPostgres;
let primary: Pool;
let replica: Pool;
let router: ReadRouter;

beforeAll(async () => {
  replicated = await startReplicatedPostgres("reads");
  primary = createPool(replicated.primary.url("reads"), 4, "test:primary");
  replica = createPool(replicated.standby.url("reads"), 4, "test:replica", { connectMs: 2_000, statementMs: 10_000 });
  await primary.query("CREATE TABLE notes (id int PRIMARY KEY, body text)");
  // Checked on every call: the test waits on state, not on the router's cache.
  router = createReadRouter(primary, replica, { maxLagSeconds: 5, checkEveryMs: 0 });
});
afterAll(async () => {
  await primary?.end();
  await replica?.end().catch(() => undefined);
  await replicated?.stop();
});

const whoAnswers = () =>
  router.read(async (pool) => (await pool.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby")).rows[0]!.standby);

describe("console reads and the replica", () => {
  it("reads the replica while it is caught up, and sees the primary's writes there", async () => {
    await primary.query("INSERT INTO notes VALUES (1, 'one')");
    await waitForReplay(replicated);
    expect(await router.target()).toEqual({ target: "replica", lagSeconds: 0 });
    expect(await whoAnswers()).toBe(true);
    expect(await router.read(async (pool) => (await pool.query("SELECT body FROM notes WHERE id = 1")).rows)).toEqual([{ body: "one" }]);
  });

  it("falls back to the primary when the replica is too far behind, and returns when it catches up", async () => {
    const paused = await replica.connect();
    try {
      await paused.query("SELECT pg_wal_replay_pause()");
      const behind = createReadRouter(primary, replica, { maxLagSeconds: 0.2, checkEveryMs: 0 });
      await primary.query("INSERT INTO notes VALUES (2, 'two')");
      const target = await waitFor(
        async () => {
          const now = await behind.target();
          return now.target === "primary" ? now : null;
        },
        30_000,
        "the paused replica to count as behind",
      );
      expect(target).toMatchObject({ target: "primary", reason: "replica_behind" });
      expect(describeReadTarget(target)).toMatch(/^Lists read the primary: the replica is \d+\.\d s behind$/);
      expect(await behind.read(async (pool) => (await pool.query("SELECT body FROM notes WHERE id = 2")).rows)).toEqual([{ body: "two" }]);
      await paused.query("SELECT pg_wal_replay_resume()");
      await waitFor(async () => ((await behind.target()).target === "replica" ? true : null), 30_000, "the replica to catch up");
    } finally {
      paused.release();
    }
  });

  it("reads the primary while the replica restarts, then the replica again", async () => {
    await replicated.standby.stop();
    expect(await router.target()).toEqual({ target: "primary", reason: "replica_unreachable", lagSeconds: null });
    expect(await whoAnswers()).toBe(false);
    await replicated.standby.restart();
    await waitFor(async () => ((await router.target()).target === "replica" ? true : null), 30_000, "the replica to be used again");
    expect(await whoAnswers()).toBe(true);
  });
});
