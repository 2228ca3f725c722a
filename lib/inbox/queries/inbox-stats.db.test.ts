import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PoolClient } from "../../db/pool";
import { stressRollup } from "../../testing/rollup-stress";
import { sameSlotClients } from "../../testing/same-slot-clients";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { compactHourlyCounts } from "../maintenance/compact-hourly-counts";
import { backlogSummary, hourlyVolume, ignoredRatioJumped, providerStats } from "./inbox-stats";

let app: TestApp;
let seq = 0;

async function add(provider: string, status: string, minutesAgo: number, count = 1) {
  for (let i = 0; i < count; i++) {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
       VALUES ($1, $2, 'x', $3, now() - make_interval(mins => $4), '\\x00')`,
      [provider, `e${seq++}`, status, minutesAgo],
    );
  }
}

beforeAll(async () => {
  app = await createTestApp("stats");
  // stripe: a normal week (10% ignored), then an hour where half is ignored.
  await add("stripe", "processed", 3 * 24 * 60, 180);
  await add("stripe", "ignored", 3 * 24 * 60, 20);
  await add("stripe", "processed", 10, 15);
  await add("stripe", "ignored", 10, 15);
  await add("stripe", "failed", 5, 2);
  // standard: steady, with a pending backlog from two hours ago, and an event older than a week.
  await add("standard", "processed", 120, 8);
  await add("standard", "pending", 125, 2);
  await add("standard", "ignored", 30, 2);
  await add("standard", "processed", 8 * 24 * 60, 50);
});
afterAll(async () => app.close());

describe("overview statistics", () => {
  it("counts by provider, window and status, with ratios", async () => {
    const stats = await providerStats(app.pool);
    expect(stats.map((row) => row.provider)).toEqual(["standard", "stripe"]);
    const [standard, stripe] = stats;
    expect(stripe!.windows.hour).toMatchObject({ total: 32, processed: 15, ignored: 15, failed: 2, pending: 0 });
    expect(stripe!.windows.hour.ignoredRatio).toBeCloseTo(15 / 32);
    expect(stripe!.windows.hour.failedRatio).toBeCloseTo(2 / 32);
    expect(stripe!.windows.day).toMatchObject({ total: 32 });
    expect(stripe!.windows.week).toMatchObject({ total: 232, ignored: 35, processed: 195, failed: 2 });
    expect(stripe!.baselineIgnoredRatio).toBeCloseTo(0.1);
    expect(stripe!.ignoredJump).toBe(true);

    expect(standard!.windows.hour).toMatchObject({ total: 2, ignored: 2 });
    expect(standard!.windows.day).toMatchObject({ total: 12, processed: 8, pending: 2, ignored: 2 });
    expect(standard!.windows.week.total).toBe(12);
    expect(standard!.ignoredJump).toBe(false);
  });

  it("flags a jump only against a real baseline", () => {
    expect(ignoredRatioJumped({ total: 40, ignoredRatio: 0.5 }, { ratio: 0.1, total: 1000 })).toBe(true);
    expect(ignoredRatioJumped({ total: 40, ignoredRatio: 0.2 }, { ratio: 0.1, total: 1000 })).toBe(false);
    expect(ignoredRatioJumped({ total: 10, ignoredRatio: 0.9 }, { ratio: 0.1, total: 1000 })).toBe(false);
    expect(ignoredRatioJumped({ total: 40, ignoredRatio: 0.9 }, { ratio: 0, total: 0 })).toBe(false);
    expect(ignoredRatioJumped({ total: 40, ignoredRatio: 0.8 }, { ratio: 0.45, total: 1000 })).toBe(false);
  });

  it("buckets the last 24 hours by hour and status, gaps filled", async () => {
    const volume = await hourlyVolume(app.pool, 24);
    expect(volume).toHaveLength(24);
    const sum = (key: "processed" | "ignored" | "failed" | "pending") => volume.reduce((total, hour) => total + hour[key], 0);
    expect(sum("processed")).toBe(15 + 8);
    expect(sum("ignored")).toBe(15 + 2);
    expect(sum("failed")).toBe(2);
    expect(sum("pending")).toBe(2);
    expect((await hourlyVolume(app.pool, 24, "standard")).reduce((total, hour) => total + hour.processed, 0)).toBe(8);
  });

  it("summarizes the backlog", async () => {
    const backlog = await backlogSummary(app.pool);
    expect(backlog.pending).toBe(2);
    expect(backlog.failed).toBe(2);
    expect(backlog.oldestPendingSeconds).toBeGreaterThanOrEqual(125 * 60 - 5);
  });
});

describe("the hourly rollup the overview reads", () => {
  // The rollup summed over slots, next to the same counts taken from the inbox itself.
  async function rollupAndTruth() {
    const rollup = await app.pool.query(
      `SELECT hour, provider, status, sum(n)::int AS n FROM inbox_hourly_counts GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`,
    );
    const truth = await app.pool.query(
      `SELECT date_trunc('hour', received_at, 'UTC') AS hour, provider, status, count(*)::int AS n
         FROM webhook_inbox GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    return { rollup: rollup.rows, truth: truth.rows };
  }

  it("follows inserts, settles, replays, moves and deletes, from many connections at once", async () => {
    await add("pagarme", "pending", 90, 40);
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE provider = 'pagarme' ORDER BY id");
    // Concurrent single-row settles, as workers do them, on 20 pooled connections.
    await Promise.all(
      rows.map(({ id }, i) =>
        app.pool.query("UPDATE webhook_inbox SET status = $2 WHERE id = $1", [id, i % 4 === 0 ? "ignored" : "processed"]),
      ),
    );
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending' WHERE provider = 'pagarme' AND status = 'ignored'");
    await app.pool.query("UPDATE webhook_inbox SET attempts = attempts + 1 WHERE provider = 'pagarme'");
    await app.pool.query("UPDATE webhook_inbox SET received_at = received_at - interval '3 hours' WHERE id = $1", [rows[1]!.id]);
    await app.pool.query("DELETE FROM webhook_inbox WHERE id = ANY($1)", [rows.slice(30).map((row) => row.id)]);
    const { rollup, truth } = await rollupAndTruth();
    expect(rollup).toEqual(truth);
    expect(truth.find((row) => row.provider === "pagarme" && row.status === "pending")?.n).toBe(8);
  });

  it("folds every hour's deltas into one row per hour, provider and status, keeping every count", async () => {
    // Rows written from several connections, old and recent, each write its own delta.
    await Promise.all(Array.from({ length: 12 }, (_, i) => add("asaas", i % 3 === 0 ? "failed" : "processed", i % 2 ? 5 * 60 + i : i)));
    const before = await rollupAndTruth();
    const statsBefore = await providerStats(app.pool);
    expect(await compactHourlyCounts(app.pool)).toBeGreaterThan(0);
    const after = await rollupAndTruth();
    expect(after.rollup).toEqual(before.truth);
    expect(await providerStats(app.pool)).toEqual(statsBefore);
    // A total brought to zero by a later fold is dropped by the next one.
    await app.pool.query("DELETE FROM webhook_inbox WHERE provider = 'asaas' AND status = 'failed'");
    await compactHourlyCounts(app.pool);
    await compactHourlyCounts(app.pool);
    const { rows } = await app.pool.query(
      `SELECT hour, provider, status, array_agg(n ORDER BY slot)::int[] AS n, array_agg(slot ORDER BY slot)::int[] AS slots
         FROM inbox_hourly_counts GROUP BY 1, 2, 3 HAVING count(*) > 1 OR bool_or(slot <> 0) OR bool_or(n = 0)`,
    );
    expect(rows).toEqual([]);
    const atRest = await rollupAndTruth();
    expect(atRest.rollup).toEqual(atRest.truth);
  });

  it("never makes a writer wait on another's open transaction, on the same hour, provider and status", async () => {
    // One hour for every write, so a test run across an hour's end still writes the same keys.
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000 + 60_000);
    const insert = `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
                    VALUES ('collide', $1, 'x', 'pending', $2, '\\x00') RETURNING id`;
    const [seeded, settled] = await Promise.all(
      ["c-seed-1", "c-seed-2"].map(async (id) => (await app.pool.query<{ id: string }>(insert, [id, hour])).rows[0]!.id),
    );
    const [holder, other] = await sameSlotClients(app.db.url);
    try {
      // A wait for a lock fails the statement instead of hanging the test until the holder commits.
      await other.query("SET lock_timeout = '2s'");
      await holder.query("BEGIN");
      await holder.query(insert, ["c-held", hour]);
      await holder.query("UPDATE webhook_inbox SET status = 'processed' WHERE id = $1", [seeded]);
      // Ingest, settle and purge on the same keys while the holder's counts are uncommitted.
      const { rows } = await other.query<{ id: string }>(insert, ["c-other", hour]);
      await other.query("UPDATE webhook_inbox SET status = 'processed' WHERE id = $1", [settled]);
      await other.query("DELETE FROM webhook_inbox WHERE id = $1", [rows[0]!.id]);
      await compactHourlyCounts(app.pool);
      await holder.query("COMMIT");
    } finally {
      await Promise.all([holder.end(), other.end()]);
    }
    const { rollup, truth } = await rollupAndTruth();
    expect(rollup).toEqual(truth);
    expect(truth.filter((row) => row.provider === "collide").map((row) => [row.status, row.n])).toEqual([
      ["pending", 1],
      ["processed", 2],
    ]);
  });

  it("stays exact at every moment under concurrent ingests, settles, moves and purges, folded concurrently", async () => {
    const thisHour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const hours = [0, 1, 2, 5].map((back) => new Date(thisHour - back * 3_600_000 + 60_000));
    const mine = (writer: number) => `stress${writer}-%`;
    // A random few of the writer's own events.
    const some = (limit: number) => `SELECT id FROM webhook_inbox WHERE event_id LIKE $1 ORDER BY random() LIMIT ${limit}`;
    async function write(client: PoolClient, writer: number, next: () => number) {
      const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
      const status = () => pick(["pending", "processed", "failed", "ignored"]);
      const choice = next();
      if (choice < 0.4) {
        const rows = Array.from({ length: 1 + Math.floor(next() * 4) }, () => [pick(["stress-a", "stress-b"]), status(), pick(hours)]);
        await client.query(
          `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
           SELECT provider, $1 || gen_random_uuid(), 'x', status, received_at, '\\x00'
             FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS t(provider, status, received_at)`,
          [mine(writer).slice(0, -1), ...[0, 1, 2].map((column) => rows.map((row) => row[column]))],
        );
      } else if (choice < 0.7) {
        await client.query(`UPDATE webhook_inbox SET status = $2 WHERE id IN (${some(3)})`, [mine(writer), status()]);
      } else if (choice < 0.8) {
        await client.query(`UPDATE webhook_inbox SET received_at = $2 WHERE id IN (${some(1)})`, [mine(writer), pick(hours)]);
      } else if (choice < 0.9) {
        await client.query(`DELETE FROM webhook_inbox WHERE id IN (${some(2)})`, [mine(writer)]);
      } else {
        // Holds a transaction's counts uncommitted a little longer.
        await client.query("SELECT pg_sleep(0.02)");
      }
    }
    async function read(client: PoolClient) {
      const rollup = await client.query(
        `SELECT hour, provider, status, sum(n)::int AS n FROM inbox_hourly_counts WHERE provider LIKE 'stress-%'
          GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`,
      );
      const truth = await client.query(
        `SELECT date_trunc('hour', received_at, 'UTC') AS hour, provider, status, count(*)::int AS n
           FROM webhook_inbox WHERE provider LIKE 'stress-%' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      );
      return { rollup: rollup.rows, truth: truth.rows };
    }
    const fold = () => compactHourlyCounts(app.pool);
    const { differed, folds, reads } = await stressRollup(app.pool, { writers: 6, steps: 40, write, fold, folders: 2, read });
    expect(differed[0]?.rollup).toEqual(differed[0]?.truth);
    expect(differed).toHaveLength(0);
    expect(folds).toBeGreaterThan(1);
    expect(reads).toBeGreaterThan(1);
    const { rows } = await app.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_inbox WHERE provider LIKE 'stress-%'");
    expect(rows[0]!.n).toBeGreaterThan(0);
    // Folded twice at rest: one total per key, every delta gone, no total left at zero.
    await fold();
    await fold();
    const folded = await app.pool.query(
      `SELECT hour, provider, status FROM inbox_hourly_counts GROUP BY 1, 2, 3 HAVING count(*) > 1 OR bool_or(slot <> 0) OR bool_or(n = 0)`,
    );
    expect(folded.rows).toEqual([]);
    const atRest = await rollupAndTruth();
    expect(atRest.rollup).toEqual(atRest.truth);
  });

  it("is emptied with the inbox by TRUNCATE", async () => {
    const db = await createTestApp("stats_truncate");
    try {
      await db.pool.query(`INSERT INTO webhook_inbox (provider, event_id, event_type, raw_body) VALUES ('stripe', 'e1', 'x', '\\x00')`);
      await db.pool.query("TRUNCATE webhook_inbox CASCADE");
      expect((await db.pool.query("SELECT count(*)::int AS n FROM inbox_hourly_counts")).rows[0].n).toBe(0);
    } finally {
      await db.close();
    }
  });
});
