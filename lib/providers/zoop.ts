import { z } from "zod";
import { listedResource, parseJson, parseWith, refundStatus, toMinorUnits, toNormalizedEvent } from "./parse-helpers";
import { basicKeyAuth } from "./api-auth";
import { basicCredentials, verifySharedSecret } from "./shared-secret";
import { deriveEventKey } from "./signature";
import { fromIso, type ReportedTime } from "../canonical/event-time";
import { declineReason, type ChargeSnapshot, type ChargeStatus, type DeclineReason } from "../canonical/charge-event";
import { ParseError, type GatewayLister, type SyncVerifyingDriver } from "./types";

// Zoop. Key rule: the event `id`; an event without one is keyed by deriveEventKey(transaction id,
// type, transaction status, occurred time) (eventIdDerived). Time rule: the event's `created_at`
// (ISO-8601 with an offset, the precision it carries), else the transaction's `updated_at`.
// Resource: the transaction under `payload.object` (transaction.* events only).
//
// Authentication: Zoop documents no signature. The operator must set a shared secret on the webhook
// URL, as HTTP Basic Auth (secret "user:pass") or as a `token` query parameter; compared in constant
// time. Anyone who learns it can forge any body, so transaction events always require a refetch; the
// event's own snapshot is still given, for display and as the type's claim.
//
// Refetch: GET /marketplaces/{ZOOP_MARKETPLACE_ID}/transactions/{id} relative to ZOOP_API_URL
// (https://api.zoop.ws/v1), HTTP Basic with ZOOP_API_KEY as user name and an empty password.
//
// Cancellation after capture: Zoop answers a void of a captured transaction with `status: "canceled"`,
// `voided: true`, `captured: true` and a succeeded `void` operation in `history` (a recorded API
// response: lib/providers/fixtures/zoop/). That is money given back, a refund for the voided amount,
// never "canceled" (which cannot follow paid); canceled before capture, no money moved: canceled.
//
// Event types: the webhook events Zoop lets a webhook subscribe to (docs.zoop.co/reference#webhook,
// as zoop-wrapper's Webhook.EVENTS lists them); docs/gateways.md's Zoop table decides each. The
// `buyer.transaction.*` events are the buyer's copies of the `transaction.*` ones and read the same.
// Envelopes: the transaction is under `payload.object` (recorded events), directly under `payload`
// beside an `error` (zoop-wrapper's published transaction.failed) or under a top-level `object`
// (its published transaction.pre_authorization.succeeded). An empty event `id` (the library's
// examples blank them) counts as none.
//
// Unconfirmed: whether `id` is stable across resends (no public docs were found); partial voids as
// `void` operations with a partial amount.

const TYPE_STATUS: Record<string, ChargeStatus> = {
  "transaction.created": "pending",
  "transaction.pending": "pending",
  "transaction.pre_authorized": "authorized",
  "transaction.pre_authorization.succeeded": "authorized",
  "transaction.pre_authorization.failed": "failed",
  "transaction.succeeded": "paid",
  "transaction.capture.succeeded": "paid",
  "transaction.failed": "failed",
  "transaction.canceled": "canceled",
  "transaction.void.succeeded": "canceled",
  "transaction.reversed": "refunded",
  "transaction.refunded": "refunded",
  "transaction.disputed": "disputed",
  "transaction.charged_back": "charged_back",
};

// The statuses of GET /transactions/{id}.
const TRANSACTION_STATUS: Record<string, ChargeStatus> = {
  new: "pending",
  pending: "pending",
  pre_authorized: "authorized",
  succeeded: "paid",
  failed: "failed",
  canceled: "canceled",
  reversed: "refunded",
  refunded: "refunded",
  partial_refunded: "partially_refunded",
  dispute: "disputed",
  charged_back: "charged_back",
};

// Zoop writes amounts as decimal strings ("10.50"), sometimes as numbers.
const decimalAmount = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);

const transactionSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().optional(),
  amount: decimalAmount.optional(),
  currency: z.string().length(3).optional(),
  customer: z.string().nullable().optional(),
  updated_at: z.string().optional(),
  captured: z.boolean().nullable().optional(),
  voided: z.boolean().nullable().optional(),
  refunded: z.boolean().nullable().optional(),
  history: z
    .array(
      z.looseObject({
        operation_type: z.string().optional(),
        status: z.string().optional(),
        amount: decimalAmount.optional(),
        response_code: z.union([z.string(), z.number()]).nullish(),
        response_message: z.string().nullish(),
      }),
    )
    .nullable()
    .optional(),
});
type ZoopTransaction = z.infer<typeof transactionSchema>;

const record = z.record(z.string(), z.unknown());

const eventSchema = z.object({
  id: z.string().optional(),
  type: z.string().min(1),
  created_at: z.string().optional(),
  payload: record.optional(),
  object: record.optional(),
});

