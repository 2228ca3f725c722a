import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { maintenanceJob } from "../jobs/definitions/maintenance";
import { pruneReconcileRuns } from "./reconcile-runs";

// With thousands of accounts reconciliation records a run per account per interval: the maintenance
// job deletes the old ones that found nothing, keeping the evidence of incidents and what the
// schedule needs.

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("reconcile_runs", { RECONCILE_RUNS_KEEP_DAYS: "30" });
});
afterAll(async () => {
  await app.close();
});

type Run = { account: string; trigger: string; daysAgo: number; repaired?: number; missing?: number };

async function insert(runs: Run[]): Promise<void> {
  for (const run of runs)
    await app.pool.query(
      `INSERT INTO reconcile_runs (provider, gateway_account, trigger, window_start, window_end, status, repaired, missing_ingested, started_at)
       VALUES ('stripe', $1, $2, now(), now(), 'finished', $3, $4, now() - make_interval(days => $5))`,
      [run.account, run.trigger, run.repaired ?? 0, run.missing ?? 0, run.daysAgo],
    );
}

const left = async () =>
  (
    await app.pool.query<{ run: string }>(
      `SELECT gateway_account || '/' || trigger || '/' || extract(day FROM now() - started_at)::int AS run FROM reconcile_runs ORDER BY 1`,
    )
  ).rows.map((row) => row.run);

describe("pruning reconciliation runs", () => {
  it("deletes the old runs that found nothing, keeping findings, each account's latest scheduled run and recent ones", async () => {
    await insert([
      { account: "shop-a", trigger: "schedule", daysAgo: 50 },
      { account: "shop-a", trigger: "schedule", daysAgo: 40 },
      { account: "shop-a", trigger: "schedule", daysAgo: 35, repaired: 1 },
      { account: "shop-a", trigger: "schedule", daysAgo: 5 },
      // Its only scheduled run: the schedule reads when it is next due from it.
      { account: "shop-b", trigger: "schedule", daysAgo: 60 },
      { account: "shop-b", trigger: "cli", daysAgo: 45 },
      { account: "shop-b", trigger: "console", daysAgo: 31, missing: 2 },
      { account: "shop-b", trigger: "cli", daysAgo: 29 },
    ]);
    expect(await pruneReconcileRuns(app.pool, 30, 1)).toBe(1);
    expect(await left()).not.toContain("shop-a/schedule/50");
    const result = await maintenanceJob.run({ pool: app.pool, config: app.config } as Parameters<typeof maintenanceJob.run>[0], {});
    expect(result.reconcileRunsPruned).toBe(2);
    expect(await left()).toEqual(["shop-a/schedule/35", "shop-a/schedule/5", "shop-b/cli/29", "shop-b/console/31", "shop-b/schedule/60"]);
    expect(await pruneReconcileRuns(app.pool, 30, 100)).toBe(0);
  });
});
