import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseSignatureHeader, signStripe, stripeDriver } from "./stripe";
import { ParseError } from "./types";

const SECRET = "whsec_test_secret";
const NOW = 1_767_000_000;
const body = JSON.stringify({
  id: "evt_1",
  object: "event",
  type: "charge.succeeded",
  created: NOW - 5,
  data: {
    object: {
      id: "ch_1",
      object: "charge",
      amount: 1000,
      amount_refunded: 0,
      currency: "usd",
      status: "succeeded",
      customer: "cus_1",
      billing_details: { email: "ana@example.com" },
    },
  },
});
const raw = Buffer.from(body);

// Computed here from Stripe's documented rule, independently of the driver's own signing helper.
function independentSignature(secret: string, timestamp: number, payload: string) {
  return createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
}

function verify(header: string | undefined, secrets = [SECRET], payload = raw) {
  return stripeDriver.verify(payload, header === undefined ? {} : { "stripe-signature": header }, {
    secrets,
    nowSeconds: NOW,
    toleranceSeconds: 300,
    query: new URLSearchParams(),
  });
}

describe("stripe verify", () => {
  it("accepts a signature computed by Stripe's rule", () => {
    expect(verify(`t=${NOW},v1=${independentSignature(SECRET, NOW, body)}`)).toEqual({ ok: true });
    expect(signStripe(SECRET, NOW, body)).toBe(`t=${NOW},v1=${independentSignature(SECRET, NOW, body)}`);
  });

  it("rejects a wrong secret, a tampered body, and a missing or malformed header", () => {
    expect(verify(signStripe("whsec_other", NOW, body)).ok).toBe(false);
    expect(verify(signStripe(SECRET, NOW, body), [SECRET], Buffer.from(body.replace("1000", "1001"))).ok).toBe(false);
    expect(verify(undefined)).toEqual({ ok: false, reason: "missing Stripe-Signature header" });
    expect(verify(`v1=${independentSignature(SECRET, NOW, body)}`).ok).toBe(false);
    expect(verify(`t=${NOW}`).ok).toBe(false);
    expect(verify(`t=abc,v1=${independentSignature(SECRET, NOW, body)}`).ok).toBe(false);
  });

  it("rejects timestamps outside the tolerance, in the past and in the future", () => {
    const stale = verify(signStripe(SECRET, NOW - 301, body));
    const future = verify(signStripe(SECRET, NOW + 301, body));
    expect(stale.ok || future.ok).toBe(false);
    expect(!stale.ok && stale.reason).toMatch(/301s old/);
    expect(!future.ok && future.reason).toMatch(/in the future/);
    expect(verify(signStripe(SECRET, NOW - 300, body)).ok).toBe(true);
  });

  it("accepts old and new secrets during a rotation, and a header with several v1", () => {
    const secrets = ["whsec_new", "whsec_old"];
    expect(verify(signStripe("whsec_old", NOW, body), secrets).ok).toBe(true);
    expect(verify(signStripe("whsec_new", NOW, body), secrets).ok).toBe(true);
    const both = `t=${NOW},v1=${"0".repeat(64)},v1=${independentSignature("whsec_old", NOW, body)}`;
    expect(verify(both, secrets).ok).toBe(true);
    expect(verify(signStripe("whsec_retired", NOW, body), secrets).ok).toBe(false);
  });

  it("parses the header leniently about spaces", () => {
    expect(parseSignatureHeader("t=1, v1=ab , v0=zz")).toEqual({ timestamp: 1, signatures: ["ab"] });
  });
});

function event(type: string, object: Record<string, unknown>) {
  return Buffer.from(JSON.stringify({ id: "evt_x", type, created: NOW, data: { object } }));
}
const charge = (extra: Record<string, unknown> = {}) => ({
  id: "ch_9",
  object: "charge",
  amount: 5000,
  amount_refunded: 0,
  currency: "BRL",
  status: "succeeded",
  ...extra,
});
const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