/** The object an event is about, in whichever of Zoop's envelopes it came (above). */
function objectOf(event: z.infer<typeof eventSchema>): unknown {
  const nested = event.payload?.object;
  if (nested !== undefined) return nested;
  return event.payload ?? event.object;
}

/** The error a transaction.failed event carries beside its transaction, when it does. */
function errorOf(event: z.infer<typeof eventSchema>): ZoopError | null {
  const error = errorSchema.safeParse(event.payload?.error);
  return error.success ? error.data : null;
}

/** The cents given back: the succeeded void operations in its history, else all of it when voided whole. */
function amountReturned(transaction: ZoopTransaction, amount: number | undefined): number | undefined {
  const voids = (transaction.history ?? []).filter((entry) => entry.operation_type === "void" && entry.status === "succeeded");
  if (voids.length > 0) return voids.reduce((sum, entry) => sum + toMinorUnits(entry.amount ?? 0, transaction.currency), 0);
  return transaction.voided || transaction.refunded ? amount : undefined;
}

/**
 * A status read by what happened to the money: a captured transaction that is voided (Zoop shows it
 * `canceled`, `voided: true`, `captured: true`) or refunded gave money back, a refund, partial while
 * less than the amount went back. Canceled before capture, no money moved: canceled.
 */
function byMoney(
  transaction: ZoopTransaction,
  status: ChargeStatus,
  amount: number | undefined,
): { status: ChargeStatus; amountRefunded?: number } {
  if (status === "partially_refunded") {
    // Partly refunded by Zoop's own word: the voids in its history say how much, when they do.
    const returned = amountReturned(transaction, amount);
    return { status, amountRefunded: returned !== undefined && amount !== undefined && returned < amount ? returned : undefined };
  }
  const returned = transaction.captured ? amountReturned(transaction, amount) : undefined;
  if (!returned || (status !== "canceled" && status !== "paid" && status !== "refunded")) return { status };
  return { status: refundStatus(amount, returned), amountRefunded: returned };
}

// Decline reasons: a failed transaction's failed operation in `history` carries the authorizer's
// `response_code` and `response_message`; a transaction.failed event carries, beside the transaction,
// an `error` ({ type, category, message }: zoop-wrapper's published transaction.failed). The
// authorizer's answer first, the error's category and message when it gave none.
const errorSchema = z.looseObject({ type: z.string().nullish(), category: z.string().nullish(), message: z.string().nullish() });
type ZoopError = z.infer<typeof errorSchema>;

/** Why the transaction was refused, when it was. */
function declineOf(transaction: ZoopTransaction, error: ZoopError | null): DeclineReason | undefined {
  const failed = (transaction.history ?? []).findLast((entry) => entry.status === "failed");
  const answered = failed ? declineReason(failed.response_code, failed.response_message) : undefined;
  if (answered) return answered;
  if (error) return declineReason(error.category ?? error.type, error.message);
  return transaction.status === "failed" && failed?.operation_type
    ? declineReason(undefined, `${failed.operation_type} failed`)
    : undefined;
}

function snapshotOf(transaction: ZoopTransaction, eventStatus: ChargeStatus, error: ZoopError | null = null): ChargeSnapshot {
  const amount = transaction.amount === undefined ? undefined : toMinorUnits(transaction.amount, transaction.currency);
  return {
    ...byMoney(transaction, eventStatus, amount),
    amount,
    currency: transaction.currency?.toLowerCase(),
    customerId: transaction.customer ?? undefined,
    declineReason: declineOf(transaction, error),
  };
}

/** The key of an event Zoop sent without an id: what identifies it, never the whole body. */
function derivedKey(type: string, transaction: ZoopTransaction | null, time: ReportedTime | null): string {
  if (!transaction || !time) throw new ParseError("Zoop event has no id, and no transaction and time to derive a key from");
  return deriveEventKey(transaction.id, type, transaction.status ?? "", time.occurredAt);
}

/** The transaction's current state, as GET /transactions/{id} shows it. */
export function transactionToSnapshot(transaction: ZoopTransaction): ChargeSnapshot {
  const status = transaction.status === undefined ? undefined : TRANSACTION_STATUS[transaction.status];
  if (!status) throw new ParseError(`unknown Zoop transaction status "${transaction.status}"`);
  return snapshotOf(transaction, status);
}

// Zoop's lists write their counts as numbers (`"total": 1` listing webhooks) or as numeric strings
// (`"total": "2666"`, `"query_count": "2666"` listing transactions), both recorded by zoop-wrapper.
const count = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

const transactionListSchema = z.object({
  items: z.array(z.unknown()),
  has_more: z.boolean().optional(),
  total: count.optional(),
  query_count: count.optional(),
  limit: count.optional(),
  offset: count.optional(),
});

