import { z } from "zod";
import { hmac } from "../crypto/digest";
import { safeEqual } from "../crypto/safe-equal";
import { timestampReason, withinTolerance } from "./signature";
import { fromUnixSeconds } from "../canonical/event-time";
import { minorUnitDigits } from "../canonical/money";
import { parseJson, parseWith, toNormalizedEvent } from "./parse-helpers";
import {
  declineReason,
  withDisputes,
  type ChargeSnapshot,
  type ChargeStatus,
  type DeclineReason,
  type DisputeOutcome,
} from "../canonical/charge-event";
import type { GatewayFetch, SyncVerifyingDriver, VerifyResult } from "./types";
import { ParseError } from "./types";
import { bearerAuth } from "./api-auth";
import { asAccount, stripeLister } from "./stripe-list";

// Stripe. Key rule: the event `id` (evt_...), stable across resends. Time rule: `created`, Unix
// seconds (precision "second"). Signature: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=...]`,
// HMAC-SHA256 over "{t}.{raw body}" keyed by the whsec_ string as is. Resource: the charge (a
// PaymentIntent's `latest_charge`). Refetch: `GET /v1/charges/{id}`, then, for a disputed charge,
// `GET /v1/disputes?charge={id}`: the charge's state counts every dispute it ever had. Connect: an
// event from a connected account carries its `account` (acct_...) at the top level
// (docs.stripe.com/connect/webhooks), and the platform reads that account's objects with its own
// key plus `Stripe-Account: acct_...` (docs.stripe.com/connect/authentication); without the header
// Stripe looks in the platform's account and answers 404.

