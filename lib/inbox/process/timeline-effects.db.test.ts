import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerPayment } from "../../payments/register-payment";
import { recordDriftEvent } from "../../reconcile/record-drift-event";
import { signedWebhook } from "../../testing/gateway-events";
import { processDeps } from "../../testing/payment-events";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { ingestEvent } from "../ingest/ingest-event";
import { resourceTimeline } from "../queries/get-event";
import { processEvents } from "./process-event";

// A payment's timeline and the changes told to the host agree: an event that moves no status but
// gives the payment a fact (here Mercado Pago's notice naming the seller's account of a payment the
// host registered) shows that effect beside the change it caused.

const SECRET = "mp_timeline_secret";
const CHARGE_ID = "pay_timeline_1";

let app: TestApp;
let api: Server;

beforeAll(async () => {
  // Mercado Pago's GET /v1/payments/{id}: partially refunded, as reconciliation already found it.
  api = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: CHARGE_ID,
        status: "approved",
        status_detail: "partially_refunded",
        transaction_amount: 100,
        transaction_amount_refunded: 40,
        currency_id: "BRL",
      }),
    );
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  app = await createTestApp("timeline_effects", {
    WEBHOOK_SECRET_MERCADOPAGO: SECRET,
    MERCADOPAGO_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    MERCADOPAGO_API_KEY: "APP_USR-test",
  });
});
afterAll(async () => {
  await app?.close();
  api?.close();
});

/** A payment.updated notice of the seller 987654321, stored and processed; its inbox id. */
async function notice(occurredAt: string): Promise<number> {
  const body = { id: Math.floor(Math.random() * 1e11), live_mode: false, type: "payment", date_created: occurredAt, user_id: 987654321 };
  const webhook = signedWebhook(
    "mercadopago",
    String(body.id),
    JSON.stringify({ ...body, api_version: "v1", action: "payment.updated", data: { id: CHARGE_ID } }),
    SECRET,
  );
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config },
    { provider: "mercadopago", rawBody: Buffer.from(webhook.body), headers: webhook.headers, query: new URLSearchParams(webhook.query) },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${outcome.kind}`);
  expect(await processEvents(processDeps(app), [outcome.inboxId])).toEqual(["ignored"]);
  return outcome.inboxId;
}

describe("the timeline of a payment whose notices move no status", () => {
  it("shows the account a notice gave beside the change that told it", async () => {
    await registerPayment(app.pool, { provider: "mercadopago", chargeId: CHARGE_ID, amount: 10000, currency: "brl", status: "pending" });
    // Reconciliation's default run finds it partially refunded before any notice arrives.
    await recordDriftEvent(
      { pool: app.pool, boss: app.boss, config: app.config },
      { provider: "mercadopago", account: "default" },
      {
        kind: "observed_charge",
        resourceId: CHARGE_ID,
        via: "list",
        observedAt: new Date(Date.now() - 2000).toISOString(),
        gatewayStatus: "approved",
        snapshot: { status: "partially_refunded", amount: 10000, amountRefunded: 4000, currency: "brl" },
      },
      "timeline-drift",
    );
    const { rows: derived } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE event_id = 'timeline-drift'");
    expect(await processEvents(processDeps(app), [derived[0]!.id])).toEqual(["processed"]);
    // Its two notices, late: the refetched payment is as reconciliation left it.
    const first = await notice("2026-12-06T16:15:12.000+00:00");
    const second = await notice("2026-12-06T16:16:58.000+00:00");

    const { rows: changes } = await app.pool.query<{ version: number; status: string; gateway_account: string; inbox_id: string }>(
      "SELECT version, status, gateway_account, inbox_id FROM payment_changes ORDER BY version",
    );
    expect(changes.map(({ version, status, gateway_account }) => ({ version, status, gateway_account }))).toEqual([
      { version: 1, status: "partially_refunded", gateway_account: "default" },
      { version: 2, status: "partially_refunded", gateway_account: "987654321" },
    ]);
    expect(Number(changes[1]!.inbox_id)).toBe(first);

    const timeline = await resourceTimeline(app.pool, "mercadopago", CHARGE_ID);
    const entry = (id: number) => timeline.find((event) => event.id === id)!;
    expect(entry(first)).toMatchObject({ status: "ignored", ignoredReason: "duplicate_in_meaning", applied: null, filled: ["account"] });
    expect(entry(second)).toMatchObject({ status: "ignored", applied: null, filled: [] });
    // Every event a change names shows an effect on the timeline.
    for (const change of changes) {
      const cause = entry(Number(change.inbox_id));
      expect(cause.applied !== null || cause.filled.length > 0).toBe(true);
    }
  });
});
