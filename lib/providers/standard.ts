import { z } from "zod";
import { hmac } from "../crypto/digest";
import { safeEqual } from "../crypto/safe-equal";
import { timestampReason, withinTolerance } from "./signature";
import { fromIso, fromUnixSeconds } from "../canonical/event-time";
import { parseJson, parseWith, refundStatus, toNormalizedEvent } from "./parse-helpers";
import { CHARGE_STATUSES, withDisputes, type ChargeSnapshot, type ChargeStatus, type DisputeOutcome } from "../canonical/charge-event";
import { EMPTY_VOCABULARY, senderVocabularySchema, type SenderVocabulary, type VocabularyField } from "./sender-vocabulary";
import { ParseError, type SyncVerifyingDriver } from "./types";
import { optionalBearerAuth } from "./api-auth";

// Standard Webhooks (https://www.standardwebhooks.com; Svix and others). Key rule: the `webhook-id`
// header, stable across retries. Time rule: the body's ISO `timestamp` with its fractional digits
// (up to microseconds), else the `webhook-timestamp` header (seconds). Signature: `webhook-signature`
// is a space-separated list of `v1,<base64 HMAC-SHA256>` over "{id}.{timestamp}.{raw body}", keyed
// by the base64-decoded part of `whsec_...`. Svix's `svix-*` header names are accepted too.
//
// The spec leaves event types and payloads to the sender. The driver reads a payment event in the
// common vocabularies (ours, and real senders' such as Dodo Payments: `payment.succeeded` with
// `data.status: "succeeded"`, `total_amount`, `customer.customer_id`), and a deployment adds its
// sender's words with STANDARD_STATUS_MAP, STANDARD_TYPE_MAP and STANDARD_FIELD_MAP (docs/gateways.md).
// - The state: the event type (STANDARD_TYPE_MAP, then the known types below); for payment events
//   (`payment.*`, `charge.*`, `transaction.*`) of another type, `data.status` (STANDARD_STATUS_MAP,
//   then the known words). A payment event that still can't be mapped fails, naming the variables.
// - `refund.*` events carry the refund, not the payment: their payment's state (how much went back
//   in all) is refetched. `dispute.*` events carry the dispute: its outcome is the state.
// - Refetch: `GET {STANDARD_API_URL}/payments/{id}` (Dodo Payments' own path), read the same way,
//   with the `refunds[]` and `disputes[]` a payment lists counted.
// Other events (subscriptions...) are kept and ignored.

const KNOWN_TYPES: Record<string, ChargeStatus> = {
  "payment.pending": "pending",
  "payment.processing": "pending",
  "payment.authorized": "authorized",
  "payment.succeeded": "paid",
  "payment.paid": "paid",
  "payment.failed": "failed",
  "payment.canceled": "canceled",
  "payment.cancelled": "canceled",
  "payment.refunded": "refunded",
  "payment.partially_refunded": "partially_refunded",
  "payment.disputed": "disputed",
  "payment.dispute.won": "paid",
  "payment.dispute.lost": "charged_back",
  "payment.charged_back": "charged_back",
  "refund.succeeded": "refunded",
  "dispute.opened": "disputed",
  "dispute.challenged": "disputed",
  "dispute.won": "paid",
  "dispute.cancelled": "paid",
  "dispute.lost": "charged_back",
  "dispute.accepted": "charged_back",
};

const KNOWN_STATUS_WORDS: Record<string, ChargeStatus> = {
  pending: "pending",
  processing: "pending",
  requires_action: "pending",
  requires_capture: "authorized",
  authorized: "authorized",
  authorised: "authorized",
  succeeded: "paid",
  success: "paid",
  successful: "paid",
  paid: "paid",
  captured: "paid",
  completed: "paid",
  failed: "failed",
  declined: "failed",
  canceled: "canceled",
  cancelled: "canceled",
  voided: "canceled",
  expired: "canceled",
  refunded: "refunded",
  partially_refunded: "partially_refunded",
  disputed: "disputed",
  dispute_opened: "disputed",
  chargeback: "charged_back",
  charged_back: "charged_back",
  chargedback: "charged_back",
  dispute_lost: "charged_back",
};

