import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import {
  listWorkerBeats,
  recordHeartbeat,
  recordWorkerStart,
  recordWorkerStopped,
  recordWorkerStopping,
  workersSummary,
} from "./worker-heartbeats";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("worker_heartbeats");
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE worker_heartbeats");
});
afterAll(async () => app.close());

const ago = (worker: string, column: "beat_at" | "stopping_at" | "stopped_at", interval: string) =>
  app.pool.query(`UPDATE worker_heartbeats SET ${column} = now() - $2::interval WHERE worker = $1`, [worker, interval]);

const states = async () => (await listWorkerBeats(app.pool)).map((beat) => [beat.worker, beat.state]);

describe("worker states", () => {
  it("alive while it beats, stopping while it drains, stopped once it says so", async () => {
    await recordWorkerStart(app.pool, "host:1");
    await recordHeartbeat(app.pool, "host:1");
    expect(await states()).toEqual([["host:1", "alive"]]);
    await recordWorkerStopping(app.pool, "host:1");
    expect(await states()).toEqual([["host:1", "stopping"]]);
    await recordWorkerStopped(app.pool, "host:1");
    const [stopped] = await listWorkerBeats(app.pool);
    expect(stopped).toMatchObject({ worker: "host:1", state: "stopped", stoppedAt: expect.any(Date) });
    expect(await workersSummary(app.pool)).toMatchObject({ alive: 0, lastHeartbeatAt: expect.any(Date) });
  });

  it("lost within 15 s of its last heartbeat (a killed worker), not a minute later", async () => {
    await recordWorkerStart(app.pool, "host:2");
    await ago("host:2", "beat_at", "14 seconds");
    expect(await states()).toEqual([["host:2", "alive"]]);
    await ago("host:2", "beat_at", "16 seconds");
    expect(await states()).toEqual([["host:2", "lost"]]);
    expect(await workersSummary(app.pool)).toMatchObject({ alive: 0, lastHeartbeatSecondsAgo: 16 });
  });

  it("lost when killed while draining", async () => {
    await recordWorkerStart(app.pool, "host:3");
    await recordWorkerStopping(app.pool, "host:3");
    await ago("host:3", "stopping_at", "50 seconds");
    expect(await states()).toEqual([["host:3", "lost"]]);
  });

  it("lists the live first and fades past workers out: lost for an hour, stopped for ten minutes", async () => {
    for (const worker of ["lost:old", "lost:recent", "stopped:old", "stopped:recent", "alive:1"]) await recordWorkerStart(app.pool, worker);
    await ago("lost:old", "beat_at", "61 minutes");
    await ago("lost:recent", "beat_at", "5 minutes");
    await recordWorkerStopped(app.pool, "stopped:old");
    await ago("stopped:old", "stopped_at", "11 minutes");
    await recordWorkerStopped(app.pool, "stopped:recent");
    expect(await states()).toEqual([
      ["alive:1", "alive"],
      ["lost:recent", "lost"],
      ["stopped:recent", "stopped"],
    ]);
    expect((await workersSummary(app.pool)).alive).toBe(1);
  });

  it("starts fresh when a new process reuses a stopped one's id, and forgets rows older than a day", async () => {
    await recordWorkerStart(app.pool, "host:1");
    await recordWorkerStopped(app.pool, "host:1");
    await recordWorkerStart(app.pool, "host:1");
    expect(await states()).toEqual([["host:1", "alive"]]);
    await recordWorkerStart(app.pool, "gone:9");
    await ago("gone:9", "beat_at", "25 hours");
    await recordHeartbeat(app.pool, "host:1");
    expect((await app.pool.query("SELECT worker FROM worker_heartbeats ORDER BY worker")).rows).toEqual([{ worker: "host:1" }]);
  });
});