// Reconciliation: the marketplace's transactions, `GET /marketplaces/{id}/transactions` with
// `date_range[gte]`/`date_range[lte]`, `offset`/`limit`, `sort=time-ascending`, Basic with the key
// (the zoop_wrapper client's list_transactions). A recorded answer (lib/providers/fixtures/zoop/)
// is page 1 of 27 with `has_more: true` and `limit: 100`: the next page starts after the items
// received (Zoop may serve fewer than asked for); without `has_more`, the total tells, else a full
// page. Unconfirmed (no public reference found): the exact filter names.
const zoopLister: GatewayLister = {
  kind: "resources",
  async listPage(fetchJson, { since, until, pageToken, pageSize }, context) {
    const offset = Number(pageToken ?? 0);
    const marketplaceId = context?.credentials?.marketplaceId ?? "";
    const query = new URLSearchParams({
      "date_range[gte]": since.toISOString(),
      "date_range[lte]": until.toISOString(),
      sort: "time-ascending",
      offset: String(offset),
      limit: String(pageSize),
    });
    const list = parseWith(
      transactionListSchema,
      await fetchJson(`/marketplaces/${encodeURIComponent(marketplaceId)}/transactions?${query}`),
      "not a Zoop list of transactions",
    );
    const next = offset + list.items.length;
    const more = list.has_more ?? (list.total !== undefined ? next < list.total : list.items.length === pageSize);
    return {
      items: list.items.map((item) =>
        listedResource(transactionSchema, item, (transaction) => ({
          snapshot: transactionToSnapshot(transaction),
          updatedAt: transaction.updated_at ?? null,
        })),
      ),
      // An empty page can't move the offset: asking again would loop.
      nextPageToken: more && list.items.length > 0 ? String(next) : null,
    };
  },
};

export const zoopDriver: SyncVerifyingDriver<"zoop"> = {
  name: "zoop",
  label: "Zoop",
  // Unsigned notices: every event's state is fetched.
  defaults: { refetch: "*", paymentSource: "host", timeZone: "UTC", apiUrl: "https://api.zoop.ws/v1" },
  // The buyer (name, e-mail, taxpayer id: CPF, phone, address) and the card holder.
  personalData: [
    ...["payload.object.buyer", "payload.object.customer_details"].flatMap((at) =>
      ["first_name", "last_name", "email", "taxpayer_id", "phone_number", "address", "birthdate"].map((field) => `${at}.${field}`),
    ),
    "payload.object.payment_method.holder_name",
    "payload.object.payment_method.address",
  ],
  keptHeaders: ["content-type", "user-agent"],
  enableWith: 'set WEBHOOK_SECRET_ZOOP to the secret on its webhook URL (Basic Auth "user:pass" or the token query parameter)',
  exampleSecret: "zoop:dev-webhook-pass-change-me",
  secretHeaders: ["authorization"],
  secretQueryParams: ["token"],
  // HTTP Basic with the key as user name; every path is scoped to the marketplace.
  apiAuth: basicKeyAuth(["apiKey", "marketplaceId"]),
  noticeOnly: true,
  lister: zoopLister,

  verify(_raw, headers, { secrets, query }) {
    const credentials = basicCredentials(headers.authorization);
    if (credentials !== null) return verifySharedSecret(credentials, secrets, "Basic Auth credentials");
    const token = query.get("token");
    if (token !== null) return verifySharedSecret(token, secrets, "token query parameter");
    return {
      ok: false,
      reason: "missing Basic Auth credentials and token query parameter (Zoop signs nothing: configure one on the webhook URL)",
    };
  },

  parse(raw) {
    const json = parseJson(raw);
    const event = parseWith(eventSchema, json, "not a Zoop event");
    // The buyer's copy of a transaction event reads as the event itself.
    const type = event.type.replace(/^buyer\./, "");
    const transaction = type.startsWith("transaction.")
      ? parseWith(transactionSchema, objectOf(event), `${event.type}: the event's object is not a transaction`)
      : null;
    const timeText = event.created_at ?? transaction?.updated_at;
    const time = timeText === undefined ? null : fromIso(timeText);
    if (timeText !== undefined && !time) throw new ParseError(`"${timeText}" is not ISO-8601 with a zone`);
    const status = TYPE_STATUS[type];
    const eventId = event.id || undefined;
    return toNormalizedEvent({
      eventId: eventId ?? derivedKey(event.type, transaction, time),
      eventIdDerived: eventId === undefined,
      type: event.type,
      resourceId: transaction?.id ?? null,
      occurredAt: time?.occurredAt ?? null,
      precision: time?.precision ?? null,
      customerId: transaction?.customer ?? null,
      customerEmail: null,
      charge: transaction && status ? snapshotOf(transaction, status, errorOf(event)) : null,
      refetchRequired: transaction !== null,
      payload: json,
    });
  },

  async refetch(transactionId, fetchJson, context) {
    const marketplaceId = context?.credentials?.marketplaceId ?? "";
    const body = await fetchJson(`/marketplaces/${encodeURIComponent(marketplaceId)}/transactions/${encodeURIComponent(transactionId)}`);
    return transactionToSnapshot(parseWith(transactionSchema, body, "refetched Zoop transaction"));
  },
};
