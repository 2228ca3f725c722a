import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../../config/env";
import { executeErasure, startErasure } from "../../erasure/erasures";
import { REDACTED } from "../../providers/personal-data";
import { randomId, signedWebhook, type PaymentFacts, type SignedWebhook } from "../../testing/gateway-events";
import { changeStripePayment, processDeps, stripePayment } from "../../testing/payment-events";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { testConfig } from "../../testing/test-worker";
import { ingestEvent } from "../ingest/ingest-event";
import { processEvents } from "./process-event";

// What processing writes of a payment's customer when the gateway's API names them (Mercado Pago's
// notice names nobody; its payment, fetched, names the payer in full): an erased payer stays erased
// on a new payment of theirs, and with PII_AT_REST_MERCADOPAGO=redact the e-mail is not kept while
// the payer id (the search key) is.

const HASH_KEY = "kept-customer-hash-key-0123456789abcdef";
const SECRET = "mp_kept_customer_secret";

let app: TestApp;
let api: Server;
const payments = new Map<string, { id: number; status: string; transaction_amount: number; currency_id: string; payer: object }>();

beforeAll(async () => {
  // Mercado Pago's GET /v1/payments/{id}, as its reference shows a payment: the payer in full.
  api = createServer((request, response) => {
    const payment = payments.get(request.url!.split("/").pop()!);
    response.writeHead(payment ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(payment ?? { status: 404 }));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  app = await createTestApp("kept_customer", {
    WEBHOOK_SECRET_MERCADOPAGO: SECRET,
    PAYMENT_SOURCE_MERCADOPAGO: "gateway",
    MERCADOPAGO_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    MERCADOPAGO_API_KEY: "APP_USR-test",
    PRIVACY_HASH_KEY: HASH_KEY,
  });
});
afterAll(async () => {
  await app?.close();
  api?.close();
});

/** A Mercado Pago payment of this payer, notified, stored and processed (its refetch answering the payer in full). */
async function notifyPayment(payer: { id: string; email: string }, config: AppConfig): Promise<string> {
  const id = String(Math.floor(Math.random() * 1e10));
  payments.set(id, {
    id: Number(id),
    status: "approved",
    transaction_amount: 80,
    currency_id: "BRL",
    payer: { ...payer, first_name: "Lia", last_name: "Pagadora", identification: { type: "CPF", number: "52998224725" } },
  });
  const notification = {
    id: Number(String(Date.now()).slice(-9)),
    live_mode: false,
    type: "payment",
    date_created: new Date().toISOString().replace("Z", "+00:00"),
    user_id: 987654321,
    api_version: "v1",
    action: "payment.created",
    data: { id },
  };
  const webhook: SignedWebhook = signedWebhook("mercadopago", String(notification.id), JSON.stringify(notification), SECRET);
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config },
    { provider: "mercadopago", rawBody: Buffer.from(webhook.body), headers: webhook.headers, query: new URLSearchParams(webhook.query) },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${outcome.kind}`);
  expect(await processEvents(processDeps(app, config), [outcome.inboxId])).toEqual(["processed"]);
  return id;
}

const customerOf = async (chargeId: string) =>
  (
    await app.pool.query(
      `SELECT p.customer_id, p.customer_email, c.customer_id AS change_customer_id, c.customer_email AS change_customer_email
         FROM payments p JOIN payment_changes c ON c.payment_id = p.id WHERE p.gateway_charge_id = $1 ORDER BY c.version DESC LIMIT 1`,
      [chargeId],
    )
  ).rows[0];

describe("the customer processing writes", () => {
  it("keeps an erased payer erased on a new payment the gateway's API names them on", async () => {
    const payer = { id: "551100220033", email: "lia.pagadora@example.com" };
    const deps = { pool: app.pool, archiveDir: "/nonexistent", hashKey: HASH_KEY };
    // Erased before anything of hers was stored: the identifier asked for is remembered all the same.
    expect((await executeErasure(deps, await startErasure(deps, { email: payer.email }, { name: "test" })))!.status).toBe("done");
    const chargeId = await notifyPayment(payer, app.config);
    expect(await customerOf(chargeId)).toEqual({
      customer_id: REDACTED,
      customer_email: REDACTED,
      change_customer_id: REDACTED,
      change_customer_email: REDACTED,
    });
    expect((await app.pool.query("SELECT count(*)::int AS n FROM customer_emails WHERE email = $1", [payer.email])).rows[0].n).toBe(0);
    // Another payer is written as the API names them.
    const other = await notifyPayment({ id: "551100229999", email: "outra.pessoa@example.com" }, app.config);
    expect(await customerOf(other)).toMatchObject({ customer_id: "551100229999", customer_email: "outra.pessoa@example.com" });
  });

  it("with PII_AT_REST=redact, keeps the payer id the API names and not the e-mail", async () => {
    const chargeId = await notifyPayment(
      { id: "551100223344", email: "rui.guardado@example.com" },
      testConfig(app.env, { PII_AT_REST_MERCADOPAGO: "redact" }),
    );
    expect(await customerOf(chargeId)).toEqual({
      customer_id: "551100223344",
      customer_email: REDACTED,
      change_customer_id: "551100223344",
      change_customer_email: REDACTED,
    });
  });

  it("never fills in the e-mail an erased payment did not know yet", async () => {
    // Stripe sends `receipt_email: null` when the charge has none.
    const payment: PaymentFacts = { ...stripePayment(), customerId: `cus_${randomId("x")}`, customerEmail: null as unknown as string };
    expect(await changeStripePayment(app, processDeps(app), payment, { kind: "succeeded" })).toBe("processed");
    const deps = { pool: app.pool, archiveDir: "/nonexistent", hashKey: HASH_KEY };
    await executeErasure(deps, await startErasure(deps, { customerId: payment.customerId }, { name: "test" }));
    // A refund a month later names an e-mail nobody erased (the customer id it lacks): the payment's stays redacted.
    expect(
      await changeStripePayment(
        app,
        processDeps(app),
        { ...payment, customerId: null as unknown as string, customerEmail: "nova@example.com" },
        {
          kind: "refund",
          amountRefunded: payment.amount,
        },
      ),
    ).toBe("processed");
    expect(await customerOf(payment.chargeId)).toMatchObject({ customer_id: REDACTED, customer_email: REDACTED });
  });
});
