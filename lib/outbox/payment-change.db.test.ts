import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HistoryStep, PaymentFacts } from "@/lib/testing/gateway-events";
import { processEvent, processEvents, type ProcessDeps } from "@/lib/inbox/process/process-event";
import { registerPaymentAndWake } from "@/lib/inbox/process/wake-waiting-events";
import { ingestStripeStep, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";

// The change the outbox records beside each payment change, in the payment statement, against a real database.

let app: TestApp;
let deps: ProcessDeps;

beforeAll(async () => {
  app = await createTestApp("payment_changes");
  deps = processDeps(app);
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes CASCADE");
});

const facts = stripePayment;
const ingest = (payment: PaymentFacts, step: Pick<HistoryStep, "kind"> & Partial<HistoryStep>) => ingestStripeStep(app, payment, step);

async function changes(chargeId: string) {
  const { rows } = await app.pool.query(
    `SELECT version, previous_status, status, amount::int, amount_refunded::int, currency, customer_id, customer_email,
            inbox_id::int, event_id, event_type, occurred_at
       FROM payment_changes WHERE gateway_charge_id = $1 ORDER BY version`,
    [chargeId],
  );
  return rows;
}

describe("payment changes, written with the payment", () => {
  it("records each change with the payment's next version, its states and its cause", async () => {
    const payment = facts();
    const now = Date.now();
    const paid = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    const refund = await ingest(payment, { kind: "refund", amountRefunded: 400, occurredAtMs: now - 20_000 });
    expect(await processEvents(deps, [paid.inboxId])).toEqual(["processed"]);
    expect(await processEvents(deps, [refund.inboxId])).toEqual(["processed"]);

    const rows = await changes(payment.chargeId);
    expect(rows).toMatchObject([
      {
        version: 1,
        previous_status: null,
        status: "paid",
        amount: 1000,
        amount_refunded: 0,
        currency: "usd",
        customer_id: "cus_7",
        customer_email: "ana@example.com",
        inbox_id: paid.inboxId,
        event_id: paid.eventId,
        event_type: "charge.succeeded",
      },
      {
        version: 2,
        previous_status: "paid",
        status: "partially_refunded",
        amount_refunded: 400,
        inbox_id: refund.inboxId,
        event_id: refund.eventId,
      },
    ]);
    expect(rows[0].occurred_at.getTime()).toBe(Math.floor((now - 30_000) / 1000) * 1000);
    const { rows: current } = await app.pool.query("SELECT version FROM payments WHERE gateway_charge_id = $1", [payment.chargeId]);
    expect(current).toEqual([{ version: 2 }]);
  });

  it("writes nothing for an event that changes nothing: stale, same state again, or a replay of an applied one", async () => {
    const payment = facts();
    const now = Date.now();
    const paid = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    await processEvent(deps, paid.inboxId);
    const again = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 10_000 });
    const stale = await ingest(payment, { kind: "pending", occurredAtMs: now - 40_000 });
    expect(await processEvents(deps, [again.inboxId])).toEqual(["ignored"]);
    expect(await processEvents(deps, [stale.inboxId])).toEqual(["ignored"]);
    // A replay of the applied event runs it again: its effect is already in the ledger.
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending', attempts = 0 WHERE id = $1", [paid.inboxId]);
    expect(await processEvent(deps, paid.inboxId)).toBe("processed");
    expect((await changes(payment.chargeId)).map(({ version }) => version)).toEqual([1]);
  });

  it("records a change when an event changes no status but gives a fact the payment lacked, and none when it gives nothing new", async () => {
    const payment = facts();
    const now = Date.now();
    // Taken as delivered (no refetch): a dispute first, whose body names the charge but not its amount, currency or customer.
    const deps = processDeps(app, testConfig(app.env, { REFETCH_STRIPE: "none" }));
    const disputed = await ingest(payment, { kind: "dispute_opened", occurredAtMs: now - 10_000 });
    expect(await processEvents(deps, [disputed.inboxId])).toEqual(["processed"]);
    expect(await changes(payment.chargeId)).toMatchObject([{ version: 1, status: "disputed", amount: null, currency: null }]);
    // The payment's older success arrives late: stale, so the status stays, but its amount is news to the host.
    const paid = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    expect(await processEvents(deps, [paid.inboxId])).toEqual(["ignored"]);
    const rows = await changes(payment.chargeId);
    expect(rows).toMatchObject([
      { version: 1, status: "disputed" },
      {
        version: 2,
        previous_status: "disputed",
        status: "disputed",
        amount: 1000,
        currency: "usd",
        customer_id: "cus_7",
        customer_email: "ana@example.com",
        inbox_id: paid.inboxId,
        event_type: "charge.succeeded",
      },
    ]);
    const { rows: current } = await app.pool.query(
      "SELECT p.version, (SELECT count(*)::int FROM payment_transitions t WHERE t.payment_id = p.id) AS transitions FROM payments p WHERE gateway_charge_id = $1",
      [payment.chargeId],
    );
    expect(current).toEqual([{ version: 2, transitions: 1 }]);
    // The same facts again, later: nothing new for the host.
    const again = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 20_000 });
    expect(await processEvents(deps, [again.inboxId])).toEqual(["ignored"]);
    expect((await changes(payment.chargeId)).map(({ version }) => version)).toEqual([1, 2]);
  });

  it("takes a zero amount a late event gives as a fact the payment lacked", async () => {
    // A zero-amount authorization (a card check) is a payment whose amount is known: 0, not unknown.
    const payment = { ...facts(), amount: 0 };
    const now = Date.now();
    const deps = processDeps(app, testConfig(app.env, { REFETCH_STRIPE: "none" }));
    const disputed = await ingest(payment, { kind: "dispute_opened", occurredAtMs: now - 10_000 });
    expect(await processEvents(deps, [disputed.inboxId])).toEqual(["processed"]);
    const paid = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    expect(await processEvents(deps, [paid.inboxId])).toEqual(["ignored"]);
    expect(await changes(payment.chargeId)).toMatchObject([
      { version: 1, amount: null, currency: null },
      { version: 2, status: "disputed", amount: 0, currency: "usd", customer_id: "cus_7", inbox_id: paid.inboxId },
    ]);
  });

  it("numbers a host-registered payment's first change 1, after its registration", async () => {
    const payment = facts();
    await registerPaymentAndWake(
      { pool: app.pool, boss: app.boss, config: app.config },
      { provider: "stripe", chargeId: payment.chargeId, amount: 1000, currency: "usd" },
    );
    expect(await changes(payment.chargeId)).toEqual([]);
    const paid = await ingest(payment, { kind: "succeeded" });
    await processEvent(deps, paid.inboxId);
    expect(await changes(payment.chargeId)).toMatchObject([{ version: 1, previous_status: "pending", status: "paid" }]);
  });

  it("rolls the change back with the payment when the transaction fails", async () => {
    const payment = facts();
    const paid = await ingest(payment, { kind: "succeeded" });
    // A settle that cannot commit (the attempt was superseded) takes its change with it.
    await app.pool.query("CREATE FUNCTION fail_settle() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$");
    await app.pool.query("CREATE TRIGGER fail_settle BEFORE UPDATE OF status ON webhook_inbox FOR EACH ROW EXECUTE FUNCTION fail_settle()");
    try {
      expect(await processEvent(deps, paid.inboxId)).toBe("retry");
    } finally {
      await app.pool.query("DROP TRIGGER fail_settle ON webhook_inbox; DROP FUNCTION fail_settle()");
    }
    expect(await changes(payment.chargeId)).toEqual([]);
    expect((await app.pool.query("SELECT 1 FROM payments WHERE gateway_charge_id = $1", [payment.chargeId])).rowCount).toBe(0);
  });
});