const eventSchema = z.object({
  id: z.string().min(1),
  // Absent or null on the platform's own events (the stripe SDK types it `account?: string`).
  account: z.string().min(1).nullish(),
  type: z.string().min(1),
  created: z.number().int().positive(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const idOf = z.union([z.string(), z.object({ id: z.string() })]).transform((value) => (typeof value === "string" ? value : value.id));

const disputeSchema = z.object({ id: z.string(), charge: idOf, status: z.string() });

// `GET /v1/disputes?charge=ch_...`: the documented way to read a charge's disputes (a charge has
// `disputed: boolean` and may have several disputes over time; the old `dispute` field is gone).
const disputeListSchema = z.object({ data: z.array(disputeSchema), has_more: z.boolean() });

const customerOfSchema = z.union([z.string(), z.object({ id: z.string() }), z.null()]).optional();

const chargeSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int().nonnegative(),
  amount_refunded: z.number().int().nonnegative().default(0),
  currency: z.string().length(3),
  status: z.enum(["succeeded", "pending", "failed"]),
  captured: z.boolean().optional(),
  refunded: z.boolean().optional(),
  disputed: z.boolean().optional(),
  customer: customerOfSchema,
  receipt_email: z.string().nullable().optional(),
  billing_details: z.object({ email: z.string().nullable().optional() }).nullable().optional(),
  failure_code: z.string().nullish(),
  failure_message: z.string().nullish(),
  outcome: z.object({ reason: z.string().nullish(), seller_message: z.string().nullish() }).nullish(),
});
type StripeCharge = z.infer<typeof chargeSchema>;

const paymentIntentSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int().nonnegative(),
  amount_received: z.number().int().nonnegative().default(0),
  currency: z.string().length(3),
  status: z.string(),
  // A charge id, or the charge itself when expanded; null before the first payment attempt.
  latest_charge: z.union([z.string(), chargeSchema.pick({ id: true, billing_details: true }), z.null()]).optional(),
  customer: customerOfSchema,
  receipt_email: z.string().nullable().optional(),
  last_payment_error: z.object({ code: z.string().nullish(), decline_code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
type StripePaymentIntent = z.infer<typeof paymentIntentSchema>;

// Dispute statuses (stripe SDK 23 `Dispute.Status`): open until won, lost, warning_closed or prevented.
const CLOSED_DISPUTE = new Set(["won", "warning_closed", "prevented"]);

function disputeOutcome(status: string): DisputeOutcome {
  if (status === "lost") return "lost";
  // A status we don't know yet counts as open: shown as disputed rather than hidden as paid.
  return CLOSED_DISPUTE.has(status) ? "closed" : "open";
}

const DISPUTE_EVENT_STATUS: Record<DisputeOutcome, ChargeStatus> = { open: "disputed", lost: "charged_back", closed: "paid" };

function customerIdOf(customer: StripeCharge["customer"]): string | undefined {
  return typeof customer === "string" ? customer : (customer?.id ?? undefined);
}

function refundStatus(charge: StripeCharge): ChargeStatus | null {
  if (charge.amount_refunded === 0) return null;
  return charge.amount_refunded < charge.amount ? "partially_refunded" : "refunded";
}

/** The charge's own state, before its disputes are counted. */
function ownStatus(charge: StripeCharge): ChargeStatus {
  if (charge.status === "pending") return "pending";
  if (charge.status === "failed") return "failed";
  // An authorization released without capture shows as uncaptured and refunded.
  if (charge.captured === false) return charge.refunded ? "canceled" : "authorized";
  return refundStatus(charge) ?? "paid";
}

// Decline reasons (docs.stripe.com/declines, and the Charge and PaymentIntent API references): a
// failed charge says why in `failure_code` (card_declined...), `failure_message` (the customer-facing
// text) and `outcome` (`reason`, the issuer's decline code such as insufficient_funds, or Radar's
// rule; `seller_message`, Stripe's words for the merchant); a payment intent whose attempt failed, in
// `last_payment_error` (`decline_code`, `code`, `message`). The most specific code is kept, and the
// customer-facing message before the merchant's. A succeeded charge's outcome ("Payment complete.") is
// no decline, so only a failed charge, or one with a failure code, is read.

/** Why a charge was refused, when it was. */
function chargeDecline(charge: StripeCharge): DeclineReason | undefined {
  if (charge.status !== "failed" && !charge.failure_code) return undefined;
  return declineReason(charge.outcome?.reason ?? charge.failure_code, charge.failure_message ?? charge.outcome?.seller_message);
}

/** Why a payment intent's last attempt was refused, when it says. */
function intentDecline(intent: StripePaymentIntent): DeclineReason | undefined {
  const error = intent.last_payment_error;
  return error ? declineReason(error.decline_code ?? error.code, error.message) : undefined;
}

// Stripe's amounts are in each currency's smallest unit, which is ISO 4217's but for two
// (docs.stripe.com/currencies: ISK stays two-decimal in the API, so 500 is 5 krónur; MGA is on the
// zero-decimal list, ISO counts hundredths).
const STRIPE_DIGITS: Readonly<Record<string, number>> = { isk: 2, mga: 0 };

/** A Stripe amount in the currency's ISO 4217 minor units. */
function isoAmount(amount: number, currency: string): number {
  const iso = minorUnitDigits(currency);
  return Math.round(amount * 10 ** (iso - (STRIPE_DIGITS[currency.toLowerCase()] ?? iso)));
}

/** The charge's current state, as a refetch sees it: the charge and the outcomes of all its disputes. */
export function chargeToSnapshot(charge: StripeCharge, disputes: readonly DisputeOutcome[] = []): ChargeSnapshot {
  return snapshot(charge, withDisputes(ownStatus(charge), disputes));
}

function snapshot(charge: StripeCharge, status: ChargeStatus): ChargeSnapshot {
  return {
    status,
    amount: isoAmount(charge.amount, charge.currency),
    amountRefunded: isoAmount(charge.amount_refunded, charge.currency),
    currency: charge.currency.toLowerCase(),
    customerId: customerIdOf(charge.customer),
    customerEmail: charge.billing_details?.email ?? charge.receipt_email ?? undefined,
    declineReason: chargeDecline(charge),
  };
}

function parseCharge(object: unknown, type: string): StripeCharge {
  const result = chargeSchema.safeParse(object);
  if (!result.success) throw new ParseError(`${type}: data.object is not a charge (${result.error.issues[0]?.message})`);
  return result.data;
}

/**
 * What a PaymentIntent says about its latest charge: its own status and amounts (a partial capture
 * shows, as on the charge, as the uncaptured rest refunded). Marked a summary: it can't see disputes.
 */
function intentSnapshot(type: string, intent: StripePaymentIntent): ChargeSnapshot {
  let status: ChargeStatus;
  if (type === "payment_intent.payment_failed") status = "failed";
  else if (type === "payment_intent.canceled" || intent.status === "canceled") status = "canceled";
  else if (intent.status === "succeeded") status = "paid";
  else if (intent.status === "requires_capture") status = "authorized";
  // After a failed attempt the intent asks for a new payment method; its latest charge failed.
  else if (intent.status === "requires_payment_method" && intent.latest_charge) status = "failed";
  else status = "pending";
  const uncaptured = status === "paid" && intent.amount_received > 0 ? intent.amount - intent.amount_received : 0;
  const charge = typeof intent.latest_charge === "object" ? intent.latest_charge : null;
  return {
    status: uncaptured > 0 ? "partially_refunded" : status,
    amount: isoAmount(intent.amount, intent.currency),
    ...(uncaptured > 0 ? { amountRefunded: isoAmount(uncaptured, intent.currency) } : {}),
    currency: intent.currency.toLowerCase(),
    customerId: customerIdOf(intent.customer),
    customerEmail: charge?.billing_details?.email ?? intent.receipt_email ?? undefined,
    declineReason: intentDecline(intent),
    summary: true,
  };
}

/** The charge state an event type reports (the mapping docs/gateways.md tabulates); null for the rest. */
function chargeFromEvent(type: string, object: Record<string, unknown>): ChargeSnapshot | null {
  if (type.startsWith("charge.dispute.")) {
    const dispute = disputeSchema.safeParse(object);
    if (!dispute.success) throw new ParseError(`${type}: data.object is not a dispute`);
    // Every charge.dispute.* event (created, updated, closed, funds_withdrawn, funds_reinstated)
    // carries its dispute: its status says what that one dispute did to the charge.
    return { status: DISPUTE_EVENT_STATUS[disputeOutcome(dispute.data.status)] };
  }
  if (type.startsWith("payment_intent.")) {
    const intent = paymentIntentSchema.safeParse(object);
    if (!intent.success) throw new ParseError(`${type}: data.object is not a payment intent (${intent.error.issues[0]?.message})`);
    return intentSnapshot(type, intent.data);
  }
  switch (type) {
    case "charge.pending":
      return snapshot(parseCharge(object, type), "pending");
    case "charge.succeeded": {
      const charge = parseCharge(object, type);
      return snapshot(charge, charge.captured === false ? "authorized" : "paid");
    }
    case "charge.captured":
      return snapshot(parseCharge(object, type), "paid");
    case "charge.failed":
      return snapshot(parseCharge(object, type), "failed");
    case "charge.expired":
      return snapshot(parseCharge(object, type), "canceled");
    case "charge.refunded": {
      const charge = parseCharge(object, type);
      return snapshot(charge, refundStatus(charge) ?? "refunded");
    }
    default:
      return null;
  }
}

function resourceOf(object: Record<string, unknown>): string | null {
  // A PaymentIntent's payment is its latest charge (none before the first attempt); refunds and
  // disputes point at their charge (an id, or the charge expanded); a charge is the resource itself.
  const pointer = idOf.safeParse(object.object === "payment_intent" ? object.latest_charge : object.charge);
  if (pointer.success) return pointer.data;
  if (object.object === "charge" && typeof object.id === "string") return object.id;
  return null;
}

/** The outcomes of every dispute on a charge, read page by page (bounded: a charge has a handful). */
async function disputeOutcomes(chargeId: string, fetchJson: GatewayFetch): Promise<DisputeOutcome[]> {
  const outcomes: DisputeOutcome[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10; page++) {
    const query = `charge=${encodeURIComponent(chargeId)}&limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`;
    const list = parseWith(disputeListSchema, await fetchJson(`/v1/disputes?${query}`), "refetch: not a list of disputes");
    outcomes.push(...list.data.filter((dispute) => dispute.charge === chargeId).map((dispute) => disputeOutcome(dispute.status)));
    after = list.has_more ? list.data.at(-1)?.id : undefined;
    if (!after) return outcomes;
  }
  throw new ParseError(`refetch: more than 1000 disputes listed for charge ${chargeId}`);
}

export function parseSignatureHeader(header: string): { timestamp: number | null; signatures: string[] } {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t" && value && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === "v1" && value) signatures.push(value);
  }
  return { timestamp, signatures };
}

export const stripeDriver: SyncVerifyingDriver<"stripe"> = {
  name: "stripe",
  label: "Stripe",
  // Signed bodies carrying the whole charge: Stripe creates payments from its own events and refetches
  // only the high-impact ones (disputes).
  defaults: { refetch: "charge.dispute.*", paymentSource: "gateway", timeZone: "UTC", apiUrl: "https://api.stripe.com" },
  exampleSecret: "whsec_dev_stripe_change_me",
  enableWith: "set WEBHOOK_SECRET_STRIPE to the endpoint's signing secret (whsec_...)",
  // A charge's and a payment intent's own customer fields, a dispute's evidence, and a Customer or
  // Checkout Session object's (the same events carry them under data.object).
  personalData: [
    "data.object.billing_details",
    "data.object.receipt_email",
    "data.object.shipping",
    "data.object.customer_details",
    "data.object.customer_email",
    "data.object.customer_name",
    "data.object.customer_phone",
    "data.object.customer_address",
    "data.object.email",
    "data.object.name",
    "data.object.phone",
    "data.object.address",
    "data.object.evidence",
    "data.object.payment_method_details.card.fingerprint",
    "data.object.charges.data.*.billing_details",
    "data.object.latest_charge.billing_details",
    "data.previous_attributes.billing_details",
    "data.previous_attributes.receipt_email",
  ],
  keptHeaders: ["stripe-signature", "content-type", "user-agent"],
  secretHeaders: [],
  apiAuth: bearerAuth,
  lister: stripeLister,

  verify(raw, headers, { secrets, nowSeconds, toleranceSeconds }): VerifyResult {
    const header = headers["stripe-signature"];
    if (!header) return { ok: false, reason: "missing Stripe-Signature header" };
    const { timestamp, signatures } = parseSignatureHeader(header);
    if (timestamp === null || signatures.length === 0) {
      return { ok: false, reason: "malformed Stripe-Signature header (needs t= and v1=)" };
    }
    if (!withinTolerance(timestamp, nowSeconds, toleranceSeconds)) {
      return { ok: false, reason: timestampReason(timestamp, nowSeconds) };
    }
    for (const secret of secrets) {
      const expected = hmac("sha256", secret, `${timestamp}.`, raw).toString("hex");
      if (signatures.some((signature) => safeEqual(signature, expected))) return { ok: true };
    }
    return { ok: false, reason: "no v1 signature matches any configured secret" };
  },

  parse(raw) {
    const json = parseJson(raw);
    const result = eventSchema.safeParse(json);
    if (!result.success)
      throw new ParseError(`not a Stripe event: ${result.error.issues[0]?.path.join(".")} ${result.error.issues[0]?.message}`);
    const event = result.data;
    const object = event.data.object;
    const charge = chargeFromEvent(event.type, object);
    const time = fromUnixSeconds(event.created);
    return toNormalizedEvent({
      eventId: event.id,
      eventIdDerived: false,
      type: event.type,
      resourceId: resourceOf(object),
      ...time,
      customerId: charge?.customerId ?? null,
      customerEmail: charge?.customerEmail ?? null,
      charge,
      payload: json,
    });
  },

  accountOf(payload) {
    const account = eventSchema.shape.account.safeParse((payload as { account?: unknown } | null)?.account);
    return account.success ? (account.data ?? null) : null;
  },

  readsOtherAccounts: true,

  async refetch(chargeId, platformFetch, context) {
    const fetchJson = asAccount(platformFetch, context?.account);
    const charge = parseCharge(await fetchJson(`/v1/charges/${encodeURIComponent(chargeId)}`), "refetch");
    // `disputed` stays true once any dispute was opened; absent (an old API version), look anyway.
    const disputes = charge.disputed === false ? [] : await disputeOutcomes(chargeId, fetchJson);
    return chargeToSnapshot(charge, disputes);
  },
};

/** A `Stripe-Signature` header for `body` (what Stripe sends; used by the simulator and tests). */
export function signStripe(secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${hmac("sha256", secret, `${timestamp}.`, body).toString("hex")}`;
}
