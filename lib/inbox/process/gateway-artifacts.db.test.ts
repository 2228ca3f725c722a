import Stripe from "stripe";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "@/e2e/simulator/fake-gateway";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { explainOutcomes } from "../queries/explain-outcome";
import { createGatewayClients } from "../../http/gateway-clients";
import { ingestEvent } from "../ingest/ingest-event";
import { processEvent } from "./process-event";
import { replayEvents } from "../replay/replay-events";

// Disputes, PaymentIntent-only integrations and a sender's own words end to end on the real database: webhooks built from the gateways'
// own artifacts (stripe/openapi fixtures, Dodo Payments' documented payload), signed by the official
// SDKs, ingested and processed by the worker's code, refetching through the fake gateway's API.

const charge = readFixture<Stripe.Charge>("stripe/charge.json");
const dispute = readFixture<Stripe.Dispute>("stripe/dispute.json");
const intent = readFixture<Stripe.PaymentIntent>("stripe/payment-intent.json");
const event = readFixture<{ id: string; type: string; created: number; data: { object: object } }>("stripe/event.json");
const connectEvent = readFixture<typeof event & { account: string }>("stripe/connect-event.json");
const dodo = readFixture<{ type: string; data: Record<string, unknown> }>("standard/dodo-payment-succeeded.json");

let app: TestApp;
let gateway: FakeGateway;
let sequence = 0;

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("artifacts", {
    ...fakeGatewayEnv(gateway.url),
    WORKER_MAX_ATTEMPTS: "1",
  });
});
afterAll(async () => {
  await app.close();
  await gateway.close();
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, processing_attempts, payment_transitions, audit_log CASCADE");
});

function deps(overrides: Record<string, string> = {}) {
  const config = testConfig(app.env, overrides);
  return { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config), workerId: "test" };
}

async function sendWebhook(provider: "stripe" | "standard", body: string, headers: Record<string, string>, config = app.config) {
  const outcome = await ingestEvent({ pool: app.pool, boss: app.boss, config }, { provider, rawBody: Buffer.from(body), headers });
  if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  return outcome.inboxId;
}

/** A Stripe event around `object` (a connected account's: `account`), signed by the stripe SDK. */
function stripeWebhook(type: string, object: object, created: number, account?: Stripe.Event["account"]) {
  const fields = { id: `evt_artifact_${++sequence}`, type, created, data: { object } };
  const body = JSON.stringify(account ? variant(connectEvent, { ...fields, account }) : variant(event, fields));
  const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: TEST_SECRETS.stripe });
  return sendWebhook("stripe", body, { "stripe-signature": header });
}

/** A Standard Webhooks message of `body`, signed by the standardwebhooks library. */
function standardWebhook(body: object, config = app.config) {
  const raw = JSON.stringify(body);
  const id = `msg_artifact_${++sequence}`;
  const now = new Date();
  const headers = {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(TEST_SECRETS.standard).sign(id, now, raw),
  };
  return sendWebhook("standard", raw, headers, config);
}

async function inbox(id: number) {
  return (await app.pool.query("SELECT status, ignored_reason, last_error FROM webhook_inbox WHERE id = $1", [id])).rows[0];
}
async function payment(chargeId: string) {
  return (
    await app.pool.query("SELECT status, amount, amount_refunded, currency, customer_email FROM payments WHERE gateway_charge_id = $1", [
      chargeId,
    ])
  ).rows[0];
}

const seconds = () => Math.floor(Date.now() / 1000) - 120;

describe("a charge's disputes, read the documented way", () => {
  it("charges back a payment whose second dispute was lost after the first was won", async () => {
    const chargeId = `ch_artifact_${Date.now()}`;
    const facts = { chargeId, amount: 5000, currency: "usd", customerId: "cus_1", customerEmail: "ana@example.com" };
    const kinds = ["succeeded", "dispute_opened", "dispute_won", "dispute_opened", "dispute_lost"] as const;
    gateway.add([
      {
        provider: "stripe",
        payment: facts,
        steps: kinds.map((kind) => ({ kind, amountRefunded: 0, occurredAtMs: 0 })),
        truth: { status: "charged_back", amountRefunded: 0 },
      },
    ]);
    const before = gateway.requests.length;
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId, status: "needs_response" }), seconds());
    expect(await processEvent(deps(), id)).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "charged_back", amount: 5000 });
    expect(gateway.requests.slice(before).map((request) => request.path)).toEqual([
      `/v1/charges/${chargeId}`,
      `/v1/disputes?charge=${chargeId}&limit=100`,
    ]);
  });

  it("is refused by the fake gateway without Stripe's Bearer key", async () => {
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: "ch_no_key" }), seconds());
    expect(await processEvent(deps({ STRIPE_API_KEY: "sk_test_wrong" }), id)).toBe("failed");
    expect(await inbox(id)).toMatchObject({ status: "failed", last_error: expect.stringMatching(/401/) });
  });
});

