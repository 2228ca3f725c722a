import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { toLocalTime } from "../canonical/event-time";
import { signStandard } from "../providers/standard";
import { signStripe } from "../providers/stripe";
import { asymmetricSignature, type SigningKey } from "./jwks-server";

// What the gateways put on the wire: bodies, signature headers and query strings for every gateway,
// built from one step of a payment's history, each signed its own gateway's way. Used by the
// simulator and by tests.

export const SIMULATED_PROVIDERS = ["stripe", "standard", "asaas", "pagarme", "mercadopago", "zoop"] as const;
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
  /**
   * How the merchant integrated, when not the classic way (Stripe charge events, our Standard words):
   * `intents`: Stripe PaymentIntent events for the payment's lifecycle (charge events only for
   * refunds and disputes); `charges_and_intents`: both for the lifecycle; `dodo`: a Standard Webhooks
   * sender with Dodo Payments' own types, fields and refund/dispute objects.
   */
  integration?: "intents" | "charges_and_intents" | "dodo";
  /** A Stripe Connect connected account's payment: its charge events carry this top-level `account`. */
  account?: string;
};

/** One thing that happened to a payment, in the gateway's terms. */
export type HistoryStep = {
  kind: "pending" | "authorized" | "succeeded" | "failed" | "canceled" | "refund" | "dispute_opened" | "dispute_won" | "dispute_lost";
  /** Cumulative refunded amount after this step (refunds only). */
  amountRefunded: number;
  /** Milliseconds since the epoch; several steps may share a second. */
  occurredAtMs: number;
};

/** What a webhook is signed with: a shared secret, or (Pagar.me) the gateway's private key. */
export type SigningSecret = string | SigningKey;

export type SignedWebhook = {
  provider: SimulatedProvider;
  eventId: string;
  body: string;
  headers: Record<string, string>;
  /** The query string the gateway adds to the webhook URL (Mercado Pago's signed data.id). */
  query?: string;
};

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
  const envelope = stripeEnvelope(eventId, step, STRIPE_TYPE[step.kind], object);
  return payment.account ? { ...envelope, account: payment.account } : envelope;
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
  const common = {
    business_id: "bus_simulated",
    payment_id: payment.chargeId,
    currency: payment.currency.toUpperCase(),
    created_at: isoMicros(step.occurredAtMs),
  };
  const data =
    step.kind === "refund"
      ? { ...common, refund_id: `ref_${step.occurredAtMs}`, amount: step.amountRefunded - refundedBefore, status, payload_type: "Refund" }
      : step.kind.startsWith("dispute_")
        ? {
            ...common,
            dispute_id: `dsp_${step.occurredAtMs}`,
            amount: String(payment.amount),
            dispute_stage: "dispute",
            dispute_status: status,
            payload_type: "Dispute",
          }
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

const ASAAS_TYPE: Partial<Record<HistoryStep["kind"], string>> = {
  pending: "PAYMENT_CREATED",
  authorized: "PAYMENT_AUTHORIZED",
  succeeded: "PAYMENT_RECEIVED",
  canceled: "PAYMENT_DELETED",
  dispute_opened: "PAYMENT_CHARGEBACK_REQUESTED",
  dispute_won: "PAYMENT_AWAITING_CHARGEBACK_REVERSAL",
};

const PAGARME_TYPE: Partial<Record<HistoryStep["kind"], string>> = {
  pending: "charge.pending",
  succeeded: "charge.paid",
  failed: "charge.payment_failed",
};

const ZOOP_TYPE: Record<HistoryStep["kind"], string> = {
  pending: "transaction.pending",
  authorized: "transaction.pre_authorized",
  succeeded: "transaction.succeeded",
  failed: "transaction.failed",
  canceled: "transaction.canceled",
  // Zoop shows a refund as the captured transaction canceled (voided).
  refund: "transaction.canceled",
  dispute_opened: "transaction.disputed",
  dispute_won: "transaction.succeeded",
  dispute_lost: "transaction.charged_back",
};

