import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkFinalStates, planWebhooks, sendAll } from "@/e2e/simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "@/e2e/simulator/fake-gateway";
import { generateHistories } from "@/e2e/simulator/history";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { createTestApp, ingestWebhook, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { createGatewayClients } from "../../http/gateway-clients";
import { statusContradiction } from "../../payments/payment-consistency";
import { ingestEvent } from "../ingest/ingest-event";
import { processEvent } from "./process-event";

// Notices that cross, end to end on the real database: Pagar.me's own payloads and Asaas's, signed
// as each gateway signs, ingested and processed by the worker's code, refetching through the fake
// gateway. Whatever order they are processed in, a charge refunded after capture ends refunded and
// a restored Asaas payment that was paid ends paid, a Zoop transaction.failed in its published
// envelope fails a pending payment, and no payment's status contradicts its amounts.

type Webhook = { id: string; type: string; created_at: string; data: Record<string, unknown> & { id: string } };
const refundedWebhook = readFixture<Webhook>("pagarme/charge-refunded-webhook.json");
const orderPaid = readFixture<Webhook & { data: { charges: Record<string, unknown>[] } }>("pagarme/order-paid-webhook.json");
const asaasReceived = readFixture<{ id: string; event: string; dateCreated: string; payment: Record<string, unknown> }>(
  "asaas/payment-received-webhook.json",
);

const zoopFailed = readFixture<{ id: string; type: string; payload: Record<string, unknown> }>("zoop/transaction-failed-event.json");

const ASAAS_TOKEN = "asaas_webhook_token";
const ZOOP_BASIC = "zoop:webhook-pass";
const ZOOP = { WEBHOOK_SECRET_ZOOP: ZOOP_BASIC, PAYMENT_SOURCE_ZOOP: "gateway" };
const PAGARME = { PAGARME_SIGNATURES: "rs256", PAYMENT_SOURCE_PAGARME: "gateway" };
const ASAAS = { WEBHOOK_SECRET_ASAAS: ASAAS_TOKEN, PAYMENT_SOURCE_ASAAS: "gateway" };

let app: TestApp;
let gateway: FakeGateway;
let sequence = 0;

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("crossed", {
    ...fakeGatewayEnv(gateway.url),
    ...PAGARME,
    ...ASAAS,
    ...ZOOP,
    WORKER_MAX_ATTEMPTS: "1",
  });
});
afterAll(async () => {
  await app.close();
  await gateway.close();
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, processing_attempts, payment_transitions CASCADE");
  gateway.intercept(null);
});

function deps(overrides: Record<string, string> = {}) {
  const config = testConfig(app.env, overrides);
  return { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config), workerId: "test" };
}

async function ingested(provider: "pagarme" | "asaas" | "zoop", eventId: string, body: object): Promise<number> {
  const secret = { pagarme: gateway.pagarmeKey, asaas: ASAAS_TOKEN, zoop: ZOOP_BASIC }[provider];
  const webhook = signedWebhook(provider, eventId, JSON.stringify({ ...body, id: eventId }), secret);
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config },
    { provider, rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  return outcome.inboxId;
}

async function payment(chargeId: string) {
  const { rows } = await app.pool.query<{ status: string; amount: number | null; amount_refunded: number }>(
    "SELECT status, amount, amount_refunded FROM payments WHERE gateway_charge_id = $1",
    [chargeId],
  );
  return rows[0];
}

/** Every payment and every change pushed to the host, with the status contradicting its amounts. */
async function contradictions() {
  const { rows } = await app.pool.query<{ status: string; amount: number | null; amount_refunded: number }>(
    "SELECT status, amount, amount_refunded FROM payments UNION ALL SELECT status, amount, amount_refunded FROM payment_changes",
  );
  return rows.flatMap((row) =>
    [statusContradiction({ status: row.status as never, amount: row.amount, amountRefunded: row.amount_refunded })].filter(Boolean),
  );
}