describe("Stripe Connect: a connected account's dispute", () => {
  const facts = (chargeId: string) => ({ chargeId, amount: 7000, currency: "usd", customerId: "cus_c", customerEmail: "bia@example.com" });
  const lost = (chargeId: string) => ({
    provider: "stripe" as const,
    payment: facts(chargeId),
    steps: (["succeeded", "dispute_opened", "dispute_lost"] as const).map((kind) => ({ kind, amountRefunded: 0, occurredAtMs: 0 })),
    truth: { status: "charged_back" as const, amountRefunded: 0 },
  });
  const reads = (before: number) => gateway.requests.slice(before).map(({ path, stripeAccount }) => ({ path, stripeAccount }));

  it("is refetched from that account, with Stripe-Account", async () => {
    const chargeId = `ch_connect_${Date.now()}`;
    gateway.addConnected("acct_1Connected", [lost(chargeId)]);
    const before = gateway.requests.length;
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId }), seconds(), "acct_1Connected");
    expect(await processEvent(deps(), id)).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "charged_back", amount: 7000 });
    expect(reads(before)).toEqual([
      { path: `/v1/charges/${chargeId}`, stripeAccount: "acct_1Connected" },
      { path: `/v1/disputes?charge=${chargeId}&limit=100`, stripeAccount: "acct_1Connected" },
    ]);
  });

  it("is not found in the platform's own account (the fake answers 404 without the header, as Stripe does)", async () => {
    const chargeId = `ch_connect_missing_${Date.now()}`;
    gateway.addConnected("acct_1Connected", [lost(chargeId)]);
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId }), seconds());
    expect(await processEvent(deps(), id)).toBe("failed");
    expect(await inbox(id)).toMatchObject({ status: "failed", last_error: expect.stringMatching(/404/) });
  });

  it("is refetched from that account again on replay (the account is read from the stored body)", async () => {
    const chargeId = `ch_connect_replay_${Date.now()}`;
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId }), seconds(), "acct_1Connected");
    // Not at the gateway yet: its refetch fails with Stripe's 404.
    expect(await processEvent(deps(), id)).toBe("failed");
    gateway.addConnected("acct_1Connected", [lost(chargeId)]);
    expect((await replayEvents(deps(), { statuses: ["failed"] }, { actor: "ops" })).total).toBe(1);
    const before = gateway.requests.length;
    expect(await processEvent(deps(), id)).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "charged_back" });
    expect(reads(before).map((read) => read.stripeAccount)).toEqual(["acct_1Connected", "acct_1Connected"]);
  });

  it("leaves a platform event's refetch without the header", async () => {
    const chargeId = `ch_platform_${Date.now()}`;
    gateway.add([lost(chargeId)]);
    const before = gateway.requests.length;
    const id = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId }), seconds());
    expect(await processEvent(deps(), id)).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({ status: "charged_back" });
    expect(reads(before).map((read) => read.stripeAccount)).toEqual([null, null]);
  });
});

describe("PaymentIntent-only integrations", () => {
  const refetchNothing = { REFETCH_STRIPE: "none" };

  it("creates the payment of a PaymentIntent's latest charge from the intent's own status and amounts", async () => {
    const chargeId = `ch_pi_${Date.now()}`;
    const succeeded = variant(intent, {
      status: "succeeded",
      latest_charge: chargeId,
      amount_received: intent.amount,
      receipt_email: "Pi@Example.com",
    });
    const id = await stripeWebhook("payment_intent.succeeded", succeeded, seconds());
    expect(await processEvent(deps(refetchNothing), id)).toBe("processed");
    expect(await payment(chargeId)).toMatchObject({
      status: "paid",
      amount: intent.amount,
      currency: "usd",
      customer_email: "pi@example.com",
    });
  });

  it("ignores, with a reason, an intent that has no charge yet", async () => {
    const id = await stripeWebhook("payment_intent.created", intent, seconds());
    expect(await processEvent(deps(refetchNothing), id)).toBe("ignored");
    expect(await inbox(id)).toMatchObject({ status: "ignored", ignored_reason: "no_resource" });
  });

  it("keeps the charge the source of truth: an intent event never reinstates a disputed charge", async () => {
    const chargeId = `ch_both_${Date.now()}`;
    const at = seconds();
    const paid = await stripeWebhook("charge.succeeded", variant(charge, { id: chargeId, captured: true }), at);
    const disputed = await stripeWebhook("charge.dispute.created", variant(dispute, { charge: chargeId }), at);
    const summary = await stripeWebhook(
      "payment_intent.succeeded",
      variant(intent, { status: "succeeded", latest_charge: chargeId, amount: 100, amount_received: 100 }),
      at,
    );
    for (const id of [paid, disputed]) expect(await processEvent(deps(refetchNothing), id)).toBe("processed");
    expect(await processEvent(deps(refetchNothing), summary)).toBe("ignored");
    expect(await inbox(summary)).toMatchObject({ ignored_reason: "charge_is_authority" });
    expect(await payment(chargeId)).toMatchObject({ status: "disputed" });
    expect((await explainOutcomes(app.pool, [summary], "UTC")).get(summary)).toMatch(
      /^Ignored: a PaymentIntent summary can't undo what the charge's own events said \(the payment was already disputed by /,
    );
  });
});

describe("a Standard Webhooks sender's own words", () => {
  it("processes Dodo Payments' payment.succeeded as paid", async () => {
    const id = await standardWebhook(dodo);
    expect(await processEvent(deps(), id)).toBe("processed");
    expect(await payment(dodo.data.payment_id as string)).toMatchObject({
      status: "paid",
      amount: 2180,
      currency: "usd",
      customer_email: "maria.silva@example.com",
    });
  });

  it("stores an unmappable payment event as failed naming the variable, and processes it on replay once set", async () => {
    const settled = variant(dodo, { type: "payment.updated", data: variant(dodo.data, { payment_id: "pay_settled", status: "settled" }) });
    const id = await standardWebhook(settled);
    expect(await inbox(id)).toMatchObject({ status: "failed", last_error: expect.stringMatching(/STANDARD_STATUS_MAP/) });
    const fixed = deps({ STANDARD_STATUS_MAP: "settled=paid" });
    expect((await replayEvents(fixed, { statuses: ["failed"] }, { actor: "ops" })).total).toBe(1);
    expect(await processEvent(fixed, id)).toBe("processed");
    expect(await payment("pay_settled")).toMatchObject({ status: "paid" });
  });
});
