import { z } from "zod";
import { hmac, safeEqual, timestampReason, withinTolerance } from "./signature";
import { fromUnixSeconds } from "../canonical/event-time";
import { parseJson, toNormalizedEvent } from "./parse-helpers";
import type { ChargeSnapshot, ChargeStatus } from "../canonical/charge-event";
import type { SyncVerifyingDriver, VerifyResult } from "./types";
import { ParseError } from "./types";
import { bearerAuth } from "./api-auth";

// Stripe. Key rule: the event `id` (evt_...), stable across resends. Time rule: `created`, Unix
// seconds (precision "second"). Signature: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=...]`,
// HMAC-SHA256 over "{t}.{raw body}" keyed by the whsec_ string as is. Resource: the charge.

const eventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int().positive(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const disputeSchema = z.object({ id: z.string(), charge: z.string(), status: z.string() });

const chargeSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int().nonnegative(),
  amount_refunded: z.number().int().nonnegative().default(0),
  currency: z.string().length(3),
  status: z.enum(["succeeded", "pending", "failed"]),
  captured: z.boolean().optional(),
  refunded: z.boolean().optional(),
  customer: z.union([z.string(), z.object({ id: z.string() }), z.null()]).optional(),
  receipt_email: z.string().nullable().optional(),
  billing_details: z.object({ email: z.string().nullable().optional() }).nullable().optional(),
  // Present on refetch with ?expand[]=dispute.
  dispute: z.union([z.string(), disputeSchema, z.null()]).optional(),
});
type StripeCharge = z.infer<typeof chargeSchema>;

const OPEN_DISPUTE = new Set(["warning_needs_response", "warning_under_review", "needs_response", "under_review"]);

function customerOf(charge: StripeCharge) {
  const customer = charge.customer;
  return {
    customerId: typeof customer === "string" ? customer : (customer?.id ?? undefined),
    customerEmail: charge.billing_details?.email ?? charge.receipt_email ?? undefined,
  };
}

function refundStatus(charge: StripeCharge): ChargeStatus | null {
  if (charge.amount_refunded === 0) return null;
  return charge.amount_refunded < charge.amount ? "partially_refunded" : "refunded";
}

/** The charge's current state, as a refetch sees it (dispute expanded). */
export function chargeToSnapshot(charge: StripeCharge): ChargeSnapshot {
  const dispute = typeof charge.dispute === "object" ? charge.dispute : null;
  let status: ChargeStatus;
  if (dispute?.status === "lost") status = "charged_back";
  else if (dispute && OPEN_DISPUTE.has(dispute.status)) status = "disputed";
  else if (charge.status === "pending") status = "pending";
  else if (charge.status === "failed") status = "failed";
  // An authorization released without capture shows as uncaptured and refunded.
  else if (charge.captured === false) status = charge.refunded ? "canceled" : "authorized";
  else status = refundStatus(charge) ?? "paid";
  return snapshot(charge, status);
}

function snapshot(charge: StripeCharge, status: ChargeStatus): ChargeSnapshot {
  return {
    status,
    amount: charge.amount,
    amountRefunded: charge.amount_refunded,
    currency: charge.currency.toLowerCase(),
    ...customerOf(charge),
  };
}

function parseCharge(object: unknown, type: string): StripeCharge {
  const result = chargeSchema.safeParse(object);
  if (!result.success) throw new ParseError(`${type}: data.object is not a charge (${result.error.issues[0]?.message})`);
  return result.data;
}

/** The charge state an event type reports (DESIGN.md's Stripe mapping); null for the rest. */
function chargeFromEvent(type: string, object: Record<string, unknown>): ChargeSnapshot | null {
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
    case "charge.dispute.created":
      return { status: "disputed" };
    case "charge.dispute.closed": {
      const dispute = disputeSchema.safeParse(object);
      if (!dispute.success) throw new ParseError(`${type}: data.object is not a dispute`);
      if (dispute.data.status === "lost") return { status: "charged_back" };
      if (dispute.data.status === "won" || dispute.data.status === "warning_closed") return { status: "paid" };
      return null;
    }
    default:
      return null;
  }
}

function resourceOf(object: Record<string, unknown>): string | null {
  // Refunds and disputes point at their charge; charges are the resource themselves.
  if (typeof object.charge === "string") return object.charge;
  if (object.object === "charge" && typeof object.id === "string") return object.id;
  return null;
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

export const stripeDriver: SyncVerifyingDriver = {
  name: "stripe",
  keptHeaders: ["stripe-signature", "content-type", "user-agent"],
  secretHeaders: [],
  apiAuth: bearerAuth,

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
    if (!result.success) throw new ParseError(`not a Stripe event: ${result.error.issues[0]?.path.join(".")} ${result.error.issues[0]?.message}`);
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

  async refetch(chargeId, fetchJson) {
    const body = await fetchJson(`/v1/charges/${encodeURIComponent(chargeId)}?expand[]=dispute`);
    return chargeToSnapshot(parseCharge(body, "refetch"));
  },
};

/** A `Stripe-Signature` header for `body` (what Stripe sends; used by the simulator and tests). */
export function signStripe(secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${hmac("sha256", secret, `${timestamp}.`, body).toString("hex")}`;
}