/** Every order of `items`. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) => orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

describe("Pagar.me: a charge refunded after capture, its notices crossed", () => {
  const chargeId = refundedWebhook.data.id;
  // The charge as GET /charges/{id} shows it once refunded: the published charge.refunded's charge.
  const serveRefundedCharge = () =>
    gateway.intercept((path) => (path.endsWith(`/charges/${chargeId}`) ? { status: 200, body: refundedWebhook.data } : undefined));
  // The charge.paid that came before it: the documented order.paid's charge, for this charge.
  const paidCharge = { ...orderPaid.data.charges[0]!, id: chargeId, amount: refundedWebhook.data.amount };
  const paidWebhook = variant(refundedWebhook, { type: "charge.paid", created_at: "2025-01-06T18:38:36Z", data: paidCharge });

  it.each([
    ["charge.refunded first", ["refunded", "paid"]],
    ["charge.paid first", ["paid", "refunded"]],
  ] as const)("ends refunded, %s, each refetched", async (_order, sequenceOf) => {
    serveRefundedCharge();
    const ids = {
      refunded: await ingested("pagarme", `hook_refunded_${++sequence}`, refundedWebhook),
      paid: await ingested("pagarme", `hook_paid_${sequence}`, paidWebhook),
    };
    for (const which of sequenceOf) expect(await processEvent(deps(), ids[which])).toMatch(/processed|ignored/);
    expect(await payment(chargeId)).toMatchObject({ status: "refunded", amount: 21734, amount_refunded: 21734 });
    expect(await contradictions()).toEqual([]);
  });

  it("takes a later charge.paid on a payment held canceled as captured first: refunded", async () => {
    serveRefundedCharge();
    // A notice that says nothing of the money (charge.pending), refetched once the charge was refunded:
    // the charge alone reads as a cancellation, with no refund beside it.
    const pendingWebhook = variant(refundedWebhook, {
      type: "charge.pending",
      created_at: "2025-01-06T18:38:33Z",
      data: { ...paidCharge, status: "pending", paid_at: null },
    });
    expect(await processEvent(deps(), await ingested("pagarme", `hook_pending_${++sequence}`, pendingWebhook))).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "canceled", amount_refunded: 0 });
    expect(await processEvent(deps(), await ingested("pagarme", `hook_paid_${sequence}`, paidWebhook))).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "refunded", amount_refunded: 21734 });
    const { rows } = await app.pool.query("SELECT from_status, to_status FROM payment_transitions ORDER BY id");
    expect(rows).toEqual([
      { from_status: null, to_status: "canceled" },
      { from_status: "canceled", to_status: "refunded" },
    ]);
  });

  it("reads the bodies alone the same way when refetch is off", async () => {
    const noRefetch = { REFETCH_PAGARME: "none" };
    const ids = [
      await ingested("pagarme", `hook_refunded_${++sequence}`, refundedWebhook),
      await ingested("pagarme", `hook_paid_${sequence}`, paidWebhook),
    ];
    for (const id of ids) expect(await processEvent(deps(noRefetch), id)).toMatch(/processed|ignored/);
    expect(await payment(chargeId)).toMatchObject({ status: "refunded", amount_refunded: 21734 });
  });

  it("ends the simulator's shuffled Pagar.me histories in their true state, 300 of 300, none contradicting its amounts", async () => {
    const histories = generateHistories(7, 300, ["pagarme"]);
    gateway.add(histories);
    const secrets = { pagarme: gateway.pagarmeKey };
    const plan = planWebhooks(histories, { secrets, duplicateRate: 0.3, shuffle: "full", seed: 7 });
    const report = await sendAll(plan, (webhook) => ingestWebhook(app, webhook), { concurrency: 16, secrets });
    expect(report.failed).toBe(0);
    // In the shuffled order they were stored, one by one, as one worker would take them.
    const { rows: stored } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox ORDER BY received_at, id");
    for (const { id } of stored) await processEvent(deps(), id);
    const check = await checkFinalStates(histories, async (history) => {
      const row = await payment(history.payment.chargeId);
      return row ? { status: row.status, amountRefunded: row.amount_refunded } : null;
    });
    expect(check.mismatches).toEqual([]);
    expect(check.matched).toBe(300);
    expect(await contradictions()).toEqual([]);
    // About 1,200 events processed one by one, each refetched: seconds on a quiet machine, minutes on a busy one.
  }, 360_000);
});

describe("Asaas: a deleted payment restored and paid", () => {
  const paymentId = `pay_restored_${Date.now()}`;
  const at = (time: string) => `2024-06-12 ${time}`;
  const webhook = (event: string, dateCreated: string, fields: Record<string, unknown>) =>
    variant(asaasReceived, {
      id: `evt_${event}_${++sequence}`,
      event,
      dateCreated,
      payment: variant(asaasReceived.payment, { id: paymentId, ...fields }),
    });
  const deleted = () => webhook("PAYMENT_DELETED", at("10:00:00"), { status: "PENDING", deleted: true });
  const restored = () => webhook("PAYMENT_RESTORED", at("10:05:00"), { status: "PENDING" });
  const receivedEvent = () => webhook("PAYMENT_RECEIVED", at("10:10:00"), {});

  it.each(orders(["deleted", "restored", "received"] as const).map((order) => [order.join(" -> "), order] as const))(
    "ends paid, processed %s from the bodies alone",
    async (_name, order) => {
      const bodies = { deleted: deleted(), restored: restored(), received: receivedEvent() };
      const ids = Object.fromEntries(
        await Promise.all(Object.entries(bodies).map(async ([name, body]) => [name, await ingested("asaas", body.id, body)] as const)),
      );
      for (const name of order) expect(await processEvent(deps({ REFETCH_ASAAS: "none" }), ids[name]!)).toMatch(/processed|ignored/);
      expect(await payment(paymentId)).toMatchObject({ status: "paid", amount: 10000, amount_refunded: 0 });
      expect(await contradictions()).toEqual([]);
    },
  );

  it("ends paid through refetches, whichever notice the gateway's current state answers", async () => {
    gateway.add([
      {
        provider: "asaas",
        payment: { chargeId: paymentId, amount: 10000, currency: "brl", customerId: "cus_G7Dvo4iphUNk", customerEmail: "x@example.com" },
        steps: [],
        truth: { status: "paid", amountRefunded: 0 },
      },
    ]);
    // PAYMENT_DELETED processed while the payment was still deleted: its body says so.
    expect(await processEvent(deps({ REFETCH_ASAAS: "none" }), await ingested("asaas", `evt_deleted_${++sequence}`, deleted()))).toBe(
      "processed",
    );
    expect(await payment(paymentId)).toMatchObject({ status: "canceled" });
    for (const body of [restored(), receivedEvent()])
      expect(await processEvent(deps(), await ingested("asaas", body.id, body))).toMatch(/processed|ignored/);
    expect(await payment(paymentId)).toMatchObject({ status: "paid" });
  });
});

describe("Zoop: the published transaction.failed, applied", () => {
  // zoop-wrapper's published event: the transaction directly under payload beside its error, no
  // payload.object, its ids blanked by the library (filled in here; the event id stays blank).
  const transactionId = `zoop_failed_${Date.now()}`;
  const failedTransaction = variant(zoopFailed.payload, { id: transactionId });
  const pendingTransaction = variant(failedTransaction, { status: "pending", captured: false });
  const event = (type: string, transaction: object, createdAt: string) =>
    variant(zoopFailed, { type, created_at: createdAt, payload: transaction } as never);
  const serve = (transaction: object) =>
    gateway.intercept((path) => (path.endsWith(`/transactions/${transactionId}`) ? { status: 200, body: transaction } : undefined));

  it("fails the pending payment it refetches, stored as parsed", async () => {
    serve(pendingTransaction);
    const created = await ingested("zoop", "", event("transaction.created", pendingTransaction, "2020-06-25T18:03:26+00:00"));
    expect(await processEvent(deps(), created)).toBe("processed");
    expect(await payment(transactionId)).toMatchObject({ status: "pending", amount: 1005 });
    serve(failedTransaction);
    const failed = await ingested("zoop", "", event("transaction.failed", failedTransaction, "2020-06-25T18:03:27+00:00"));
    expect(await processEvent(deps(), failed)).toBe("processed");
    const { rows } = await app.pool.query<{ event_id: string; resource_id: string; event_type: string }>(
      "SELECT event_id, resource_id, event_type FROM webhook_inbox WHERE id = $1",
      [failed],
    );
    expect(rows[0]).toMatchObject({ resource_id: transactionId, event_type: "transaction.failed" });
    expect(await payment(transactionId)).toMatchObject({ status: "failed", amount: 1005, amount_refunded: 0 });
    expect(await contradictions()).toEqual([]);
  });
});