// Where the facts usually sit in `data`; STANDARD_FIELD_MAP replaces the places of one fact.
const USUAL_FIELDS: Record<VocabularyField, readonly string[]> = {
  id: ["payment_id", "id"],
  status: ["status"],
  amount: ["amount", "total_amount"],
  amountRefunded: ["amount_refunded"],
  currency: ["currency"],
  customerId: ["customer.id", "customer.customer_id", "customer_id"],
  customerEmail: ["customer.email", "customer_email"],
};

// A payment's listed disputes (Dodo's `dispute_status`, or a plain `status`).
const LOST_DISPUTE = new Set(["lost", "dispute_lost", "accepted", "dispute_accepted"]);
const CLOSED_DISPUTE = new Set(["won", "dispute_won", "cancelled", "dispute_cancelled", "canceled", "expired", "dispute_expired"]);

const PAYMENT_NOUNS = new Set(["payment", "payments", "charge", "transaction"]);
const listSchema = z.array(z.record(z.string(), z.unknown()));
const dataSchema = z.record(z.string(), z.unknown());

const bodySchema = z.object({
  type: z.string().min(1),
  timestamp: z.string().optional(),
  data: dataSchema,
});

function valueAt(data: Record<string, unknown>, path: string): unknown {
  let value: unknown = data;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A word from the payload, fit to quote in an error message (no free text, bounded). */
function quoted(value: unknown): string {
  return typeof value === "string" && /^[\w.-]{1,40}$/.test(value) ? `"${value}"` : "(not a plain word)";
}

/** Reads a payment's facts from `data`, in the sender's vocabulary. */
class PaymentReader {
  constructor(
    private readonly data: Record<string, unknown>,
    private readonly vocabulary: SenderVocabulary,
  ) {}

  /** The first place of `field` that holds a value. */
  private raw(field: VocabularyField): unknown {
    const configured = this.vocabulary.fields[field];
    for (const path of configured ? [configured] : USUAL_FIELDS[field]) {
      const value = valueAt(this.data, path);
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  }

  text(field: VocabularyField): string | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value === "string" && value.length > 0) return value;
    if (typeof value === "number") return String(value);
    throw new ParseError(`data: ${field} is not text; point STANDARD_FIELD_MAP=${field}=<path> at it`);
  }

  minorUnits(field: "amount" | "amountRefunded"): number | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
    throw new ParseError(`data: ${field} is not a whole amount in minor units; point STANDARD_FIELD_MAP=${field}=<path> at one`);
  }

  statusWord(): { word: unknown; status: ChargeStatus | undefined } {
    const word = this.raw("status");
    if (typeof word !== "string") return { word, status: undefined };
    const key = word.toLowerCase();
    return { word, status: this.vocabulary.statuses[key] ?? KNOWN_STATUS_WORDS[key] };
  }

  /** Refunded in all: the field, else the sum of the succeeded refunds the payment lists. */
  private refunded(): number | undefined {
    const field = this.minorUnits("amountRefunded");
    if (field !== undefined) return field;
    const refunds = listSchema.safeParse(this.data.refunds);
    if (!refunds.success) return undefined;
    return refunds.data
      .filter((refund) => refund.status === undefined || refund.status === "succeeded")
      .reduce((sum, refund) => sum + (typeof refund.amount === "number" ? refund.amount : 0), 0);
  }

  private disputes(): DisputeOutcome[] {
    const disputes = listSchema.safeParse(this.data.disputes);
    if (!disputes.success) return [];
    return disputes.data.map((dispute) => {
      const status = String(dispute.dispute_status ?? dispute.status ?? "").toLowerCase();
      return LOST_DISPUTE.has(status) ? "lost" : CLOSED_DISPUTE.has(status) ? "closed" : "open";
    });
  }

  /** The payment's state: what its event type or status says, with its refunds and disputes counted. */
  snapshot(status: ChargeStatus): ChargeSnapshot {
    const amount = this.minorUnits("amount");
    const amountRefunded = this.refunded();
    const refundedStatus =
      status === "refunded" || (status === "paid" && amountRefunded) ? refundStatus(amount, amountRefunded ?? amount) : status;
    return {
      status: withDisputes(refundedStatus, this.disputes()),
      amount,
      amountRefunded,
      currency: this.text("currency")?.toLowerCase(),
      customerId: this.text("customerId"),
      customerEmail: this.text("customerEmail"),
    };
  }
}

