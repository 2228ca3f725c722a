import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { signStripe, stripeDriver } from "./stripe";
import type { GatewayFetch } from "./types";

// The Stripe driver against Stripe's own artifacts: the official SDK signs and verifies, and the
// objects are the excerpts of stripe/openapi's fixtures3.json in fixtures/stripe/ (changed only in
// fields those objects have, typed by the SDK).

const SECRET = "whsec_contract_test_secret";
const charge = readFixture<Stripe.Charge>("stripe/charge.json");
const dispute = readFixture<Stripe.Dispute>("stripe/dispute.json");
const intent = readFixture<Stripe.PaymentIntent>("stripe/payment-intent.json");
// Stripe.Event is a union over every type; the envelope's own fields are what the tests change.
const event = readFixture<{ id: string; type: string; created: number; data: { object: object } }>("stripe/event.json");
const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

const captured = variant(charge, { captured: true, amount: 5000, amount_captured: 5000 });

function eventOf(type: string, object: object, id = event.id): string {
  return JSON.stringify(variant(event, { id, type, data: { object } }));
}

function parse(type: string, object: object) {
  return stripeDriver.parse(Buffer.from(eventOf(type, object)), context);
}

describe("stripe signatures, with the official SDK", () => {
  const now = Math.floor(Date.now() / 1000);
  const body = eventOf("charge.succeeded", captured);
  const verify = (header: string, secrets = [SECRET]) =>
    stripeDriver.verify(
      Buffer.from(body),
      { "stripe-signature": header },
      { secrets, nowSeconds: now, toleranceSeconds: 300, query: new URLSearchParams() },
    );

  it("accepts what stripe.webhooks.generateTestHeaderString signs, and refuses another secret's", () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: now });
    expect(verify(header)).toEqual({ ok: true });
    expect(verify(header, ["whsec_other"]).ok).toBe(false);
    const old = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: now - 301 });
    expect(verify(old).ok).toBe(false);
  });

  it("signs what stripe.webhooks.constructEvent accepts", () => {
    const parsed = Stripe.webhooks.constructEvent(body, signStripe(SECRET, now, body), SECRET);
    expect(parsed.id).toBe(event.id);
    expect(() => Stripe.webhooks.constructEvent(body, signStripe("whsec_other", now, body), SECRET)).toThrow();
  });
});

/** A fake Stripe API answering the documented paths with the fixture objects; records what was asked. */
function stripeApi(chargeObject: Stripe.Charge, disputes: Stripe.Dispute[], pageSize = 100) {
  const paths: string[] = [];
  const fetchJson: GatewayFetch = async (path) => {
    paths.push(path);
    const url = new URL(path, "https://api.stripe.com");
    if (url.pathname === `/v1/charges/${chargeObject.id}`) return chargeObject;
    if (url.pathname === "/v1/disputes" && url.searchParams.get("charge") === chargeObject.id) {
      const after = url.searchParams.get("starting_after");
      const start = after ? disputes.findIndex((item) => item.id === after) + 1 : 0;
      const data = disputes.slice(start, start + pageSize);
      const list: Stripe.ApiList<Stripe.Dispute> = {
        object: "list",
        url: "/v1/disputes",
        has_more: start + pageSize < disputes.length,
        data,
      };
      return list;
    }
    throw new Error(`unexpected GET ${path}`);
  };
  return { fetchJson, paths };
}

const disputeWith = (index: number, status: Stripe.Dispute.Status) =>
  variant(dispute, { id: `${dispute.id}_${index}`, charge: charge.id, status });

