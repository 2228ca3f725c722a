import { describe, expect, it } from "vitest";
import { documentedRows, readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { decideChargeUpdate } from "../payments/apply-charge-update";
import { isoToMicros } from "../payments/state-machine";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { asaasDriver } from "./asaas";

// One case per row of docs/gateways.md's Asaas table, each on Asaas's documented payloads: its
// payment-event example (a PAYMENT_RECEIVED), a refund of a payment's refunds[] and a payment's
// chargeback, varied only in the fields each row is about.

type Payment = Record<string, unknown> & { id: string };
type Webhook = { id: string; event: string; dateCreated: string; payment: Payment };

const received = readFixture<Webhook>("asaas/payment-received-webhook.json");
const refund = readFixture<Record<string, unknown>>("asaas/refund.json");
const chargeback = readFixture<Record<string, unknown>>("asaas/chargeback.json");
const payment = received.payment;
const context = { headers: {}, query: new URLSearchParams(), timeZone: "America/Sao_Paulo" };

function parsed(event: string, fields: Partial<Payment> = {}): ChargeSnapshot | null {
  const body = variant(received, { event, payment: variant(payment, fields) });
  return asaasDriver.parse(Buffer.from(JSON.stringify(body)), context).charge;
}
const statusOf = (event: string, fields?: Partial<Payment>) => parsed(event, fields)?.status ?? null;
/** GET /payments/{id} answering the payment with `fields`, fetched for an event of `eventType`. */
const refetched = (fields: Partial<Payment>, eventType?: string) =>
  asaasDriver.refetch!(payment.id, async () => variant(payment, fields), { eventType });

const second = (iso: string) => ({ micros: isoToMicros(iso), precision: "second" as const });
const DELETED_AT = second("2024-06-12T19:45:03Z");
const canceledLedger = { status: "canceled" as const, amountRefunded: 0, lastEventAt: DELETED_AT };

const paymentStatus = (status: string, expected: string) => async () => {
  expect((await refetched({ status })).status).toBe(expected);
  expect(statusOf("PAYMENT_UPDATED", { status })).toBe(expected);
};
const refundStatus = (status: string, counts: boolean) => async () => {
  const snapshot = await refetched({ refunds: [variant(refund, { status })] });
  expect(snapshot).toMatchObject(counts ? { status: "partially_refunded", amountRefunded: 200 } : { status: "paid" });
  if (!counts) expect(snapshot.amountRefunded).toBeUndefined();
};
const chargebackStatus = (status: string, paymentStatus: string, expected: string) => async () => {
  expect((await refetched({ status: paymentStatus, chargeback: variant(chargeback, { status }) })).status).toBe(expected);
};
const namedEvent = (event: string, expected: string, fields?: Partial<Payment>) => () => {
  expect(statusOf(event, fields)).toBe(expected);
};
const noState = (event: string) => () => {
  expect(asaasDriver.parse(Buffer.from(JSON.stringify(variant(received, { event }))), context)).toMatchObject({
    resourceId: payment.id,
    charge: null,
  });
};

const cases: Record<string, () => void | Promise<void>> = {
  "payment status: PENDING": paymentStatus("PENDING", "pending"),
  "payment status: AWAITING_RISK_ANALYSIS": paymentStatus("AWAITING_RISK_ANALYSIS", "pending"),
  "payment status: AUTHORIZED": paymentStatus("AUTHORIZED", "authorized"),
  "payment status: CONFIRMED": paymentStatus("CONFIRMED", "paid"),
  "payment status: RECEIVED": paymentStatus("RECEIVED", "paid"),
  "payment status: RECEIVED_IN_CASH": paymentStatus("RECEIVED_IN_CASH", "paid"),
  "payment status: OVERDUE": paymentStatus("OVERDUE", "pending"),
  "payment status: DUNNING_REQUESTED": paymentStatus("DUNNING_REQUESTED", "pending"),
  "payment status: DUNNING_RECEIVED": paymentStatus("DUNNING_RECEIVED", "paid"),
  "payment status: REFUND_REQUESTED": paymentStatus("REFUND_REQUESTED", "paid"),
  "payment status: REFUND_IN_PROGRESS": paymentStatus("REFUND_IN_PROGRESS", "paid"),
  "payment status: REFUNDED": async () => {
    expect(await refetched({ status: "REFUNDED", refunds: [variant(refund, { value: 100 })] })).toMatchObject({
      status: "refunded",
      amountRefunded: 10000,
    });
    expect(await refetched({ status: "REFUNDED", refunds: [refund] })).toMatchObject({ status: "partially_refunded", amountRefunded: 200 });
  },
  "payment status: CHARGEBACK_REQUESTED": paymentStatus("CHARGEBACK_REQUESTED", "disputed"),
  "payment status: CHARGEBACK_DISPUTE": paymentStatus("CHARGEBACK_DISPUTE", "disputed"),
  "payment status: AWAITING_CHARGEBACK_REVERSAL": paymentStatus("AWAITING_CHARGEBACK_REVERSAL", "paid"),
  "payment status: deleted: true": async () => {
    const snapshot = await refetched({ status: "PENDING", deleted: true });
    expect(snapshot.status).toBe("canceled");
    expect(snapshot.reopens).toBeUndefined();
  },
  "refund status: DONE": refundStatus("DONE", true),
  "refund status: PENDING": refundStatus("PENDING", false),
  "refund status: CANCELLED": refundStatus("CANCELLED", false),
  "chargeback status: REQUESTED": chargebackStatus("REQUESTED", "CHARGEBACK_REQUESTED", "disputed"),
  "chargeback status: IN_DISPUTE": chargebackStatus("IN_DISPUTE", "CHARGEBACK_DISPUTE", "disputed"),
  "chargeback status: DISPUTE_LOST": chargebackStatus("DISPUTE_LOST", "CHARGEBACK_DISPUTE", "charged_back"),
  "chargeback status: DONE": chargebackStatus("DONE", "CHARGEBACK_REQUESTED", "charged_back"),
  "chargeback status: REVERSED": chargebackStatus("REVERSED", "AWAITING_CHARGEBACK_REVERSAL", "paid"),
  "event: PAYMENT_CREATED": namedEvent("PAYMENT_CREATED", "pending", { status: "PENDING" }),
  "event: PAYMENT_AWAITING_RISK_ANALYSIS": namedEvent("PAYMENT_AWAITING_RISK_ANALYSIS", "pending", { status: "AWAITING_RISK_ANALYSIS" }),
  "event: PAYMENT_APPROVED_BY_RISK_ANALYSIS": namedEvent("PAYMENT_APPROVED_BY_RISK_ANALYSIS", "pending", { status: "PENDING" }),
  "event: PAYMENT_REPROVED_BY_RISK_ANALYSIS": namedEvent("PAYMENT_REPROVED_BY_RISK_ANALYSIS", "failed", { status: "PENDING" }),
  "event: PAYMENT_AUTHORIZED": namedEvent("PAYMENT_AUTHORIZED", "authorized", { status: "AUTHORIZED" }),
  "event: PAYMENT_UPDATED": () => {
    expect(statusOf("PAYMENT_UPDATED", { status: "PENDING", dueDate: "2021-01-15" })).toBe("pending");
    expect(statusOf("PAYMENT_UPDATED")).toBe("paid");
    // A status Asaas doesn't document names nothing: the event goes by its refetch, not a parse failure.
    expect(statusOf("PAYMENT_UPDATED", { status: "SOMETHING_NEW" })).toBeNull();
  },
  "event: PAYMENT_CONFIRMED": namedEvent("PAYMENT_CONFIRMED", "paid", { status: "CONFIRMED" }),
  "event: PAYMENT_RECEIVED": () => {
    const snapshot = parsed("PAYMENT_RECEIVED")!;
    expect(snapshot).toMatchObject({ status: "paid", amount: 10000, currency: "brl", customerId: "cus_G7Dvo4iphUNk" });
    // On a payment held canceled: restored and paid when newer than the deletion, not otherwise.
    const later = second("2024-06-12T19:50:00Z");
    expect(decideChargeUpdate(canceledLedger, snapshot, later)).toEqual({ action: "apply", state: { status: "paid", amountRefunded: 0 } });
    expect(decideChargeUpdate(canceledLedger, snapshot, DELETED_AT)).toEqual({ action: "ignore", reason: "invalid_transition" });
    expect(decideChargeUpdate(canceledLedger, snapshot, second("2024-06-12T19:40:00Z"))).toEqual({ action: "ignore", reason: "stale" });
  },
  "event: PAYMENT_CREDIT_CARD_CAPTURE_REFUSED": namedEvent("PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", "failed", { status: "PENDING" }),
  "event: PAYMENT_ANTICIPATED": noState("PAYMENT_ANTICIPATED"),
  "event: PAYMENT_OVERDUE": namedEvent("PAYMENT_OVERDUE", "pending", { status: "OVERDUE" }),
  "event: PAYMENT_DELETED": namedEvent("PAYMENT_DELETED", "canceled", { status: "PENDING", deleted: true }),
  "event: PAYMENT_RESTORED": () => {
    const snapshot = parsed("PAYMENT_RESTORED", { status: "PENDING" })!;
    expect(snapshot).toMatchObject({ status: "pending", reopens: ["canceled"] });
    expect(decideChargeUpdate(canceledLedger, snapshot, second("2024-06-12T19:46:00Z"))).toEqual({
      action: "apply",
      state: { status: "pending", amountRefunded: 0 },
    });
  },
  "event: PAYMENT_REFUNDED": namedEvent("PAYMENT_REFUNDED", "refunded", { status: "REFUNDED", refunds: [variant(refund, { value: 100 })] }),
  "event: PAYMENT_PARTIALLY_REFUNDED": namedEvent("PAYMENT_PARTIALLY_REFUNDED", "partially_refunded", { refunds: [refund] }),
  "event: PAYMENT_REFUND_IN_PROGRESS": noState("PAYMENT_REFUND_IN_PROGRESS"),
  "event: PAYMENT_REFUND_DENIED": noState("PAYMENT_REFUND_DENIED"),
  "event: PAYMENT_RECEIVED_IN_CASH_UNDONE": async () => {
    const snapshot = parsed("PAYMENT_RECEIVED_IN_CASH_UNDONE", { status: "PENDING" })!;
    expect(snapshot).toMatchObject({ status: "pending", reopens: ["canceled", "paid"] });
    const cashLedger = { status: "paid" as const, amountRefunded: 0, lastEventAt: DELETED_AT };
    const later = second("2024-06-13T12:00:00Z");
    expect(decideChargeUpdate(cashLedger, snapshot, later)).toEqual({ action: "apply", state: { status: "pending", amountRefunded: 0 } });
    // Its refetch says the same; any other pending notice can't take money taken back.
    expect((await refetched({ status: "PENDING" }, "PAYMENT_RECEIVED_IN_CASH_UNDONE")).reopens).toEqual(["canceled", "paid"]);
    expect(decideChargeUpdate(cashLedger, parsed("PAYMENT_OVERDUE", { status: "OVERDUE" })!, later)).toEqual({
      action: "ignore",
      reason: "invalid_transition",
    });
  },
  "event: PAYMENT_CHARGEBACK_REQUESTED": namedEvent("PAYMENT_CHARGEBACK_REQUESTED", "disputed", {
    status: "CHARGEBACK_REQUESTED",
    chargeback,
  }),
  "event: PAYMENT_CHARGEBACK_DISPUTE": namedEvent("PAYMENT_CHARGEBACK_DISPUTE", "disputed", {
    status: "CHARGEBACK_DISPUTE",
    chargeback: variant(chargeback, { status: "IN_DISPUTE" }),
  }),
  "event: PAYMENT_AWAITING_CHARGEBACK_REVERSAL": namedEvent("PAYMENT_AWAITING_CHARGEBACK_REVERSAL", "paid", {
    status: "AWAITING_CHARGEBACK_REVERSAL",
    chargeback: variant(chargeback, { status: "REVERSED" }),
  }),
  "event: PAYMENT_DUNNING_REQUESTED": namedEvent("PAYMENT_DUNNING_REQUESTED", "pending", { status: "DUNNING_REQUESTED" }),
  "event: PAYMENT_DUNNING_RECEIVED": namedEvent("PAYMENT_DUNNING_RECEIVED", "paid", { status: "DUNNING_RECEIVED" }),
  "event: PAYMENT_BANK_SLIP_VIEWED": noState("PAYMENT_BANK_SLIP_VIEWED"),
  "event: PAYMENT_CHECKOUT_VIEWED": noState("PAYMENT_CHECKOUT_VIEWED"),
  "event: PAYMENT_BANK_SLIP_CANCELLED": noState("PAYMENT_BANK_SLIP_CANCELLED"),
  "event: PAYMENT_SPLIT_CANCELLED": noState("PAYMENT_SPLIT_CANCELLED"),
  "event: PAYMENT_SPLIT_DIVERGENCE_BLOCK": noState("PAYMENT_SPLIT_DIVERGENCE_BLOCK"),
  "event: PAYMENT_SPLIT_DIVERGENCE_BLOCK_FINISHED": noState("PAYMENT_SPLIT_DIVERGENCE_BLOCK_FINISHED"),
};

describe("Asaas's documented statuses and event types", () => {
  it("has one case per row of docs/gateways.md's Asaas table, and no other", () => {
    expect(Object.keys(cases).sort()).toEqual(documentedRows("Asaas").sort());
  });

  it.each(Object.entries(cases))("%s", async (_row, check) => {
    await check();
  });
});
