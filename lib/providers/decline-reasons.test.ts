import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { DECLINE_MESSAGE_MAX } from "../canonical/charge-event";
import { asaasDriver } from "./asaas";
import { mercadopagoDriver } from "./mercadopago";
import { pagarmeDriver } from "./pagarme";
import { stripeDriver } from "./stripe";
import type { GatewayFetch } from "./types";
import { zoopDriver } from "./zoop";

// Each driver's decline reason, read from the gateways' own payloads: the vendored fixtures, varied
// only in the fields a refusal fills, with the values each gateway documents for them.

const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };
const body = (object: object) => Buffer.from(JSON.stringify(object));

describe("Stripe", () => {
  const charge = readFixture<Stripe.Charge>("stripe/charge.json");
  const intent = readFixture<Stripe.PaymentIntent>("stripe/payment-intent.json");
  const event = readFixture<{ id: string; type: string; created: number; data: { object: object } }>("stripe/event.json");
  const parse = (type: string, object: object) => stripeDriver.parse(body(variant(event, { type, data: { object } })), context).charge;
  // docs.stripe.com/declines/codes: an issuer's insufficient_funds decline, as a failed charge carries it.
  const declined = variant(charge, {
    status: "failed",
    failure_code: "card_declined",
    failure_message: "Your card has insufficient funds.",
    outcome: variant(charge.outcome!, {
      network_status: "declined_by_network",
      reason: "insufficient_funds",
      seller_message: "The bank returned the decline code `insufficient_funds`.",
      type: "issuer_declined",
    }),
  });

  it("reads a failed charge's decline code and customer-facing message", () => {
    expect(parse("charge.failed", declined)).toMatchObject({
      status: "failed",
      declineReason: { code: "insufficient_funds", message: "Your card has insufficient funds." },
    });
  });

  it("falls back to the failure code and the seller message", () => {
    const blocked = variant(declined, { failure_message: null, outcome: variant(declined.outcome!, { reason: null }) });
    expect(parse("charge.failed", blocked)?.declineReason).toEqual({
      code: "card_declined",
      message: "The bank returned the decline code `insufficient_funds`.",
    });
  });

  it("says nothing of a charge that went through", () => {
    expect(parse("charge.succeeded", variant(charge, { captured: true }))?.declineReason).toBeUndefined();
  });

  it("reads a payment intent's last payment error", () => {
    const failed = variant(intent, {
      status: "requires_payment_method",
      latest_charge: declined.id,
      last_payment_error: {
        type: "card_error",
        code: "card_declined",
        decline_code: "insufficient_funds",
        message: "Your card has insufficient funds.",
      },
    });
    expect(parse("payment_intent.payment_failed", failed)?.declineReason).toEqual({
      code: "insufficient_funds",
      message: "Your card has insufficient funds.",
    });
  });

  it("reads a refetched charge the same way", async () => {
    const fetchJson: GatewayFetch = async () => declined;
    expect((await stripeDriver.refetch!(declined.id, fetchJson, {})).declineReason?.code).toBe("insufficient_funds");
  });
});

describe("Pagar.me", () => {
  type Charge = Record<string, unknown> & { id: string; status: string; last_transaction: Record<string, unknown> };
  type Webhook = { id: string; type: string; created_at: string; data: { charges: Charge[] } };
  const orderPaid = readFixture<Webhook>("pagarme/order-paid-webhook.json");
  const paid = orderPaid.data.charges[0]!;
  // The SDK's GetCreditCardTransactionResponse fields of a refused card: the acquirer's answer.
  const refused = (fields: Record<string, unknown>): Charge => ({
    ...paid,
    status: "failed",
    paid_at: null,
    paid_amount: 0,
    last_transaction: { ...paid.last_transaction, status: "not_authorized", success: false, ...fields },
  });
  const parse = (type: string, charge: Charge) => pagarmeDriver.parse(body({ ...orderPaid, type, data: charge }), context).charge;

  it("reads the acquirer's return code and message", () => {
    expect(parse("charge.payment_failed", refused({ acquirer_return_code: "51", acquirer_message: "Saldo insuficiente" }))).toMatchObject({
      status: "failed",
      declineReason: { code: "51", message: "Saldo insuficiente" },
    });
  });

  it("reads the gateway's errors when no acquirer answered", () => {
    const charge = refused({
      gateway_response: { code: "400", errors: [{ message: "card: The number field is not a valid credit card number." }] },
    });
    expect(parse("charge.payment_failed", charge)?.declineReason).toEqual({
      code: "400",
      message: "card: The number field is not a valid credit card number.",
    });
  });

  it("reads a refused attempt on a charge still pending (a retry to come)", async () => {
    const retrying = { ...refused({ acquirer_return_code: "1016", acquirer_message: "Transação não autorizada" }), status: "pending" };
    const snapshot = await pagarmeDriver.refetch!(retrying.id, async () => retrying, {});
    expect(snapshot).toMatchObject({ status: "pending", declineReason: { code: "1016", message: "Transação não autorizada" } });
  });

  it("says nothing of the documented paid charge", () => {
    expect(parse("charge.paid", paid)?.declineReason).toBeUndefined();
  });
});