describe("stripe refetch reads disputes the documented way", () => {
  const disputed = variant(captured, { disputed: true });

  it.each<[string, Stripe.Dispute.Status[], string]>([
    ["a lost dispute", ["lost"], "charged_back"],
    ["an open dispute", ["needs_response"], "disputed"],
    ["an inquiry", ["warning_needs_response"], "disputed"],
    ["a dispute under appeal", ["appeal_under_review"], "disputed"],
    ["a won dispute", ["won"], "paid"],
    ["a closed inquiry and a prevented dispute", ["warning_closed", "prevented"], "paid"],
    ["a first dispute won, a second lost", ["won", "lost"], "charged_back"],
    ["a first dispute won, a second open", ["won", "needs_response"], "disputed"],
    ["a first dispute lost, then a new one opened", ["lost", "needs_response"], "charged_back"],
  ])("%s: %s", async (_name, statuses, expected) => {
    const api = stripeApi(
      disputed,
      statuses.map((status, index) => disputeWith(index, status)),
    );
    const snapshot = await stripeDriver.refetch!(charge.id, api.fetchJson);
    expect(snapshot).toMatchObject({ status: expected, amount: 5000, currency: "usd" });
    expect(api.paths).toEqual([`/v1/charges/${charge.id}`, `/v1/disputes?charge=${charge.id}&limit=100`]);
  });

  it("returns to the refund state when every dispute is won", async () => {
    const refunded = variant(disputed, { amount_refunded: 1200 });
    const api = stripeApi(refunded, [disputeWith(0, "won")]);
    expect(await stripeDriver.refetch!(charge.id, api.fetchJson)).toMatchObject({ status: "partially_refunded", amountRefunded: 1200 });
  });

  it("reads every page of a charge's disputes", async () => {
    const api = stripeApi(disputed, [disputeWith(0, "won"), disputeWith(1, "won"), disputeWith(2, "lost")], 2);
    expect(await stripeDriver.refetch!(charge.id, api.fetchJson)).toMatchObject({ status: "charged_back" });
    expect(api.paths[2]).toBe(`/v1/disputes?charge=${charge.id}&limit=100&starting_after=${dispute.id}_1`);
  });

  it("doesn't list disputes of a charge that was never disputed", async () => {
    const api = stripeApi(captured, []);
    expect(await stripeDriver.refetch!(charge.id, api.fetchJson)).toMatchObject({ status: "paid" });
    expect(api.paths).toEqual([`/v1/charges/${charge.id}`]);
  });

  it("reads the fixture charge as it is: uncaptured, an authorization", async () => {
    expect(await stripeDriver.refetch!(charge.id, stripeApi(charge, []).fetchJson)).toMatchObject({ status: "authorized", amount: 100 });
  });
});

describe("stripe dispute events map by their dispute's status", () => {
  it.each<[string, Stripe.Dispute.Status, string]>([
    ["charge.dispute.created", "warning_needs_response", "disputed"],
    ["charge.dispute.created", "needs_response", "disputed"],
    ["charge.dispute.updated", "under_review", "disputed"],
    ["charge.dispute.funds_withdrawn", "needs_response", "disputed"],
    ["charge.dispute.closed", "lost", "charged_back"],
    ["charge.dispute.closed", "won", "paid"],
    ["charge.dispute.closed", "warning_closed", "paid"],
    ["charge.dispute.funds_reinstated", "won", "paid"],
  ])("%s with a %s dispute -> %s", (type, status, expected) => {
    const parsed = parse(type, variant(dispute, { status }));
    expect(parsed.resourceId).toBe(dispute.charge);
    expect(parsed.charge?.status).toBe(expected);
  });
});

describe("stripe PaymentIntent events", () => {
  const withCharge = (overrides: Partial<Stripe.PaymentIntent>) =>
    variant(intent, { latest_charge: charge.id, amount: 5000, ...overrides });

  it.each<[string, Partial<Stripe.PaymentIntent>, string]>([
    ["payment_intent.succeeded", { status: "succeeded", amount_received: 5000 }, "paid"],
    ["payment_intent.processing", { status: "processing" }, "pending"],
    ["payment_intent.amount_capturable_updated", { status: "requires_capture", amount_capturable: 5000 }, "authorized"],
    ["payment_intent.canceled", { status: "canceled" }, "canceled"],
    ["payment_intent.payment_failed", { status: "requires_payment_method" }, "failed"],
  ])("%s with %o follows latest_charge and maps to %s", (type, overrides, expected) => {
    const parsed = parse(type, withCharge(overrides));
    expect(parsed.resourceId).toBe(charge.id);
    expect(parsed.charge).toMatchObject({ status: expected, amount: 5000, currency: "usd", summary: true });
  });

  it("takes an expanded latest_charge's id and e-mail", () => {
    const expanded = variant(charge, { billing_details: { ...charge.billing_details, email: "jenny@example.com" } });
    const parsed = parse("payment_intent.succeeded", withCharge({ status: "succeeded", amount_received: 5000, latest_charge: expanded }));
    expect(parsed).toMatchObject({ resourceId: charge.id, customerEmail: "jenny@example.com", charge: { status: "paid" } });
  });

  it("shows a partial capture as the charge does: the uncaptured rest refunded", () => {
    const parsed = parse("payment_intent.succeeded", withCharge({ status: "succeeded", amount_received: 3000 }));
    expect(parsed.charge).toMatchObject({ status: "partially_refunded", amount: 5000, amountRefunded: 2000 });
  });

  it("names no resource for an intent with no charge yet (the fixture: requires_payment_method)", () => {
    const parsed = parse("payment_intent.created", intent);
    expect(intent.latest_charge).toBeNull();
    expect(parsed.resourceId).toBeNull();
  });
});
