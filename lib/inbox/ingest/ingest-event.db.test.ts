import { createHmac } from "node:crypto";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signedWebhook, stripeEvent, type PaymentFacts } from "@/lib/testing/gateway-events";
import { signStandard } from "@/lib/providers/standard";
import { signStripe } from "@/lib/providers/stripe";
import { clearInbox, createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { useWebRuntime } from "@/e2e/harness/web-runtime";
import { asymmetricSignature, generateSigningKey, startJwksServer, type JwksServer } from "@/lib/testing/jwks-server";
import { dispatchEvents, RECEIVED_AT_TEXT } from "@/lib/queue/boss";
import { ingestEvent } from "./ingest-event";

// The ingest path end to end through the real route handler, on a database of this file's own.

let app: TestApp;
let POST: (request: NextRequest, context: { params: Promise<{ provider: string }> }) => Promise<Response>;

const payment: PaymentFacts = {
  chargeId: "ch_ingest_1",
  amount: 2500,
  currency: "usd",
  customerId: "cus_42",
  customerEmail: "maria@example.com",
};

function post(provider: string, body: string | Buffer, headers: Record<string, string>) {
  const request = new NextRequest(`http://localhost/api/webhooks/${provider}`, {
    method: "POST",
    body: new Uint8Array(typeof body === "string" ? Buffer.from(body) : body),
    headers,
  });
  return POST(request, { params: Promise.resolve({ provider }) });
}

function stripeWebhook(id = "evt_ingest_1", secret: string = TEST_SECRETS.stripe) {
  const event = stripeEvent(payment, { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 }, id);
  return signedWebhook("stripe", event.id, JSON.stringify(event), secret);
}

async function count(sql: string): Promise<number> {
  const { rows } = await app.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`);
  return rows[0]!.n;
}

const webhookJobs = () => count("pgboss.job WHERE name = 'webhooks'");

let stopWebRuntime: () => Promise<void>;
let jwks: JwksServer;
const pagarmeKey = generateSigningKey("kid-ingest-1");
const MERCADOPAGO_SECRET = "mp_ingest_secret";

beforeAll(async () => {
  jwks = await startJwksServer([pagarmeKey]);
  app = await createTestApp("ingest", { WEBHOOK_BODY_LIMIT_BYTES: "4096" });
  stopWebRuntime = useWebRuntime(app, {
    WEBHOOK_SECRET_PAGARME: "",
    PAGARME_SIGNATURES: "rs256",
    PAGARME_JWKS_URL: jwks.url,
    WEBHOOK_SECRET_MERCADOPAGO: MERCADOPAGO_SECRET,
  });
  ({ POST } = await import("@/app/api/webhooks/[provider]/route"));
});

afterAll(async () => {
  await jwks.close();
  await stopWebRuntime();
  await app.close();
});

beforeEach(() => clearInbox(app));

describe("POST /api/webhooks/{provider}", () => {
  it("stores 50 concurrent webhooks of one event exactly once, with one job, answering 200 to all", async () => {
    const webhook = stripeWebhook();
    const responses = await Promise.all(Array.from({ length: 50 }, () => post("stripe", webhook.body, webhook.headers)));
    const bodies = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(bodies.filter((body) => body.duplicate === false)).toHaveLength(1);
    expect(bodies.filter((body) => body.duplicate === true)).toHaveLength(49);
    expect(await count("webhook_inbox")).toBe(1);
    expect(await webhookJobs()).toBe(1);
  });

  it("stores the exact raw bytes, the signature header and the normalized columns", async () => {
    const webhook = stripeWebhook("evt_bytes");
    // Unusual but valid JSON spacing: re-encoding would change the bytes and break re-verification.
    const body = webhook.body.replace('"type":', '"type" :  ');
    const signed = signedWebhook("stripe", "evt_bytes", body, TEST_SECRETS.stripe);
    expect((await post("stripe", signed.body, signed.headers)).status).toBe(200);
    const { rows } = await app.pool.query(
      `SELECT raw_body, headers, event_type, resource_id, customer_email, status, event_id_derived,
              occurred_at_precision, payload->>'id' AS payload_id FROM webhook_inbox`,
    );
    expect(rows[0].raw_body.toString("utf8")).toBe(body);
    expect(rows[0]).toMatchObject({
      headers: { "stripe-signature": signed.headers["stripe-signature"], "content-type": "application/json" },
      event_type: "charge.succeeded",
      resource_id: "ch_ingest_1",
      customer_email: "maria@example.com",
      status: "pending",
      event_id_derived: false,
      occurred_at_precision: "second",
      payload_id: "evt_bytes",
    });
  });

  it("answers 401 to bad signatures and stores nothing as an event", async () => {
    const webhook = stripeWebhook("evt_bad");
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string>[] = [
      { "stripe-signature": signStripe("whsec_wrong", now, webhook.body) },
      { "stripe-signature": signStripe(TEST_SECRETS.stripe, now - 400, webhook.body) },
      { "stripe-signature": signStripe(TEST_SECRETS.stripe, now + 400, webhook.body) },
      {},
    ];
    for (const headers of cases) {
      const response = await post("stripe", webhook.body, headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: expect.stringMatching(/invalid signature/) });
    }
    const tampered = await post("stripe", webhook.body.replace("2500", "25000"), webhook.headers);
    expect(tampered.status).toBe(401);
    expect(await count("webhook_inbox")).toBe(0);
    expect(await webhookJobs()).toBe(0);
    expect(await count("signature_failures WHERE provider = 'stripe'")).toBe(5);
    // The gateway's own URL: the default account's.
    expect(await count("signature_failures WHERE provider = 'stripe' AND gateway_account = 'default'")).toBe(5);
  });

  it("accepts events signed with the old and the new secret during a rotation", async () => {
    const oldSigned = stripeWebhook("evt_old_secret", TEST_SECRETS.stripeOld);
    const newSigned = stripeWebhook("evt_new_secret", TEST_SECRETS.stripe);
    expect((await post("stripe", oldSigned.body, oldSigned.headers)).status).toBe(200);
    expect((await post("stripe", newSigned.body, newSigned.headers)).status).toBe(200);
    expect(await count("webhook_inbox")).toBe(2);
  });

  it("verifies Standard Webhooks and rejects a replayed id with a stale timestamp", async () => {
    const body = JSON.stringify({ type: "payment.succeeded", timestamp: new Date().toISOString(), data: { payment_id: "p1" } });
    const now = Math.floor(Date.now() / 1000);
    const headers = (ts: number) => ({
      "webhook-id": "msg_1",
      "webhook-timestamp": String(ts),
      "webhook-signature": signStandard(TEST_SECRETS.standard, "msg_1", ts, body),
    });
    expect((await post("standard", body, headers(now))).status).toBe(200);
    expect((await post("standard", body, headers(now - 3600))).status).toBe(401);
    expect(await count("webhook_inbox WHERE provider = 'standard'")).toBe(1);
  });

  it("answers 413 to an oversized body, declared or streamed, and stores nothing", async () => {
    const big = "x".repeat(5000);
    const response = await post("stripe", big, { "stripe-signature": signStripe(TEST_SECRETS.stripe, 1, big) });
    expect(response.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(1000));
        controller.close();
      },
    });
    const streamed = await POST(
      new NextRequest("http://localhost/api/webhooks/stripe", { method: "POST", body: stream, duplex: "half" } as ConstructorParameters<
        typeof NextRequest
      >[1]),
      { params: Promise.resolve({ provider: "stripe" }) },
    );
    expect(streamed.status).toBe(413);
    expect(await count("webhook_inbox")).toBe(0);
  });

  it("answers 404 to an unknown provider and 503 to a provider with no secret", async () => {
    expect((await post("paypal", "{}", {})).status).toBe(404);
    const unconfigured = await ingestEvent(
      {
        pool: app.pool,
        boss: app.boss,
        config: {
          ...app.config,
          providers: { ...app.config.providers, stripe: { ...app.config.providers.stripe, secrets: [], enabled: false } },
        },
      },
      { provider: "stripe", rawBody: Buffer.from("{}"), headers: {} },
    );
    expect(unconfigured).toEqual({
      kind: "not_configured",
      provider: "stripe",
      enableWith: "set WEBHOOK_SECRET_STRIPE to the endpoint's signing secret (whsec_...)",
    });
    expect(await count("webhook_inbox")).toBe(0);
  });

  it("keeps a signed but unparseable body as failed, keyed by its bytes, without a job", async () => {
    const body = '{"this is": "not a stripe event"}';
    const headers = { "stripe-signature": signStripe(TEST_SECRETS.stripe, Math.floor(Date.now() / 1000), body) };
    const first = await post("stripe", body, headers);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, duplicate: false });
    expect(await (await post("stripe", body, headers)).json()).toEqual({ received: true, duplicate: true });
    const { rows } = await app.pool.query("SELECT event_id, event_id_derived, status, last_error, raw_body FROM webhook_inbox");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event_id: expect.stringMatching(/^raw:[0-9a-f]{64}$/), event_id_derived: true, status: "failed" });
    expect(rows[0].last_error).toMatch(/not a Stripe event/);
    expect(rows[0].raw_body.toString()).toBe(body);
    expect(await webhookJobs()).toBe(0);
  });

  it("creates the very job pg-boss's own insert creates for that event (queue defaults, singleton key, expiry)", async () => {
    const webhook = stripeWebhook("evt_same_job");
    expect((await post("stripe", webhook.body, webhook.headers)).status).toBe(200);
    const { rows: stored } = await app.pool.query(`SELECT id, provider, resource_id, event_id, ${RECEIVED_AT_TEXT} FROM webhook_inbox`);
    const event = stored[0]!;
    await dispatchEvents(
      app.boss,
      app.pool,
      [{ id: event.id, provider: event.provider, resourceId: event.resource_id, eventId: "evt_other", receivedAt: event.receivedAt }],
      {
        expireInSeconds: app.config.worker.jobExpireSeconds,
      },
    );
    // Everything but what differs per insert by design: the id and the insert time (start_after and
    // keep_until follow it); `data` and `singleton_key` must be equal.
    const { rows: jobs } = await app.pool.query(
      `SELECT to_jsonb(j) - 'id' - 'created_on' - 'start_after' - 'keep_until' AS job
         FROM pgboss.job j WHERE name = 'webhooks' ORDER BY created_on`,
    );
    expect(jobs).toHaveLength(2);
    expect(jobs[0].job).toEqual(jobs[1].job);
    expect(jobs[0].job).toMatchObject({
      data: { inboxId: event.id, receivedAt: event.receivedAt },
      singleton_key: "stripe:ch_ingest_1",
      policy: "singleton",
    });
  });

  it("is atomic: when the enqueue fails after the insert, neither the row nor a job remains", async () => {
    const { rows } = await app.pool.query<{ table_name: string }>("SELECT table_name FROM pgboss.queue WHERE name = 'webhooks'");
    const jobTable = `pgboss.${rows[0]!.table_name}`;
    // A real failure inside the same transaction: the job table refuses every new row.
    await app.pool.query(`ALTER TABLE ${jobTable} ADD CONSTRAINT refuse_jobs CHECK (false) NOT VALID`);
    try {
      const webhook = stripeWebhook("evt_atomic");
      const response = await post("stripe", webhook.body, webhook.headers);
      expect(response.status).toBe(500);
      expect(await count("webhook_inbox")).toBe(0);
      expect(await webhookJobs()).toBe(0);
    } finally {
      await app.pool.query(`ALTER TABLE ${jobTable} DROP CONSTRAINT refuse_jobs`);
    }
    const retried = stripeWebhook("evt_atomic");
    expect((await post("stripe", retried.body, retried.headers)).status).toBe(200);
    expect(await count("webhook_inbox")).toBe(1);
    expect(await webhookJobs()).toBe(1);
  });

  it("stores a Pagar.me webhook signed with its published key, and answers 503 storing nothing when the key can't be had", async () => {
    const body = JSON.stringify({
      id: "hook_rs256_1",
      type: "charge.paid",
      created_at: "2026-11-30T20:23:47Z",
      data: { id: "ch_rs256_1", amount: 1000, status: "paid" },
    });
    expect((await post("pagarme", body, { "x-webhook-asymmetric-signature": asymmetricSignature(pagarmeKey, body) })).status).toBe(200);
    expect(
      (
        await post("pagarme", body, {
          "x-webhook-asymmetric-signature": asymmetricSignature(pagarmeKey, body).replace("signature=", "signature=A"),
        })
      ).status,
    ).toBe(401);

    // Pagar.me rotated to a key we haven't fetched, and its JWKS is down: we can't verify, so 503.
    jwks.failWith(503);
    const rotated = generateSigningKey("kid-ingest-2");
    const next = body.replace("hook_rs256_1", "hook_rs256_2");
    const response = await post("pagarme", next, { "x-webhook-asymmetric-signature": asymmetricSignature(rotated, next) });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("60");
    expect(await count("webhook_inbox WHERE event_id = 'hook_rs256_2'")).toBe(0);
    expect(await count("signature_failures WHERE provider = 'pagarme'")).toBe(1);
    jwks.failWith(null);
  });

  it("refuses a Mercado Pago notification whose body names another payment than the signed data.id", async () => {
    // Mercado Pago's documented example notification; the signature covers data.id 999 only.
    const body = JSON.stringify({
      id: 112233445566,
      live_mode: true,
      type: "payment",
      date_created: "2026-05-25T13:01:08.000-03:00",
      action: "payment.updated",
      data: { id: "1234567890" },
    });
    const ts = Math.floor(Date.now() / 1000);
    const requestId = "f7b2a1d4-0b1c-4ec2-aaaa-9e8b1d2f3c4d";
    const v1 = createHmac("sha256", MERCADOPAGO_SECRET).update(`id:999;request-id:${requestId};ts:${ts};`).digest("hex");
    const request = new NextRequest("http://localhost/api/webhooks/mercadopago?data.id=999&type=payment", {
      method: "POST",
      body: new Uint8Array(Buffer.from(body)),
      headers: { "x-signature": `ts=${ts},v1=${v1}`, "x-request-id": requestId, "content-type": "application/json" },
    });
    const response = await POST(request, { params: Promise.resolve({ provider: "mercadopago" }) });
    expect(response.status).toBe(401);
    expect(await count("webhook_inbox WHERE provider = 'mercadopago'")).toBe(0);
    expect(await count("signature_failures WHERE provider = 'mercadopago'")).toBe(1);
  });

  it("refuses a captured Mercado Pago signature replayed within the tolerance with a new notification id; a resend of the same one is a duplicate", async () => {
    const ts = Math.floor(Date.now() / 1000);
    const requestId = "0c8d7e6f-1a2b-4c3d-9e8f-replayed0001";
    const v1 = createHmac("sha256", MERCADOPAGO_SECRET).update(`id:999;request-id:${requestId};ts:${ts};`).digest("hex");
    const notification = (id: number) =>
      JSON.stringify({
        id,
        live_mode: true,
        type: "payment",
        date_created: "2026-05-25T13:01:08.000-03:00",
        action: "payment.updated",
        data: { id: "999" },
      });
    const send = (body: string) =>
      POST(
        new NextRequest("http://localhost/api/webhooks/mercadopago?data.id=999&type=payment", {
          method: "POST",
          body: new Uint8Array(Buffer.from(body)),
          headers: { "x-signature": `ts=${ts},v1=${v1}`, "x-request-id": requestId, "content-type": "application/json" },
        }),
        { params: Promise.resolve({ provider: "mercadopago" }) },
      );
    expect((await send(notification(5001))).status).toBe(200);
    expect(await (await send(notification(5001))).json()).toEqual({ received: true, duplicate: true });
    const replayed = await send(notification(5002));
    expect(replayed.status).toBe(401);
    expect(await count("webhook_inbox WHERE provider = 'mercadopago'")).toBe(1);
    expect(await count("signature_failures WHERE provider = 'mercadopago' AND reason LIKE 'replayed signature%'")).toBe(1);
  });
});
