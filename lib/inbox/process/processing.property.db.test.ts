import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkFinalStates, sendAll, planWebhooks } from "@/e2e/simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "@/e2e/simulator/fake-gateway";
import { generateHistories } from "@/e2e/simulator/history";
import { createTestApp, ingestWebhook, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { startTestWorker, testConfig, waitFor, type TestWorker } from "@/lib/testing/test-worker";

// Property: for random payment histories (refunds sent before paid, several events in one
// second, partial refunds, disputes), sent in any order with duplicates and processed by two
// workers at once, every payment ends in its true final state, every event is processed or
// ignored exactly once, and no effect is applied twice.

const SEEDS = [11, 23, 47, 1999, 4242, 90210];
const PAYMENTS_PER_SEED = 60;
const secrets = { stripe: TEST_SECRETS.stripe, standard: TEST_SECRETS.standard };

let app: TestApp;
let gateway: FakeGateway;
let workers: TestWorker[];

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("property", fakeGatewayEnv(gateway.url));
  // One worker with the default concurrency (batches of up to 16) beside one taking batches of 2.
  workers = [
    await startTestWorker(app.db.url, testConfig(app.env), "worker-a"),
    await startTestWorker(app.db.url, testConfig(app.env, { WORKER_CONCURRENCY: "4" }), "worker-b"),
  ];
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await app.close();
  await gateway.close();
});

describe("processing, property-based", () => {
  it.each(SEEDS)("seed %i: true final states, each event settled exactly once, no effect twice", async (seed) => {
    const histories = generateHistories(seed, PAYMENTS_PER_SEED, ["stripe", "standard"], { sameSecondRate: 0.5 });
    gateway.add(histories);
    const plan = planWebhooks(histories, { secrets, duplicateRate: 0.3, shuffle: "full", seed });
    const report = await sendAll(plan, (webhook) => ingestWebhook(app, webhook), { concurrency: 16, secrets });
    expect(report.failed).toBe(0);
    const chargeIds = histories.map((history) => history.payment.chargeId);
    const uniqueEvents = new Set(plan.map((webhook) => `${webhook.provider}:${webhook.eventId}`)).size;

    await waitFor(
      async () => {
        const { rows } = await app.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_inbox WHERE resource_id = ANY($1) AND status IN ('processed', 'ignored')",
          [chargeIds],
        );
        return rows[0]!.n === uniqueEvents;
      },
      60_000,
      `${uniqueEvents} events settled`,
    );

    const check = await checkFinalStates(histories, async (history) => {
      const { rows } = await app.pool.query("SELECT status, amount_refunded FROM payments WHERE provider = $1 AND gateway_charge_id = $2", [
        history.provider,
        history.payment.chargeId,
      ]);
      return rows[0] ? { status: rows[0].status, amountRefunded: rows[0].amount_refunded } : null;
    });
    expect(check.mismatches).toEqual([]);

    const { rows: inbox } = await app.pool.query<{ id: number; status: string; settled: number; other: number }>(
      `SELECT i.id, i.status,
              count(*) FILTER (WHERE a.outcome IN ('processed', 'ignored'))::int AS settled,
              count(*) FILTER (WHERE a.outcome NOT IN ('processed', 'ignored'))::int AS other
         FROM webhook_inbox i LEFT JOIN processing_attempts a ON a.inbox_id = i.id
        WHERE i.resource_id = ANY($1)
        GROUP BY i.id, i.status`,
      [chargeIds],
    );
    expect(inbox).toHaveLength(uniqueEvents);
    expect(inbox.filter((row) => row.settled !== 1 || row.other !== 0)).toEqual([]);

    // The effect ledger holds exactly one row per processed event (UNIQUE inbox_id forbids more).
    const { rows: ledger } = await app.pool.query<{ processed: number; effects: number }>(
      `SELECT (SELECT count(*)::int FROM webhook_inbox WHERE resource_id = ANY($1) AND status = 'processed') AS processed,
              (SELECT count(*)::int FROM payment_transitions t JOIN payments p ON p.id = t.payment_id
                WHERE p.gateway_charge_id = ANY($1)) AS effects`,
      [chargeIds],
    );
    expect(ledger[0]!.effects).toBe(ledger[0]!.processed);
  });

  it("spread the work over both workers", () => {
    expect(workers[0]!.outcomes.length).toBeGreaterThan(0);
    expect(workers[1]!.outcomes.length).toBeGreaterThan(0);
  });
});
