import { randomBytes } from "node:crypto";
import { signStandard } from "@/lib/providers/standard";
import { signStripe } from "@/lib/providers/stripe";

// What the gateways put on the wire: bodies and signature headers for Stripe and Standard Webhooks,
// built from one step of a payment's history. Used by the simulator and by tests.

export const SIMULATED_PROVIDERS = ["stripe", "standard"] as const;
export type SimulatedProvider = (typeof SIMULATED_PROVIDERS)[number];

export function isSimulatedProvider(name: string): name is SimulatedProvider {
  return (SIMULATED_PROVIDERS as readonly string[]).includes(name);
}

export type PaymentFacts = {
  chargeId: string;
  amount: number;
  currency: string;
  customerId: string;
  customerEmail: string;
};

/** One thing that happened to a payment, in the gateway's terms. */
export type HistoryStep = {
  kind:
    | "pending"
    | "authorized"
    | "succeeded"
    | "failed"
    | "canceled"
    | "refund"
    | "dispute_opened"
    | "dispute_won"
    | "dispute_lost";
  /** Cumulative refunded amount after this step (refunds only). */
  amountRefunded: number;
  /** Milliseconds since the epoch; several steps may share a second. */
  occurredAtMs: number;
};

export type Delivery = { provider: SimulatedProvider; eventId: string; body: string; headers: Record<string, string> };

export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

function stripeCharge(payment: PaymentFacts, step: HistoryStep, status: "succeeded" | "pending" | "failed") {
  return {
    id: payment.chargeId,
    object: "charge",
    amount: payment.amount,
    amount_refunded: step.kind === "refund" ? step.amountRefunded : 0,
    captured: step.kind !== "authorized",
    currency: payment.currency,
    customer: payment.customerId,
    billing_details: { email: payment.customerEmail, name: "Simulated Customer" },
    receipt_email: payment.customerEmail,
    refunded: step.kind === "refund" && step.amountRefunded >= payment.amount,
    status,
    livemode: false,
  };
}

const STRIPE_TYPE: Record<HistoryStep["kind"], string> = {
  pending: "charge.pending",
  authorized: "charge.succeeded",
  succeeded: "charge.succeeded",
  failed: "charge.failed",
  canceled: "charge.expired",
  refund: "charge.refunded",
  dispute_opened: "charge.dispute.created",
  dispute_won: "charge.dispute.closed",
  dispute_lost: "charge.dispute.closed",
};

/** A Stripe event object for one step. */
export function stripeEvent(payment: PaymentFacts, step: HistoryStep, eventId = randomId("evt")) {
  const dispute = (status: string) => ({
    id: `dp_${payment.chargeId.slice(3)}`,
    object: "dispute",
    charge: payment.chargeId,
    amount: payment.amount,
    currency: payment.currency,
    status,
  });
  const object =
    step.kind === "dispute_opened"
      ? dispute("needs_response")
      : step.kind === "dispute_won"
        ? dispute("won")
        : step.kind === "dispute_lost"
          ? dispute("lost")
          : stripeCharge(payment, step, step.kind === "pending" ? "pending" : step.kind === "failed" ? "failed" : "succeeded");
  return {
    id: eventId,
    object: "event",
    api_version: "2024-06-20",
    created: Math.floor(step.occurredAtMs / 1000),
    type: STRIPE_TYPE[step.kind],
    livemode: false,
    data: { object },
  };
}

const STANDARD_TYPE: Record<HistoryStep["kind"], string> = {
  pending: "payment.pending",
  authorized: "payment.authorized",
  succeeded: "payment.succeeded",
  failed: "payment.failed",
  canceled: "payment.canceled",
  refund: "payment.refunded",
  dispute_opened: "payment.disputed",
  dispute_won: "payment.dispute.won",
  dispute_lost: "payment.dispute.lost",
};

/** ISO time with microseconds, as Standard Webhooks senders often write it. */
export function isoMicros(ms: number, micros = 0): string {
  return new Date(ms).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);
}

/** A Standard Webhooks payload for one step. */
export function standardEvent(payment: PaymentFacts, step: HistoryStep) {
  return {
    type: STANDARD_TYPE[step.kind],
    timestamp: isoMicros(step.occurredAtMs),
    data: {
      payment_id: payment.chargeId,
      amount: payment.amount,
      amount_refunded: step.kind === "refund" ? step.amountRefunded : 0,
      currency: payment.currency,
      customer: { id: payment.customerId, email: payment.customerEmail },
    },
  };
}

/** Signs an event body the way its gateway does, at `nowSeconds`. */
export function signedDelivery(
  provider: SimulatedProvider,
  eventId: string,
  body: string,
  secret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Delivery {
  if (provider === "stripe") {
    return {
      provider,
      eventId,
      body,
      headers: { "content-type": "application/json", "stripe-signature": signStripe(secret, nowSeconds, body) },
    };
  }
  return {
    provider,
    eventId,
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": eventId,
      "webhook-timestamp": String(nowSeconds),
      "webhook-signature": signStandard(secret, eventId, nowSeconds, body),
    },
  };
}

/** The delivery of one step: a fresh event id, its body, and its signature. */
export function deliveryFor(provider: SimulatedProvider, payment: PaymentFacts, step: HistoryStep, secret: string): Delivery {
  if (provider === "stripe") {
    const event = stripeEvent(payment, step);
    return signedDelivery(provider, event.id, JSON.stringify(event), secret);
  }
  return signedDelivery(provider, randomId("msg"), JSON.stringify(standardEvent(payment, step)), secret);
}
