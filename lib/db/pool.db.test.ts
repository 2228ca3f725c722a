import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { freePort } from "./embedded";
import { createPool, DEFAULT_DATABASE_TIMEOUTS, isDatabaseUnavailable, withClient, withTransaction } from "./pool";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("pool");
});
afterAll(async () => app.close());

describe("a connection lost while checked out", () => {
  it("is reported to the caller, not thrown at the process, and the pool goes on with a new connection", async () => {
    const pool = createPool(app.db.url, 1, "pool-test-victim");
    try {
      const lost = withClient(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        // Terminated while idle in our hands: pg emits 'error' on the client with no query to fail
        // (fatal to the process without a listener), then 'end'.
        const ended = new Promise((done) => client.once("end", done));
        await app.pool.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        await ended;
        await client.query("SELECT 1");
      });
      await expect(lost).rejects.toSatisfy(isDatabaseUnavailable);
      // The broken client was discarded: the one-connection pool answers on a fresh one.
      expect(await withTransaction(pool, async (tx) => (await tx.query("SELECT 2 AS n")).rows[0].n)).toBe(2);
    } finally {
      await pool.end();
    }
  });
});

describe("isDatabaseUnavailable", () => {
  it("recognises a refused connection, a terminated session and a statement timeout, not a bad statement", async () => {
    const nowhere = createPool(`postgresql://postgres@127.0.0.1:${await freePort()}/none`, 1, "pool-test-nowhere");
    const refused = await nowhere.query("SELECT 1").catch((error: unknown) => error);
    await nowhere.end();
    expect(isDatabaseUnavailable(refused)).toBe(true);

    const slow = createPool(app.db.url, 1, "pool-test-slow", { connectMs: 1000, statementMs: 200 });
    const timedOut = await slow.query("SELECT pg_sleep(2)").catch((error: unknown) => error);
    await slow.end();
    expect(timedOut).toMatchObject({ code: "57014" });
    expect(isDatabaseUnavailable(timedOut)).toBe(true);

    const wrong = await app.pool.query("SELECT * FROM no_such_table").catch((error: unknown) => error);
    expect(isDatabaseUnavailable(wrong)).toBe(false);
  });
});

describe("createPool", () => {
  it("commits with the WAL flush by default, and without it only when asked (the worker)", async () => {
    const durable = createPool(app.db.url, 1, "test:durable");
    const relaxed = createPool(app.db.url, 1, "test:relaxed", DEFAULT_DATABASE_TIMEOUTS, { synchronousCommit: false });
    try {
      expect((await durable.query("SHOW synchronous_commit")).rows[0].synchronous_commit).toBe("on");
      expect((await relaxed.query("SHOW synchronous_commit")).rows[0].synchronous_commit).toBe("off");
    } finally {
      await Promise.all([durable.end(), relaxed.end()]);
    }
  });
});