/** What each gateway can report: a history step it has no event for is never generated for it. */
export const UNSUPPORTED_STEPS: Partial<Record<SimulatedProvider, HistoryStep["kind"][]>> = {
  // Asaas has no failed card payment status and no lost-chargeback status to refetch.
  asaas: ["failed", "dispute_lost"],
  // Pagar.me charges have no authorized state and no dispute events besides the final chargeback.
  pagarme: ["authorized", "canceled", "dispute_opened", "dispute_won", "dispute_lost"],
};

const reais = (cents: number) => Math.round(cents) / 100;

/** "2024-06-12 16:45:03": Asaas's wall-clock time in São Paulo, no zone. */
const saoPauloTime = (ms: number) => toLocalTime(ms, "America/Sao_Paulo");

function unsupported(provider: SimulatedProvider, step: HistoryStep): never {
  throw new Error(`${provider} has no event for a "${step.kind}" step`);
}

/** An Asaas webhook body: the event and the payment as it is after the step. */
export function asaasEvent(payment: PaymentFacts, step: HistoryStep) {
  const refunded = step.kind === "refund";
  const event = refunded
    ? step.amountRefunded >= payment.amount
      ? "PAYMENT_REFUNDED"
      : "PAYMENT_PARTIALLY_REFUNDED"
    : ASAAS_TYPE[step.kind];
  if (!event) unsupported("asaas", step);
  return {
    id: randomId("evt"),
    event,
    dateCreated: saoPauloTime(step.occurredAtMs),
    payment: {
      object: "payment",
      id: payment.chargeId,
      customer: payment.customerId,
      value: reais(payment.amount),
      billingType: "CREDIT_CARD",
      refunds: refunded ? [{ status: "DONE", value: reais(step.amountRefunded), dateCreated: saoPauloTime(step.occurredAtMs) }] : null,
    },
  };
}

