import { randomBytes } from "node:crypto";
import { signStandard } from "@/lib/providers/standard";
import { signStripe } from "@/lib/providers/stripe";

// What the gateways put on the wire: bodies and signature headers for Stripe and Standard Webhooks,
// built from one step of a payment's history. Used by the simulator and by tests.

export type SimulatedProvider = "stripe" | "standard";

export type PaymentFacts = {
  chargeId: string;
  amount: number;
  currency: string;
  customerId: string;
  customerEmail: string;
  /**
   * How the merchant integrated, when not the classic way (Stripe charge events, our Standard words):
   * `intents`: Stripe PaymentIntent events for the payment's lifecycle (charge events only for
   * refunds and disputes); `charges_and_intents`: both for the lifecycle; `dodo`: a Standard Webhooks
   * sender with Dodo Payments' own types, fields and refund/dispute objects.
   */
  integration?: "intents" | "charges_and_intents" | "dodo";
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

type LifecycleKind = "pending" | "authorized" | "succeeded" | "failed" | "canceled";
const isLifecycle = (kind: HistoryStep["kind"]): kind is LifecycleKind =>
  kind === "pending" || kind === "authorized" || kind === "succeeded" || kind === "failed" || kind === "canceled";

// A PaymentIntent's type and status for a lifecycle step (stripe SDK 23 `PaymentIntent.Status`).
const STRIPE_INTENT: Record<LifecycleKind, { type: string; status: string }> = {
  pending: { type: "payment_intent.processing", status: "processing" },
  authorized: { type: "payment_intent.amount_capturable_updated", status: "requires_capture" },
  succeeded: { type: "payment_intent.succeeded", status: "succeeded" },
  failed: { type: "payment_intent.payment_failed", status: "requires_payment_method" },
  canceled: { type: "payment_intent.canceled", status: "canceled" },
};

/** A `payment_intent.*` event for a lifecycle step: its latest charge is the payment's charge. */
function stripeIntentEvent(payment: PaymentFacts, kind: LifecycleKind) {
  const { type, status } = STRIPE_INTENT[kind];
  return {
    type,
    object: {
      id: `pi_${payment.chargeId.slice(3)}`,
      object: "payment_intent",
      amount: payment.amount,
      amount_capturable: kind === "authorized" ? payment.amount : 0,
      amount_received: kind === "succeeded" ? payment.amount : 0,
      capture_method: kind === "authorized" || kind === "canceled" ? "manual" : "automatic",
      currency: payment.currency,
      customer: payment.customerId,
      receipt_email: payment.customerEmail,
      latest_charge: payment.chargeId,
      livemode: false,
      status,
    },
  };
}

function stripeEnvelope(eventId: string, step: HistoryStep, type: string, object: object) {
  return {
    id: eventId,
    object: "event",
    api_version: "2024-06-20",
    created: Math.floor(step.occurredAtMs / 1000),
    type,
    livemode: false,
    data: { object },
  };
}

/** The Stripe events of one step: what the merchant's integration subscribes to (see PaymentFacts). */
export function stripeEvents(payment: PaymentFacts, step: HistoryStep) {
  if (!isLifecycle(step.kind) || !payment.integration) return [stripeEvent(payment, step)];
  const intent = stripeIntentEvent(payment, step.kind);
  const intentEvent = stripeEnvelope(randomId("evt"), step, intent.type, intent.object);
  return payment.integration === "intents" ? [intentEvent] : [stripeEvent(payment, step), intentEvent];
}

/** A Stripe charge or dispute event object for one step. */
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
  return stripeEnvelope(eventId, step, STRIPE_TYPE[step.kind], object);
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

// Dodo Payments' own event types (docs.dodopayments.com, Outgoing Webhooks); it has no
// authorization event, so that step keeps our type.
const DODO_TYPE: Record<HistoryStep["kind"], { type: string; status: string }> = {
  pending: { type: "payment.processing", status: "processing" },
  authorized: { type: "payment.authorized", status: "requires_capture" },
  succeeded: { type: "payment.succeeded", status: "succeeded" },
  failed: { type: "payment.failed", status: "failed" },
  canceled: { type: "payment.cancelled", status: "cancelled" },
  refund: { type: "refund.succeeded", status: "succeeded" },
  dispute_opened: { type: "dispute.opened", status: "dispute_opened" },
  dispute_won: { type: "dispute.won", status: "dispute_won" },
  dispute_lost: { type: "dispute.lost", status: "dispute_lost" },
};

/** A Dodo Payments payload for one step: the payment, or the refund or dispute object of its event. */
function dodoEvent(payment: PaymentFacts, step: HistoryStep, refundedBefore: number) {
  const { type, status } = DODO_TYPE[step.kind];
  const common = { business_id: "bus_simulated", payment_id: payment.chargeId, currency: payment.currency.toUpperCase(), created_at: isoMicros(step.occurredAtMs) };
  const data =
    step.kind === "refund"
      ? { ...common, refund_id: `ref_${step.occurredAtMs}`, amount: step.amountRefunded - refundedBefore, status, payload_type: "Refund" }
      : step.kind.startsWith("dispute_")
        ? { ...common, dispute_id: `dsp_${step.occurredAtMs}`, amount: String(payment.amount), dispute_stage: "dispute", dispute_status: status, payload_type: "Dispute" }
        : {
            ...common,
            status,
            total_amount: payment.amount,
            customer: { customer_id: payment.customerId, email: payment.customerEmail, name: "Simulated Customer" },
            refunds: [],
            disputes: [],
            payload_type: "Payment",
          };
  return { business_id: "bus_simulated", type, timestamp: isoMicros(step.occurredAtMs), data };
}

/** A Standard Webhooks payload for one step (`refundedBefore`: refunded before it, for a refund's own amount). */
export function standardEvent(payment: PaymentFacts, step: HistoryStep, refundedBefore = 0) {
  if (payment.integration === "dodo") return dodoEvent(payment, step, refundedBefore);
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

/**
 * The deliveries of one step (a Stripe integration with charges and intents gets two events): fresh
 * event ids, bodies and signatures. `refundedBefore`: what was refunded before this step.
 */
export function deliveriesFor(provider: SimulatedProvider, payment: PaymentFacts, step: HistoryStep, secret: string, refundedBefore = 0): Delivery[] {
  if (provider === "stripe") {
    return stripeEvents(payment, step).map((event) => signedDelivery(provider, event.id, JSON.stringify(event), secret));
  }
  return [signedDelivery(provider, randomId("msg"), JSON.stringify(standardEvent(payment, step, refundedBefore)), secret)];
}

/** The (first) delivery of one step. */
export function deliveryFor(provider: SimulatedProvider, payment: PaymentFacts, step: HistoryStep, secret: string): Delivery {
  return deliveriesFor(provider, payment, step, secret)[0]!;
}
