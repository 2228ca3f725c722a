import { describe, expect, it } from "vitest";
import { documentedRows, readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { decideChargeUpdate } from "../payments/apply-charge-update";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { pagarmeDriver } from "./pagarme";

// One case per row of docs/gateways.md's Pagar.me table, each on Pagar.me's own payloads: the
// documented order.paid webhook (a captured card charge), a published charge.refunded (the charge
// canceled in full with no trace of its capture) and Stone Connect's charge.paid (cash), varied only
// in the fields each row is about.

type Charge = Record<string, unknown> & { id: string; amount: number };
type Webhook = { id: string; type: string; created_at: string; data: Record<string, unknown> };

const orderPaid = readFixture<Webhook & { data: { charges: Charge[]; customer: object } }>("pagarme/order-paid-webhook.json");
const refundedWebhook = readFixture<Webhook & { data: Charge }>("pagarme/charge-refunded-webhook.json");
const cashPaid = readFixture<Webhook & { data: Charge }>("pagarme/charge-paid-cash-webhook.json");

/** The documented order.paid's charge: paid, paid_at, its last transaction captured. */
const paidCharge = orderPaid.data.charges[0]!;
const transaction = paidCharge.last_transaction as Record<string, unknown>;
/** The published refunded charge: canceled, canceled_amount = amount, neither paid_at nor paid_amount. */
const refundedCharge = refundedWebhook.data;

const withTransaction = (charge: Charge, status: string): Charge => ({ ...charge, last_transaction: variant(transaction, { status }) });
// canceled_amount, as the published refunded charge carries it.
const withCanceled = (charge: Charge, canceled: number): Charge => ({ ...charge, canceled_amount: canceled });
const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

function parsed(type: string, data: object, envelope: Webhook = orderPaid): ChargeSnapshot | null {
  return pagarmeDriver.parse(Buffer.from(JSON.stringify(variant<Webhook>(envelope, { type, data: data as Webhook["data"] }))), context)
    .charge;
}
const statusOf = (type: string, data: object, envelope?: Webhook) => parsed(type, data, envelope)?.status ?? null;

/** GET /charges/{id} answering `charge`, fetched for an event of `eventType` (none: reconciliation). */
const refetched = (charge: Charge, eventType?: string) => pagarmeDriver.refetch!(charge.id, async () => charge, { eventType });
const refetchedStatus = async (charge: Charge, eventType?: string) => (await refetched(charge, eventType)).status;

const paidLedger = { status: "paid" as const, amountRefunded: 0, lastEventAt: null };
const pendingLedger = { ...paidLedger, status: "pending" as const };

const chargeStatus = (status: string, expected: string) => async () => {
  expect(await refetchedStatus(variant(paidCharge, { status }))).toBe(expected);
};
const takenTransaction = (status: string) => async () => {
  // The charge alone reads as a cancellation; a transaction that was captured makes it the refund.
  expect(await refetched(withTransaction(refundedCharge, status))).toMatchObject({ status: "refunded", amountRefunded: 21734 });
};
const untakenTransaction = (status: string) => async () => {
  // Not even a charge.refunded makes a void a refund: no money was taken.
  expect(await refetchedStatus(withTransaction(refundedCharge, status))).toBe("canceled");
  expect(await refetchedStatus(withTransaction(refundedCharge, status), "charge.refunded")).toBe("canceled");
};
const namedEvent = (type: string, data: object, expected: string) => () => {
  expect(statusOf(type, data)).toBe(expected);
};
const ownStatusEvent = (type: string) => () => {
  expect(statusOf(type, paidCharge)).toBe("paid");
  expect(statusOf(type, variant(paidCharge, { status: "pending", paid_at: null }))).toBe("pending");
};
const noCharge = (type: string, data: object) => () => {
  expect(statusOf(type, data)).toBeNull();
};

const cases: Record<string, () => void | Promise<void>> = {
  "charge status: pending": chargeStatus("pending", "pending"),
  "charge status: processing": chargeStatus("processing", "pending"),
  "charge status: paid": async () => {
    expect(await refetchedStatus(paidCharge)).toBe("paid");
    expect(await refetched(withCanceled(paidCharge, 356))).toMatchObject({ status: "partially_refunded", amountRefunded: 356 });
    expect(await refetched(withCanceled(paidCharge, 12356))).toMatchObject({ status: "refunded", amountRefunded: 12356 });
  },
  "charge status: overpaid": chargeStatus("overpaid", "paid"),
  "charge status: underpaid": chargeStatus("underpaid", "paid"),
  "charge status: failed": chargeStatus("failed", "failed"),
  "charge status: canceled": async () => {
    // Nothing in the charge tells: canceled, its canceled amount left for the ledger to judge.
    const alone = await refetched(refundedCharge);
    expect(alone).toMatchObject({ status: "canceled", amountRefunded: 21734 });
    expect(decideChargeUpdate(paidLedger, alone, null)).toEqual({ action: "apply", state: { status: "refunded", amountRefunded: 21734 } });
    // Never captured: a cancellation, and the ledger stores no refund beside it.
    expect(decideChargeUpdate(pendingLedger, alone, null)).toEqual({ action: "apply", state: { status: "canceled", amountRefunded: 0 } });
    expect(await refetchedStatus(variant(refundedCharge, { canceled_at: null }), "charge.refunded")).toBe("refunded");
    expect(await refetchedStatus({ ...refundedCharge, paid_at: "2025-01-06T18:38:34Z" })).toBe("refunded");
  },
  "charge status: chargedback": chargeStatus("chargedback", "charged_back"),
  "charge status: refunded": async () => {
    expect(await refetched(variant(refundedCharge, { status: "refunded" }))).toMatchObject({ status: "refunded", amountRefunded: 21734 });
    expect(await refetchedStatus(variant(refundedCharge, { status: "refunded", canceled_amount: 734 }))).toBe("partially_refunded");
  },
  "transaction status: captured": takenTransaction("captured"),
  "transaction status: partial_capture": takenTransaction("partial_capture"),
  "transaction status: refunded": takenTransaction("refunded"),
  "transaction status: partial_refunded": takenTransaction("partial_refunded"),
  "transaction status: pending_refund": takenTransaction("pending_refund"),
  "transaction status: error_on_refunding": takenTransaction("error_on_refunding"),
  "transaction status: chargedback": takenTransaction("chargedback"),
  "transaction status: paid": async () => {
    await takenTransaction("paid")();
    // Stone Connect's documented cash charge.paid: the transaction paid.
    expect(parsed("charge.paid", cashPaid.data, cashPaid)).toMatchObject({ status: "paid", amount: 12500 });
  },
  "transaction status: overpaid": takenTransaction("overpaid"),
  "transaction status: underpaid": takenTransaction("underpaid"),
  "transaction status: authorized_pending_capture": untakenTransaction("authorized_pending_capture"),
  "transaction status: waiting_capture": untakenTransaction("waiting_capture"),
  "transaction status: not_authorized": untakenTransaction("not_authorized"),
  "transaction status: notAuthorized": untakenTransaction("notAuthorized"),
  "transaction status: voided": untakenTransaction("voided"),
  "transaction status: partial_void": untakenTransaction("partial_void"),
  "transaction status: error_on_voiding": untakenTransaction("error_on_voiding"),
  "transaction status: with_error": untakenTransaction("with_error"),
  "transaction status: withError": untakenTransaction("withError"),
  "transaction status: failed": untakenTransaction("failed"),
  "transaction status: generated": untakenTransaction("generated"),
  "transaction status: waiting_payment": untakenTransaction("waiting_payment"),
  "transaction status: expired": untakenTransaction("expired"),
  "transaction status: pending_review": untakenTransaction("pending_review"),
  "transaction status: analyzing": untakenTransaction("analyzing"),
  "transaction status: waiting_cancellation": async () => {
    const charge = withTransaction(refundedCharge, "waiting_cancellation");
    expect(await refetchedStatus(charge)).toBe("canceled");
    expect(await refetchedStatus(charge, "charge.refunded")).toBe("refunded");
  },
  "event: charge.created": ownStatusEvent("charge.created"),
  "event: charge.updated": () => {
    ownStatusEvent("charge.updated")();
    // A status no list documents names nothing: the event goes by its refetch, not a parse failure.
    expect(statusOf("charge.updated", variant(paidCharge, { status: "with_error" }))).toBeNull();
  },
  "event: charge.pending": namedEvent("charge.pending", variant(paidCharge, { status: "pending", paid_at: null }), "pending"),
  "event: charge.processing": namedEvent("charge.processing", variant(paidCharge, { status: "processing", paid_at: null }), "pending"),
  "event: charge.paid": async () => {
    expect(statusOf("charge.paid", paidCharge)).toBe("paid");
    // Refetched after the charge was refunded in full: the notice says the money was taken.
    expect(await refetched(refundedCharge, "charge.paid")).toMatchObject({ status: "refunded", amountRefunded: 21734 });
  },
  "event: charge.overpaid": namedEvent("charge.overpaid", variant(paidCharge, { status: "overpaid" }), "paid"),
  "event: charge.underpaid": namedEvent("charge.underpaid", variant(paidCharge, { status: "underpaid" }), "paid"),
  "event: charge.payment_failed": namedEvent(
    "charge.payment_failed",
    withTransaction(variant(paidCharge, { status: "failed", paid_at: null }), "not_authorized"),
    "failed",
  ),
  "event: charge.refunded": async () => {
    expect(parsed(refundedWebhook.type, refundedCharge, refundedWebhook)).toMatchObject({ status: "refunded", amountRefunded: 21734 });
    expect(await refetched(refundedCharge, "charge.refunded")).toMatchObject({ status: "refunded", amountRefunded: 21734 });
    expect(statusOf("charge.refunded", variant(refundedCharge, { canceled_amount: 1734 }), refundedWebhook)).toBe("partially_refunded");
    expect(statusOf("charge.refunded", withTransaction(refundedCharge, "voided"), refundedWebhook)).toBe("canceled");
  },
  "event: charge.partial_canceled": namedEvent("charge.partial_canceled", withCanceled(paidCharge, 2356), "partially_refunded"),
  "event: charge.chargedback": namedEvent(
    "charge.chargedback",
    withTransaction(variant(paidCharge, { status: "chargedback" }), "chargedback"),
    "charged_back",
  ),
  "event: charge.antifraud_approved": ownStatusEvent("charge.antifraud_approved"),
  "event: charge.antifraud_reproved": namedEvent(
    "charge.antifraud_reproved",
    variant(paidCharge, { status: "failed", paid_at: null }),
    "failed",
  ),
  "event: charge.antifraud_manual": ownStatusEvent("charge.antifraud_manual"),
  "event: charge.antifraud_pending": ownStatusEvent("charge.antifraud_pending"),
  "event: charge.canceled": () => {
    expect(statusOf("charge.canceled", refundedCharge, refundedWebhook)).toBe("canceled");
    expect(statusOf("charge.canceled", withCanceled(variant(paidCharge, { status: "canceled" }), 12356))).toBe("refunded");
  },
  "event: order.created": namedEvent(
    "order.created",
    variant(orderPaid.data, { status: "pending", charges: [variant(paidCharge, { status: "pending", paid_at: null })] }),
    "pending",
  ),
  "event: order.updated": namedEvent("order.updated", orderPaid.data, "paid"),
  "event: order.paid": () => {
    expect(pagarmeDriver.parse(Buffer.from(JSON.stringify(orderPaid)), context)).toMatchObject({
      resourceId: "ch_d22356Jf4WuGr8no",
      charge: { status: "paid", amount: 12356, currency: "brl" },
    });
  },
  "event: order.payment_failed": namedEvent(
    "order.payment_failed",
    variant(orderPaid.data, { status: "failed", charges: [variant(paidCharge, { status: "failed", paid_at: null })] }),
    "failed",
  ),
  "event: order.canceled": () => {
    const canceled = variant(paidCharge, { status: "canceled", paid_at: null });
    expect(
      statusOf("order.canceled", variant(orderPaid.data, { status: "canceled", charges: [withTransaction(canceled, "voided")] })),
    ).toBe("canceled");
    const refunded = withCanceled(variant(paidCharge, { status: "canceled" }), 12356);
    expect(statusOf("order.canceled", variant(orderPaid.data, { status: "canceled", charges: [refunded] }))).toBe("refunded");
  },
  "event: order.closed": noCharge("order.closed", orderPaid.data),
  "event: customer.created": () => {
    const event = pagarmeDriver.parse(
      Buffer.from(JSON.stringify({ ...orderPaid, type: "customer.created", data: orderPaid.data.customer })),
      context,
    );
    expect(event).toMatchObject({ resourceId: null, charge: null });
  },
};

describe("Pagar.me's documented statuses and event types", () => {
  it("has one case per row of docs/gateways.md's Pagar.me table, and no other", () => {
    expect(Object.keys(cases).sort()).toEqual(documentedRows("Pagar.me").sort());
  });

  it.each(Object.entries(cases))("%s", async (_row, check) => {
    await check();
  });
});
