import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { createGatewayClients } from "../http/gateway-clients";
import { createWorkerBoss } from "../queue/boss";
import { createTestApp, type TestApp } from "../testing/test-app";
import { waitFor } from "../testing/test-worker";
import { getReplayRun, startReplayRun } from "../inbox/replay/replay-runs";
import { erasuresJob } from "./definitions/erasures";
import { maintenanceJob } from "./definitions/maintenance";
import { replaysJob } from "./definitions/replays";
import { sweeperJob } from "./definitions/sweeper";
import type { JobDeps } from "./job-definition";
import { JOBS } from "./job-list";
import { runJob, workJob } from "./work-jobs";

// Every queue is one definition in JOBS: the migration creates each with its settings, a worker
// schedules and takes each from the list, and the CLI's way in parses data as a queued job's is.

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  app = await createTestApp("jobs");
  deps = { pool: app.pool, boss: app.boss, config: app.config, gateways: createGatewayClients(app.config), workerId: "test" };
});
afterAll(() => app.close());

describe("jobs", () => {
  it("keep the pg-boss names existing databases hold, each queue once (a new queue adds a name)", () => {
    const names = JOBS.map((job) => job.name);
    expect(names).toEqual(
      expect.arrayContaining(["alerts", "maintenance", "reconcile", "replays", "replays-abandoned", "retention", "sweeper", "webhooks"]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it("are each installed by the migration with their definition's settings", async () => {
    for (const job of JOBS) {
      const queue = await app.boss.getQueue(job.name);
      expect(queue, job.name).not.toBeNull();
      expect(queue).toMatchObject({ policy: job.queue.policy ?? "standard", retryLimit: job.queue.retryLimit });
    }
    expect((await app.boss.getQueue(replaysJob.name))?.deadLetter).toBe("replays-abandoned");
    expect((await app.boss.getQueue(erasuresJob.name))?.deadLetter).toBe("privacy-erasures-abandoned");
  });

  it("validate data given to run as a queued job's is", async () => {
    await expect(runJob(sweeperJob, deps, { staleSeconds: -1 })).rejects.toBeInstanceOf(ZodError);
    expect(await runJob(sweeperJob, deps, null)).toEqual({ dispatched: 0, skipped: false });
  });

  it("are scheduled and worked by a worker from their definition (maintenance folds the rollups' deltas)", async () => {
    await app.pool.query(
      `INSERT INTO inbox_hourly_counts (hour, provider, status, slot, n)
       VALUES (date_trunc('hour', now(), 'UTC') - interval '5 hours', 'stripe', 'processed', 1, 2),
              (date_trunc('hour', now(), 'UTC') - interval '5 hours', 'stripe', 'processed', 1, 1)`,
    );
    const boss = createWorkerBoss(app.db.url, 1);
    await boss.start();
    try {
      await workJob(boss, maintenanceJob, { ...deps, boss });
      expect((await boss.getSchedules(maintenanceJob.name)).map((schedule) => schedule.cron)).toEqual(["* * * * *"]);
      await boss.send(maintenanceJob.name, null);
      await waitFor(
        async () => (await boss.findJobs(maintenanceJob.name)).some((job) => job.state === "completed"),
        30_000,
        "a completed maintenance job",
      );
    } finally {
      await boss.stop({ graceful: false });
    }
    const { rows } = await app.pool.query("SELECT slot, n FROM inbox_hourly_counts WHERE provider = 'stripe'");
    expect(rows).toEqual([{ slot: 0, n: 3 }]);
  });

  it("run a job that reports nothing too: a console's bulk replay run is executed by a worker", async () => {
    for (const id of ["r1", "r2", "r3"]) {
      await app.pool.query(
        `INSERT INTO webhook_inbox (provider, event_id, event_type, status, raw_body) VALUES ('standard', $1, 'x', 'failed', '\\x00')`,
        [id],
      );
    }
    const boss = createWorkerBoss(app.db.url, 1);
    await boss.start();
    try {
      await workJob(boss, replaysJob, { ...deps, boss });
      const run = await startReplayRun(app, { provider: "standard", statuses: ["failed"] }, "ops", { confirmThreshold: 100 });
      expect(
        await waitFor(async () => (await getReplayRun(app.pool, run.id))?.status === "done" && getReplayRun(app.pool, run.id)),
      ).toMatchObject({
        replayed: 3,
      });
    } finally {
      await boss.stop({ graceful: false });
    }
  });
});