describe("stripe parse", () => {
  it("normalizes id, type, charge resource, customer and second-precision time", () => {
    const parsed = stripeDriver.parse(raw, context);
    expect(parsed).toMatchObject({
      eventId: "evt_1",
      eventIdDerived: false,
      type: "charge.succeeded",
      resourceId: "ch_1",
      occurredAt: new Date((NOW - 5) * 1000).toISOString().replace(".000Z", "Z"),
      precision: "second",
      customerId: "cus_1",
      customerEmail: "ana@example.com",
      charge: { status: "paid", amount: 1000, amountRefunded: 0, currency: "usd" },
    });
    expect(parsed.payload).toEqual(JSON.parse(body));
  });

  it.each([
    ["charge.pending", charge({ status: "pending" }), "pending"],
    ["charge.succeeded", charge(), "paid"],
    ["charge.succeeded", charge({ captured: false }), "authorized"],
    ["charge.captured", charge(), "paid"],
    ["charge.failed", charge({ status: "failed" }), "failed"],
    ["charge.expired", charge({ captured: false }), "canceled"],
    ["charge.refunded", charge({ amount_refunded: 5000 }), "refunded"],
    ["charge.refunded", charge({ amount_refunded: 1200 }), "partially_refunded"],
    ["charge.dispute.created", { id: "dp_1", object: "dispute", charge: "ch_9", status: "needs_response" }, "disputed"],
    ["charge.dispute.closed", { id: "dp_1", object: "dispute", charge: "ch_9", status: "lost" }, "charged_back"],
    ["charge.dispute.closed", { id: "dp_1", object: "dispute", charge: "ch_9", status: "won" }, "paid"],
  ])("maps %s to %s", (type, object, status) => {
    const parsed = stripeDriver.parse(event(type, object), context);
    expect(parsed.charge?.status).toBe(status);
    expect(parsed.resourceId).toBe("ch_9");
  });

  it("counts amounts in each currency's ISO 4217 minor units, where Stripe's smallest unit differs too", () => {
    const amounts = (amount: number, currency: string) =>
      stripeDriver.parse(event("charge.refunded", charge({ amount, amount_refunded: amount / 2, currency })), context).charge;
    expect(amounts(1234, "jpy")).toMatchObject({ amount: 1234, amountRefunded: 617 });
    expect(amounts(12340, "kwd")).toMatchObject({ amount: 12340, amountRefunded: 6170 });
    expect(amounts(65998, "brl")).toMatchObject({ amount: 65998, amountRefunded: 32999 });
    // ISK is two-decimal in Stripe's API (500 is 5 krónur), MGA zero-decimal (ISO counts hundredths).
    expect(amounts(50000, "isk")).toMatchObject({ amount: 500, amountRefunded: 250 });
    expect(amounts(5000, "mga")).toMatchObject({ amount: 500000, amountRefunded: 250000 });
  });

  it("keeps uninteresting types with no charge state", () => {
    const parsed = stripeDriver.parse(event("customer.created", { id: "cus_1", object: "customer" }), context);
    expect(parsed.charge).toBeNull();
    expect(parsed.resourceId).toBeNull();
  });

  it("resolves refunds to their charge", () => {
    const parsed = stripeDriver.parse(event("charge.refund.updated", { id: "re_1", object: "refund", charge: "ch_7" }), context);
    expect(parsed.resourceId).toBe("ch_7");
    expect(parsed.charge).toBeNull();
  });

  it("throws ParseError on bodies that are not Stripe events", () => {
    expect(() => stripeDriver.parse(Buffer.from("not json"), context)).toThrow(ParseError);
    expect(() => stripeDriver.parse(Buffer.from('{"id":"evt_1"}'), context)).toThrow(ParseError);
    expect(() => stripeDriver.parse(event("charge.succeeded", { id: "ch_1", object: "charge" }), context)).toThrow(ParseError);
    const longId = Buffer.from(JSON.stringify({ id: "e".repeat(151), type: "x", created: NOW, data: { object: {} } }));
    expect(() => stripeDriver.parse(longId, context)).toThrow(ParseError);
  });
});