function unmappable(type: string, word: unknown): ParseError {
  const said =
    word === undefined
      ? "it has no data.status (STANDARD_FIELD_MAP=status=<path> says where it is)"
      : `data.status ${quoted(word)} is not a known word (map it: STANDARD_STATUS_MAP=<word>=<status>)`;
  return new ParseError(
    `${type}: can't tell the payment's state: ${said}; or map the event type: STANDARD_TYPE_MAP=${type}=<status>. Statuses: ${CHARGE_STATUSES.join(", ")}`,
  );
}

type Reading = {
  resourceId: string | null;
  charge: ChargeSnapshot | null;
  refetchRequired: boolean;
  customerId?: string;
  customerEmail?: string;
};

/** What one event says about its payment, in the canonical vocabulary. */
function readEvent(type: string, data: Record<string, unknown>, vocabulary: SenderVocabulary): Reading {
  const reader = new PaymentReader(data, vocabulary);
  const noun = type.split(".")[0]!.toLowerCase();
  const typed = vocabulary.types[type] ?? KNOWN_TYPES[type];
  const resourceId = reader.text("id") ?? null;
  // A refund or a dispute object: only its payment id and what its type says are the payment's.
  if (noun === "refund" || noun === "dispute") {
    return { resourceId, charge: typed ? { status: typed } : null, refetchRequired: typed !== undefined && noun === "refund" };
  }
  const customer = { customerId: reader.text("customerId"), customerEmail: reader.text("customerEmail") };
  if (typed) return { resourceId, charge: reader.snapshot(typed), refetchRequired: false, ...customer };
  if (!PAYMENT_NOUNS.has(noun)) return { resourceId, charge: null, refetchRequired: false, ...customer };
  const { word, status } = reader.statusWord();
  if (!status) throw unmappable(type, word);
  return { resourceId, charge: reader.snapshot(status), refetchRequired: false, ...customer };
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

export const standardDriver: SyncVerifyingDriver<"standard", SenderVocabulary> = {
  name: "standard",
  label: "Standard Webhooks",
  // Signed bodies carrying the payment; the sender's API, if any, is its own (STANDARD_API_URL).
  defaults: { refetch: "", paymentSource: "gateway", timeZone: "UTC" },
  // Each sender's own words for statuses, types and fields (STANDARD_STATUS_MAP, _TYPE_MAP, _FIELD_MAP).
  settings: senderVocabularySchema,
  verification: { secretKey: standardSecretKey },
  exampleSecret: "whsec_k4Oie9tzlfNd9O6ts4gAgEe71UE9WXS1",
  enableWith: "set WEBHOOK_SECRET_STANDARD to the sender's signing secret (whsec_...)",
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

  parse(raw, { headers, settings: vocabulary = EMPTY_VOCABULARY }) {
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
    const reading = readEvent(type, data, vocabulary);
    return toNormalizedEvent({
      eventId: id,
      eventIdDerived: false,
      type,
      resourceId: reading.resourceId,
      ...time,
      customerId: reading.customerId ?? null,
      customerEmail: reading.customerEmail ?? null,
      charge: reading.charge,
      refetchRequired: reading.refetchRequired,
      payload: json,
    });
  },

  async refetch(paymentId, fetchJson, { settings: vocabulary = EMPTY_VOCABULARY } = {}) {
    const data = parseWith(dataSchema, await fetchJson(`/payments/${encodeURIComponent(paymentId)}`), "refetched payment");
    const reader = new PaymentReader(data, vocabulary);
    const { word, status } = reader.statusWord();
    if (!status) throw unmappable("refetched payment", word);
    return reader.snapshot(status);
  },
};