describe("Mercado Pago", () => {
  type Payment = Record<string, unknown> & { id: number; status: string; status_detail: string };
  const payment = readFixture<Payment>("mercadopago/payment.json");
  const rejected = readFixture<Payment>("mercadopago/payment-rejected.json");
  const refetched = (fields: Partial<Payment>) =>
    mercadopagoDriver.refetch!(String(payment.id), (async () => variant(payment, fields)) as GatewayFetch, {});

  it("reads a rejected payment's status_detail", async () => {
    expect(await refetched({ status: rejected.status, status_detail: rejected.status_detail })).toMatchObject({
      status: "failed",
      declineReason: { code: "cc_rejected_insufficient_amount" },
    });
  });

  it("says nothing of an approved payment's detail", async () => {
    expect((await refetched({})).declineReason).toBeUndefined();
  });
});

describe("Asaas", () => {
  type Event = { id: string; event: string; dateCreated: string; payment: Record<string, unknown> & { id: string } };
  const received = readFixture<Event>("asaas/payment-received-webhook.json");
  const parse = (type: string, status: string) =>
    asaasDriver.parse(body(variant(received, { event: type, payment: { ...received.payment, status } })), context).charge;

  it("reads a refused card capture from its event", () => {
    expect(parse("PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", "PENDING")).toMatchObject({
      status: "failed",
      declineReason: { code: "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", message: "Credit card payment failure" },
    });
  });

  it("keeps the event's refusal on the refetched payment, still open to another try", async () => {
    const payment = { ...received.payment, status: "PENDING" };
    const snapshot = await asaasDriver.refetch!(String(payment.id), async () => payment, {
      eventType: "PAYMENT_REPROVED_BY_RISK_ANALYSIS",
    });
    expect(snapshot).toMatchObject({ status: "pending", declineReason: { code: "PAYMENT_REPROVED_BY_RISK_ANALYSIS" } });
  });

  it("says nothing of a received payment", () => {
    expect(parse("PAYMENT_RECEIVED", "RECEIVED")?.declineReason).toBeUndefined();
  });
});

describe("Zoop", () => {
  type Event = { type: string; payload: Record<string, unknown> & { history: Record<string, unknown>[] } };
  const published = readFixture<Event>("zoop/transaction-failed-event.json");
  // The library blanked the ids; a transaction has one.
  const failed = { ...published, payload: variant(published.payload, { id: "5c4b3a2918f74e6d9c0b1a2f3e4d5c6b" }) };
  const succeeded = readFixture<object>("zoop/transaction-succeeded-event.json");

  it("reads the published transaction.failed's error when the authorizer gave no answer", () => {
    expect(zoopDriver.parse(body(failed), context).charge).toMatchObject({
      status: "failed",
      declineReason: {
        code: "invalid_payment_information",
        message: "Invalid payment information. Please verify request parameters.",
      },
    });
  });

  it("reads the authorizer's answer on the failed operation first", () => {
    const history = failed.payload.history.map((entry) =>
      entry.status === "failed" ? { ...entry, response_code: "51", response_message: "Insufficient funds" } : entry,
    );
    const answered = { ...failed, payload: { ...failed.payload, history } };
    expect(zoopDriver.parse(body(answered), context).charge?.declineReason).toEqual({ code: "51", message: "Insufficient funds" });
  });

  it("says nothing of a succeeded transaction", () => {
    expect(zoopDriver.parse(body(succeeded), context).charge?.declineReason).toBeUndefined();
  });
});

describe("bounds", () => {
  it("cuts a gateway's long message and drops control characters", async () => {
    const payment = readFixture<Record<string, unknown>>("mercadopago/payment.json");
    const long = `cc_rejected_${"x".repeat(500)}\u0000`;
    const snapshot = await mercadopagoDriver.refetch!(
      "1",
      (async () => ({ ...payment, status: "rejected", status_detail: long })) as GatewayFetch,
      {},
    );
    expect(snapshot.declineReason?.code?.length).toBe(64);
    expect(snapshot.declineReason?.code).not.toContain("\u0000");
    expect(DECLINE_MESSAGE_MAX).toBe(300);
  });
});
