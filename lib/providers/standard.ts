import { z } from "zod";
import { hmac, safeEqual, timestampReason, withinTolerance } from "./signature";
import { fromIso, fromUnixSeconds } from "../canonical/event-time";
import { parseJson, toNormalizedEvent } from "./parse-helpers";
import { CHARGE_STATUSES, type ChargeSnapshot, type ChargeStatus } from "../canonical/charge-event";
import { ParseError, type SyncVerifyingDriver } from "./types";
import { optionalBearerAuth } from "./api-auth";

// Standard Webhooks (https://www.standardwebhooks.com; Svix and others). Key rule: the `webhook-id`
// header, stable across retries. Time rule: the body's ISO `timestamp` with its fractional digits
// (up to microseconds), else the `webhook-timestamp` header (seconds). Signature: `webhook-signature`
// is a space-separated list of `v1,<base64 HMAC-SHA256>` over "{id}.{timestamp}.{raw body}", keyed
// by the base64-decoded part of `whsec_...`. Svix's `svix-*` header names are accepted too.
//
// The spec leaves event types to the sender. Payment senders map to this inbox with these types:
//   payment.pending · payment.authorized · payment.succeeded (or payment.paid) · payment.failed ·
//   payment.canceled · payment.refunded (partial when amount_refunded < amount) ·
//   payment.partially_refunded · payment.disputed · payment.dispute.won · payment.dispute.lost
//   (or payment.charged_back)
// and `data` = { payment_id (or id), amount, amount_refunded, currency, customer: { id, email } }.
// The same shape is what refetch expects from `GET {STANDARD_API_URL}/payments/{id}`.

const TYPE_STATUS: Record<string, ChargeStatus> = {
  "payment.pending": "pending",
  "payment.authorized": "authorized",
  "payment.succeeded": "paid",
  "payment.paid": "paid",
  "payment.failed": "failed",
  "payment.canceled": "canceled",
  "payment.refunded": "refunded",
  "payment.partially_refunded": "partially_refunded",
  "payment.disputed": "disputed",
  "payment.dispute.won": "paid",
  "payment.dispute.lost": "charged_back",
  "payment.charged_back": "charged_back",
};

const paymentDataSchema = z.looseObject({
  payment_id: z.string().min(1).optional(),
  id: z.string().min(1).optional(),
  status: z.enum(CHARGE_STATUSES).optional(),
  amount: z.number().int().nonnegative().optional(),
  amount_refunded: z.number().int().nonnegative().optional(),
  currency: z.string().length(3).optional(),
  customer: z.object({ id: z.string().optional(), email: z.string().optional() }).optional(),
});
type PaymentData = z.infer<typeof paymentDataSchema>;

const bodySchema = z.object({
  type: z.string().min(1),
  timestamp: z.string().optional(),
  data: paymentDataSchema,
});

function snapshotOf(data: PaymentData, status: ChargeStatus): ChargeSnapshot {
  const refunded =
    status === "refunded" && data.amount !== undefined && (data.amount_refunded ?? data.amount) < data.amount
      ? "partially_refunded"
      : status;
  return {
    status: refunded,
    amount: data.amount,
    amountRefunded: data.amount_refunded,
    currency: data.currency?.toLowerCase(),
    customerId: data.customer?.id,
    customerEmail: data.customer?.email,
  };
}

function header(headers: Record<string, string>, name: "id" | "timestamp" | "signature"): string | undefined {
  return headers[`webhook-${name}`] ?? headers[`svix-${name}`];
}

/** The HMAC key: the base64 part of `whsec_<base64>`. */
export function standardSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

export function signStandard(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  return `v1,${hmac("sha256", standardSecretKey(secret), `${id}.${timestamp}.`, body).toString("base64")}`;
}

export const standardDriver: SyncVerifyingDriver = {
  name: "standard",
  keptHeaders: [
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
    "svix-id",
    "svix-timestamp",
    "svix-signature",
    "content-type",
    "user-agent",
  ],
  secretHeaders: [],
  apiAuth: optionalBearerAuth,

  verify(raw, headers, { secrets, nowSeconds, toleranceSeconds }) {
    const id = header(headers, "id");
    const timestampText = header(headers, "timestamp");
    const signatureList = header(headers, "signature");
    if (!id || !timestampText || !signatureList) {
      return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature header" };
    }
    if (!/^\d+$/.test(timestampText)) return { ok: false, reason: "webhook-timestamp is not integer Unix seconds" };
    const timestamp = Number(timestampText);
    if (!withinTolerance(timestamp, nowSeconds, toleranceSeconds)) {
      return { ok: false, reason: timestampReason(timestamp, nowSeconds) };
    }
    const candidates = signatureList
      .split(" ")
      .filter((entry) => entry.startsWith("v1,"))
      .map((entry) => entry.slice(3));
    if (candidates.length === 0) return { ok: false, reason: "webhook-signature has no v1 signature" };
    for (const secret of secrets) {
      const expected = signStandard(secret, id, timestamp, raw).slice(3);
      if (candidates.some((candidate) => safeEqual(candidate, expected))) return { ok: true };
    }
    return { ok: false, reason: "no v1 signature matches any configured secret" };
  },

  parse(raw, { headers }) {
    const json = parseJson(raw);
    const result = bodySchema.safeParse(json);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ParseError(`not a Standard Webhooks payment event: ${issue?.path.join(".")} ${issue?.message}`);
    }
    const { type, timestamp, data } = result.data;
    const id = header(headers, "id");
    if (!id) throw new ParseError("missing webhook-id header");
    const time = timestamp !== undefined ? fromIso(timestamp) : fromUnixSeconds(Number(header(headers, "timestamp")));
    if (!time) throw new ParseError(`timestamp "${timestamp}" is not ISO-8601 with a zone`);
    const status = TYPE_STATUS[type];
    return toNormalizedEvent({
      eventId: id,
      eventIdDerived: false,
      type,
      resourceId: data.payment_id ?? data.id ?? null,
      ...time,
      customerId: data.customer?.id ?? null,
      customerEmail: data.customer?.email ?? null,
      charge: status ? snapshotOf(data, status) : null,
      payload: json,
    });
  },

  async refetch(paymentId, fetchJson) {
    const result = paymentDataSchema.safeParse(await fetchJson(`/payments/${encodeURIComponent(paymentId)}`));
    if (!result.success || !result.data.status) throw new ParseError("refetched payment has no status");
    return snapshotOf(result.data, result.data.status);
  },
};
