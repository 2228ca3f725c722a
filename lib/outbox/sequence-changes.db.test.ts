import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processEvents, type ProcessDeps } from "@/lib/inbox/process/process-event";
import { ingestStripeStep, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { sequenceChanges } from "./sequence-changes";

// The feed's sequencer shared by concurrent callers, against a real database: many callers cost a
// run or two, and a caller never shares a run whose snapshot predates its call.

let app: TestApp;
let deps: ProcessDeps;

beforeAll(async () => {
  app = await createTestApp("sequence_changes");
  deps = processDeps(app);
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes CASCADE");
});

/** One processed Stripe payment: one committed, unnumbered change. */
async function committedChange(): Promise<string> {
  const payment = stripePayment();
  const { inboxId } = await ingestStripeStep(app, payment, { kind: "succeeded", occurredAtMs: Date.now() - 10_000 });
  expect(await processEvents(deps, [inboxId])).toEqual(["processed"]);
  return payment.chargeId;
}

const position = async (chargeId: string) =>
  (
    await app.pool.query<{ feed_position: string | null }>("SELECT feed_position FROM payment_changes WHERE gateway_charge_id = $1", [
      chargeId,
    ])
  ).rows[0]!.feed_position;

describe("sequencing the feed", () => {
  it("numbers for a hundred concurrent callers in at most two runs", async () => {
    const charges = await Promise.all(Array.from({ length: 5 }, committedChange));
    const connect = app.pool.connect.bind(app.pool);
    let transactions = 0;
    app.pool.connect = (() => {
      transactions++;
      return connect();
    }) as typeof app.pool.connect;
    try {
      await Promise.all(Array.from({ length: 100 }, () => sequenceChanges(app.pool)));
    } finally {
      app.pool.connect = connect as typeof app.pool.connect;
    }
    expect(transactions).toBeGreaterThanOrEqual(1);
    expect(transactions).toBeLessThanOrEqual(2);
    for (const chargeId of charges) expect(await position(chargeId)).not.toBeNull();
  });

  it("numbers a change committed during a run for a caller that came after the commit", async () => {
    const first = await committedChange();
    // Another transaction holds the unnumbered change's row: the run under way waits on it, its
    // statement's snapshot taken before the next change commits.
    const holder = await app.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM payment_changes WHERE gateway_charge_id = $1 FOR UPDATE", [first]);
      const blocked = sequenceChanges(app.pool);
      await expect
        .poll(
          async () =>
            (await app.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH batch AS%'"))
              .rowCount,
        )
        .toBe(1);
      const later = await committedChange();
      const after = sequenceChanges(app.pool);
      await holder.query("COMMIT");
      await Promise.all([blocked, after]);
      expect(await position(first)).not.toBeNull();
      expect(await position(later)).not.toBeNull();
    } finally {
      holder.release();
    }
  });
});
