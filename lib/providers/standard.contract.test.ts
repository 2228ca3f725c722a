import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { signStandard, standardDriver } from "./standard";
import { ParseError } from "./types";

// The Standard Webhooks driver against artifacts nobody on the team wrote: the reference library
// `standardwebhooks` signs and verifies, and a real sender's documented payload (Dodo Payments, in
// fixtures/standard/) is what arrives.

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
type DodoEvent = { business_id: string; type: string; timestamp: string; data: Record<string, unknown> };
const dodo = readFixture<DodoEvent>("standard/dodo-payment-succeeded.json");
const documented = readFixture<DodoEvent>("standard/dodo-outgoing-webhook-example.json");
const context = { headers: { "webhook-id": "msg_2Lk7", "webhook-timestamp": "1741944421" }, query: new URLSearchParams(), timeZone: "UTC" };

function parse(body: object, env: Record<string, string> = {}) {
  return standardDriver.parse(Buffer.from(JSON.stringify(body)), { ...context, settings: standardDriver.settings!.parse(env) });
}
const withData = (data: Record<string, unknown>, type = dodo.type) => variant(dodo, { type, data: variant(dodo.data, data) });

describe("standard webhooks signatures, with the reference library", () => {
  const body = JSON.stringify(dodo);
  const now = new Date();
  const seconds = Math.floor(now.getTime() / 1000);
  const verify = (headers: Record<string, string>) =>
    standardDriver.verify(Buffer.from(body), headers, {
      secrets: [SECRET],
      nowSeconds: seconds,
      toleranceSeconds: 300,
      query: new URLSearchParams(),
    });

  it("accepts what Webhook.sign signs, and refuses another secret's", () => {
    const headers = { "webhook-id": "msg_2Lk7", "webhook-timestamp": String(seconds) };
    expect(verify({ ...headers, "webhook-signature": new Webhook(SECRET).sign("msg_2Lk7", now, body) })).toEqual({ ok: true });
    const other = new Webhook("whsec_" + Buffer.from("another-secret-of-32-bytes-long!").toString("base64"));
    expect(verify({ ...headers, "webhook-signature": other.sign("msg_2Lk7", now, body) }).ok).toBe(false);
  });

  it("signs what Webhook.verify accepts", () => {
    const headers = {
      "webhook-id": "msg_2Lk7",
      "webhook-timestamp": String(seconds),
      "webhook-signature": signStandard(SECRET, "msg_2Lk7", seconds, body),
    };
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(dodo);
    expect(() => new Webhook(SECRET).verify(body.replace("2180", "2181"), headers)).toThrow();
  });
});

describe("a real sender's own words", () => {
  it("reads Dodo Payments' payment.succeeded: status, total_amount, customer.customer_id", () => {
    expect(parse(dodo)).toMatchObject({
      eventId: "msg_2Lk7",
      type: "payment.succeeded",
      resourceId: "pay_Lr9h3U0tkW6RrdMxpGnAu",
      occurredAt: "2025-03-14T09:27:01.468912Z",
      precision: "microsecond",
      customerId: "cus_x9Jb0KTIcIqKR1jzZsUw2",
      customerEmail: "Maria.Silva@example.com",
      charge: { status: "paid", amount: 2180, amountRefunded: 0, currency: "usd" },
    });
  });

  it("counts the refunds and disputes a payment lists (the documented example: refunded in full, a dispute opened)", () => {
    expect(parse(documented)).toMatchObject({ resourceId: "<string>", charge: { status: "disputed", amount: 123, amountRefunded: 123 } });
    const partly = withData({ refunds: [{ ...(documented.data.refunds as object[])[0], amount: 500 }] });
    expect(parse(partly).charge).toMatchObject({ status: "partially_refunded", amountRefunded: 500 });
    const lost = withData({ disputes: [{ ...(documented.data.disputes as object[])[0], dispute_status: "dispute_lost" }] });
    expect(parse(lost).charge?.status).toBe("charged_back");
  });

  it.each([
    ["payment.processing", "processing", "pending"],
    ["payment.failed", "failed", "failed"],
    ["payment.cancelled", "cancelled", "canceled"],
    ["payment.updated", "captured", "paid"],
    ["payment.updated", "requires_capture", "authorized"],
    ["payment.updated", "chargeback", "charged_back"],
    ["payment.updated", "partially_refunded", "partially_refunded"],
  ])("%s with data.status %s -> %s", (type, status, expected) => {
    expect(parse(withData({ status }, type)).charge?.status).toBe(expected);
  });

  it("reads Dodo's refund and dispute events by their payment_id; a refund's payment is refetched", () => {
    const refund = {
      type: "refund.succeeded",
      timestamp: dodo.timestamp,
      data: { ...(documented.data.refunds as object[])[0], payment_id: "pay_1" },
    };
    expect(parse(refund)).toMatchObject({ resourceId: "pay_1", charge: { status: "refunded" }, refetchRequired: true });
    const dispute = {
      type: "dispute.lost",
      timestamp: dodo.timestamp,
      data: { ...(documented.data.disputes as object[])[0], payment_id: "pay_1" },
    };
    expect(parse(dispute)).toMatchObject({ resourceId: "pay_1", charge: { status: "charged_back" }, refetchRequired: false });
  });

  it("fails a payment event it can't map with an error naming the variable to set, and maps it once set", () => {
    const settled = withData({ status: "settled" }, "payment.updated");
    expect(() => parse(settled)).toThrow(ParseError);
    expect(() => parse(settled)).toThrow(/STANDARD_STATUS_MAP=<word>=<status>.*STANDARD_TYPE_MAP=payment.updated=<status>/);
    expect(() => parse(settled)).toThrow(/data.status "settled"/);
    expect(parse(settled, { STANDARD_STATUS_MAP: "settled=paid" }).charge?.status).toBe("paid");
    expect(parse(withData({ status: "settled" }, "payment.settled"), { STANDARD_TYPE_MAP: "payment.settled=paid" }).charge?.status).toBe(
      "paid",
    );
  });

  it("reads a sender's own field paths from STANDARD_FIELD_MAP", () => {
    const body = {
      type: "payment.updated",
      timestamp: dodo.timestamp,
      data: { ref: "p_9", state: "paid", totals: { gross: 990 }, buyer: { mail: "a@b.example" } },
    };
    expect(() => parse(body)).toThrow(/has no data.status.*STANDARD_FIELD_MAP=status=<path>/);
    const env = { STANDARD_FIELD_MAP: "id=ref,status=state,amount=totals.gross,customerEmail=buyer.mail" };
    expect(parse(body, env)).toMatchObject({ resourceId: "p_9", customerEmail: "a@b.example", charge: { status: "paid", amount: 990 } });
  });

  it("keeps a sender's other events (subscriptions) without a payment state", () => {
    const subscription = { type: "subscription.active", timestamp: dodo.timestamp, data: { subscription_id: "sub_1", status: "active" } };
    expect(parse(subscription).charge).toBeNull();
  });
});