/** A Pagar.me core v5 webhook body: a charge event with the charge after the step. */
export function pagarmeEvent(payment: PaymentFacts, step: HistoryStep) {
  const refunded = step.kind === "refund";
  const type = refunded ? (step.amountRefunded >= payment.amount ? "charge.refunded" : "charge.partial_canceled") : PAGARME_TYPE[step.kind];
  if (!type) unsupported("pagarme", step);
  const paid = step.kind === "succeeded" || refunded;
  return {
    id: randomId("hook"),
    account: { id: "acc_simulated", name: "Simulated store" },
    type,
    created_at: new Date(Math.floor(step.occurredAtMs / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    data: {
      id: payment.chargeId,
      code: payment.chargeId.slice(-8),
      amount: payment.amount,
      currency: "BRL",
      status: refunded ? (step.amountRefunded >= payment.amount ? "canceled" : "paid") : step.kind === "succeeded" ? "paid" : step.kind,
      ...(paid ? { paid_at: new Date(step.occurredAtMs).toISOString() } : {}),
      ...(refunded ? { canceled_amount: step.amountRefunded } : {}),
      customer: { id: payment.customerId, email: payment.customerEmail },
    },
  };
}

/** A Mercado Pago notification: only a notice naming the payment (the body is not signed). */
export function mercadopagoNotification(payment: PaymentFacts, step: HistoryStep) {
  return {
    id: Number(`${Date.now() % 1e6}${Math.floor(Math.random() * 1e6)}`),
    live_mode: false,
    type: "payment",
    date_created: new Date(step.occurredAtMs).toISOString().replace("Z", "+00:00"),
    user_id: 987654321,
    api_version: "v1",
    action: step.kind === "pending" || step.kind === "authorized" ? "payment.created" : "payment.updated",
    data: { id: payment.chargeId },
  };
}

/** A Zoop event: the transaction after the step under payload.object. */
export function zoopEvent(payment: PaymentFacts, step: HistoryStep) {
  return {
    id: randomBytes(16).toString("hex"),
    resource: "event",
    type: ZOOP_TYPE[step.kind],
    created_at: new Date(step.occurredAtMs).toISOString().replace("Z", "+00:00"),
    payload: {
      object: {
        id: payment.chargeId,
        resource: "transaction",
        status: step.kind === "refund" ? "canceled" : ZOOP_TYPE[step.kind].slice("transaction.".length),
        amount: reais(payment.amount).toFixed(2),
        currency: "BRL",
        customer: payment.customerId,
        captured: step.kind !== "pending" && step.kind !== "authorized" && step.kind !== "failed" && step.kind !== "canceled",
        voided: step.kind === "refund" || step.kind === "canceled",
      },
    },
  };
}

function requireSecret(provider: SimulatedProvider, secret: SigningSecret): string {
  if (typeof secret !== "string") throw new Error(`${provider} webhooks are signed with a shared secret`);
  return secret;
}

/** Mercado Pago's x-signature over "id:{data.id};request-id:{x-request-id};ts:{ts};" (data.id lower-cased when alphanumeric). */
function mercadopagoHeaders(secret: string, dataId: string, nowSeconds: number): Record<string, string> {
  const requestId = randomUUID();
  const id = /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  const v1 = createHmac("sha256", secret).update(`id:${id};request-id:${requestId};ts:${nowSeconds};`).digest("hex");
  return { "x-signature": `ts=${nowSeconds},v1=${v1}`, "x-request-id": requestId };
}

/** Signs an event body the way its gateway does, at `nowSeconds`. */
export function signedWebhook(
  provider: SimulatedProvider,
  eventId: string,
  body: string,
  secret: SigningSecret,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): SignedWebhook {
  const json = { "content-type": "application/json" };
  switch (provider) {
    case "stripe":
      return {
        provider,
        eventId,
        body,
        headers: { ...json, "stripe-signature": signStripe(requireSecret(provider, secret), nowSeconds, body) },
      };
    case "standard":
      return {
        provider,
        eventId,
        body,
        headers: {
          ...json,
          "webhook-id": eventId,
          "webhook-timestamp": String(nowSeconds),
          "webhook-signature": signStandard(requireSecret(provider, secret), eventId, nowSeconds, body),
        },
      };
    case "asaas":
      return { provider, eventId, body, headers: { ...json, "asaas-access-token": requireSecret(provider, secret) } };
    case "pagarme":
      if (typeof secret === "string") throw new Error("Pagar.me webhooks are signed with the gateway's private key");
      return { provider, eventId, body, headers: { ...json, "x-webhook-asymmetric-signature": asymmetricSignature(secret, body) } };
    case "mercadopago": {
      const dataId = String((JSON.parse(body) as { data: { id: string } }).data.id);
      return {
        provider,
        eventId,
        body,
        headers: { ...json, ...mercadopagoHeaders(requireSecret(provider, secret), dataId, nowSeconds) },
        query: new URLSearchParams({ "data.id": dataId, type: "payment" }).toString(),
      };
    }
    case "zoop":
      // Zoop signs nothing: the operator puts Basic Auth on the webhook URL (secret "user:pass").
      return {
        provider,
        eventId,
        body,
        headers: { ...json, authorization: `Basic ${Buffer.from(requireSecret(provider, secret)).toString("base64")}` },
      };
  }
}

/**
 * The webhooks of one step (a Stripe integration with charges and intents gets two events): fresh
 * event ids, bodies and signatures. `refundedBefore`: what was refunded before this step.
 */
export function webhooksFor(
  provider: SimulatedProvider,
  payment: PaymentFacts,
  step: HistoryStep,
  secret: SigningSecret,
  refundedBefore = 0,
): SignedWebhook[] {
  const one = (eventId: string, body: unknown) => [signedWebhook(provider, eventId, JSON.stringify(body), secret)];
  switch (provider) {
    case "stripe":
      return stripeEvents(payment, step).map((event) => signedWebhook(provider, event.id, JSON.stringify(event), secret));
    case "standard":
      return one(randomId("msg"), standardEvent(payment, step, refundedBefore));
    case "asaas": {
      const event = asaasEvent(payment, step);
      return one(event.id, event);
    }
    case "pagarme": {
      const event = pagarmeEvent(payment, step);
      return one(event.id, event);
    }
    case "mercadopago": {
      const notification = mercadopagoNotification(payment, step);
      return one(String(notification.id), notification);
    }
    case "zoop": {
      const event = zoopEvent(payment, step);
      return one(event.id, event);
    }
  }
}

/** The (first) webhook of one step. */
export function webhookFor(provider: SimulatedProvider, payment: PaymentFacts, step: HistoryStep, secret: SigningSecret): SignedWebhook {
  return webhooksFor(provider, payment, step, secret)[0]!;
}
