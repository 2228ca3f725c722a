import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { documentedRows, readFixture, variant } from "@/lib/testing/gateway-fixtures";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { stripeDriver } from "./stripe";
import type { GatewayFetch } from "./types";

// One case per row of docs/gateways.md's Stripe table, each on stripe/openapi's fixtures (a charge,
// a payment intent, a dispute, a refund and an event envelope) typed by the official SDK, varied only
// in the fields each row is about.

const charge = readFixture<Stripe.Charge>("stripe/charge.json");
const dispute = readFixture<Stripe.Dispute>("stripe/dispute.json");
const intent = readFixture<Stripe.PaymentIntent>("stripe/payment-intent.json");
const refund = readFixture<Stripe.Refund>("stripe/refund.json");
const event = readFixture<{ id: string; type: string; created: number; data: { object: object } }>("stripe/event.json");
const connectEvent = readFixture<typeof event & { account: string }>("stripe/connect-event.json");
const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

/** The fixture charge captured (the fixture is an uncaptured authorization of 100). */
const captured = variant(charge, { captured: true, amount: 5000, amount_captured: 5000 });
/** The fixture intent, after its latest charge was tried. */
const attempted = (fields: Partial<Stripe.PaymentIntent>) => variant(intent, { latest_charge: captured.id, ...fields });

function parse(type: string, object: object) {
  return stripeDriver.parse(Buffer.from(JSON.stringify(variant(event, { type, data: { object } }))), context);
}
const statusOf = (type: string, object: object) => parse(type, object).charge?.status ?? null;

/** GET /v1/charges/{id} answering `chargeObject`, and /v1/disputes its `disputes`. */
function refetched(chargeObject: Stripe.Charge, disputes: Stripe.Dispute[] = []): Promise<ChargeSnapshot> {
  const fetchJson: GatewayFetch = async (path) =>
    path.startsWith("/v1/disputes") ? { object: "list", data: disputes, has_more: false } : chargeObject;
  return stripeDriver.refetch!(chargeObject.id, fetchJson, {});
}

const intentStatus =
  (status: Stripe.PaymentIntent.Status, expected: string, fields: Partial<Stripe.PaymentIntent> = {}) =>
  () => {
    expect(parse("payment_intent.created", attempted({ status, ...fields }))).toMatchObject({
      resourceId: captured.id,
      charge: { status: expected, summary: true },
    });
  };
/** A charge disputed once, the dispute in `status`: what a refetch makes of it. */
const disputeStatus = (status: Stripe.Dispute.Status, expected: string) => async () => {
  const disputed = variant(captured, { disputed: true });
  expect((await refetched(disputed, [variant(dispute, { status, charge: disputed.id })])).status).toBe(expected);
};
/** A charge.dispute.* event: mapped by its dispute's status, refetched by default. */
const disputeEvent = (type: string) => async () => {
  expect(parse(type, variant(dispute, { status: "needs_response" }))).toMatchObject({
    resourceId: charge.id,
    charge: { status: "disputed" },
  });
  expect(statusOf(type, variant(dispute, { status: "lost" }))).toBe("charged_back");
  expect(stripeDriver.defaults.refetch).toBe("charge.dispute.*");
};
const noState = (type: string, object: object, resourceId: string | null) => () => {
  expect(parse(type, object)).toMatchObject({ resourceId, charge: null });
};

const cases: Record<string, () => void | Promise<void>> = {
  "payment intent status: requires_payment_method": () => {
    intentStatus("requires_payment_method", "failed")();
    // The fixture as published: no attempt yet, so no charge to speak of.
    expect(parse("payment_intent.created", intent)).toMatchObject({ resourceId: null });
  },
  "payment intent status: requires_confirmation": intentStatus("requires_confirmation", "pending"),
  "payment intent status: requires_action": intentStatus("requires_action", "pending"),
  "payment intent status: processing": intentStatus("processing", "pending"),
  "payment intent status: requires_capture": intentStatus("requires_capture", "authorized"),
  "payment intent status: canceled": intentStatus("canceled", "canceled"),
  "payment intent status: succeeded": () => {
    intentStatus("succeeded", "paid", { amount_received: 1099 })();
    expect(parse("payment_intent.succeeded", attempted({ status: "succeeded", amount_received: 1000 })).charge).toMatchObject({
      status: "partially_refunded",
      amount: 1099,
      amountRefunded: 99,
    });
  },
  "charge status: pending": async () => {
    expect((await refetched(variant(captured, { status: "pending" }))).status).toBe("pending");
  },
  "charge status: succeeded": async () => {
    expect(await refetched(captured)).toMatchObject({ status: "paid", amount: 5000, currency: "usd" });
    expect((await refetched(charge)).status).toBe("authorized");
    expect((await refetched(variant(charge, { refunded: true, amount_refunded: 100 }))).status).toBe("canceled");
    expect(await refetched(variant(captured, { amount_refunded: 1200 }))).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 1200,
    });
    expect((await refetched(variant(captured, { amount_refunded: 5000, refunded: true }))).status).toBe("refunded");
  },
  "charge status: failed": async () => {
    expect((await refetched(variant(charge, { status: "failed", captured: false }))).status).toBe("failed");
  },
  "dispute status: warning_needs_response": async () => {
    // The fixture dispute as published: an inquiry.
    expect(dispute.status).toBe("warning_needs_response");
    await disputeStatus("warning_needs_response", "disputed")();
  },
  "dispute status: warning_under_review": disputeStatus("warning_under_review", "disputed"),
  "dispute status: warning_closed": disputeStatus("warning_closed", "paid"),
  "dispute status: needs_response": disputeStatus("needs_response", "disputed"),
  "dispute status: under_review": disputeStatus("under_review", "disputed"),
  "dispute status: won": async () => {
    await disputeStatus("won", "paid")();
    const partlyRefunded = variant(captured, { disputed: true, amount_refunded: 1200 });
    expect((await refetched(partlyRefunded, [variant(dispute, { status: "won" })])).status).toBe("partially_refunded");
  },
  "dispute status: lost": async () => {
    await disputeStatus("lost", "charged_back")();
    const disputed = variant(captured, { disputed: true });
    const twice = [variant(dispute, { status: "won" }), variant(dispute, { id: "dp_2", status: "lost" })];
    expect((await refetched(disputed, twice)).status).toBe("charged_back");
  },
  "dispute status: prevented": disputeStatus("prevented", "paid"),
  "dispute status: appeal_needs_response": disputeStatus("appeal_needs_response", "disputed"),
  "dispute status: appeal_under_review": disputeStatus("appeal_under_review", "disputed"),
  "event: charge.pending": () => {
    expect(statusOf("charge.pending", variant(captured, { status: "pending" }))).toBe("pending");
  },
  "event: charge.succeeded": () => {
    expect(parse("charge.succeeded", captured)).toMatchObject({ resourceId: captured.id, charge: { status: "paid", amount: 5000 } });
    expect(statusOf("charge.succeeded", charge)).toBe("authorized");
  },
  "event: charge.captured": () => {
    expect(statusOf("charge.captured", captured)).toBe("paid");
  },
  "event: charge.failed": () => {
    expect(statusOf("charge.failed", variant(charge, { status: "failed" }))).toBe("failed");
  },
  "event: charge.expired": () => {
    expect(statusOf("charge.expired", variant(charge, { refunded: true, amount_refunded: 100 }))).toBe("canceled");
  },
  "event: charge.refunded": () => {
    expect(parse("charge.refunded", variant(captured, { amount_refunded: 1200 })).charge).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 1200,
    });
    expect(statusOf("charge.refunded", variant(captured, { amount_refunded: 5000, refunded: true }))).toBe("refunded");
  },
  "event: charge.updated": noState("charge.updated", captured, captured.id),
  "event: charge.refund.updated": noState("charge.refund.updated", refund, refund.charge as string),
  "event: charge.dispute.created": disputeEvent("charge.dispute.created"),
  "event: charge.dispute.updated": disputeEvent("charge.dispute.updated"),
  "event: charge.dispute.closed": async () => {
    await disputeEvent("charge.dispute.closed")();
    expect(statusOf("charge.dispute.closed", variant(dispute, { status: "won" }))).toBe("paid");
  },
  "event: charge.dispute.funds_withdrawn": disputeEvent("charge.dispute.funds_withdrawn"),
  "event: charge.dispute.funds_reinstated": disputeEvent("charge.dispute.funds_reinstated"),
  "event: payment_intent.created": () => {
    expect(parse("payment_intent.created", intent)).toMatchObject({ resourceId: null });
  },
  "event: payment_intent.requires_action": () => {
    expect(statusOf("payment_intent.requires_action", attempted({ status: "requires_action" }))).toBe("pending");
  },
  "event: payment_intent.processing": () => {
    expect(statusOf("payment_intent.processing", attempted({ status: "processing" }))).toBe("pending");
  },
  "event: payment_intent.amount_capturable_updated": () => {
    expect(statusOf("payment_intent.amount_capturable_updated", attempted({ status: "requires_capture", amount_capturable: 1099 }))).toBe(
      "authorized",
    );
  },
  "event: payment_intent.partially_funded": () => {
    expect(parse("payment_intent.partially_funded", intent)).toMatchObject({ resourceId: null });
  },
  "event: payment_intent.succeeded": () => {
    expect(parse("payment_intent.succeeded", attempted({ status: "succeeded", amount_received: 1099 }))).toMatchObject({
      resourceId: captured.id,
      charge: { status: "paid", amount: 1099, summary: true },
    });
  },
  "event: payment_intent.payment_failed": () => {
    expect(statusOf("payment_intent.payment_failed", attempted({ status: "requires_payment_method" }))).toBe("failed");
  },
  "event: payment_intent.canceled": () => {
    expect(statusOf("payment_intent.canceled", attempted({ status: "canceled" }))).toBe("canceled");
  },
  "event: refund.created": () => {
    for (const type of ["refund.created", "refund.updated", "refund.failed"]) noState(type, refund, refund.charge as string)();
  },
};

describe("Stripe's documented statuses and event types", () => {
  it("has one case per row of docs/gateways.md's Stripe table, and no other", () => {
    expect(Object.keys(cases).sort()).toEqual(documentedRows("Stripe").sort());
  });

  it.each(Object.entries(cases))("%s", async (_row, check) => {
    await check();
  });
});

describe("Stripe Connect", () => {
  const body = (envelope: object) =>
    Buffer.from(JSON.stringify(variant(envelope, { type: "charge.dispute.created", data: { object: dispute } })));

  const payloadOf = (raw: Buffer) => stripeDriver.parse(raw, context).payload;

  it("takes a connected account's event's account from its top-level field; the platform's own events have none", () => {
    expect(stripeDriver.accountOf!(payloadOf(body(connectEvent)))).toBe(connectEvent.account);
    expect(stripeDriver.accountOf!(payloadOf(body(event)))).toBeNull();
    expect(stripeDriver.accountOf!(payloadOf(body(variant(connectEvent, { account: null as never }))))).toBeNull();
  });

  it("reads every object of a connected account's charge with Stripe-Account, and a platform charge without it", async () => {
    const sent: (Record<string, string> | undefined)[] = [];
    const fetchJson: GatewayFetch = async (path, headers) => {
      sent.push(headers);
      return path.startsWith("/v1/disputes") ? { object: "list", data: [dispute], has_more: false } : variant(captured, { disputed: true });
    };
    await stripeDriver.refetch!(captured.id, fetchJson, { account: "acct_1Connected" });
    expect(sent).toEqual([{ "Stripe-Account": "acct_1Connected" }, { "Stripe-Account": "acct_1Connected" }]);
    sent.length = 0;
    await stripeDriver.refetch!(captured.id, fetchJson, {});
    expect(sent).toEqual([undefined, undefined]);
  });
});
