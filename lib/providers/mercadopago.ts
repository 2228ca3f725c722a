import { z } from "zod";
import { listedResource, parseJson, parseWith, refundStatus, toMinorUnits, toNormalizedEvent } from "./parse-helpers";
import { bearerAuth } from "./api-auth";
import { hmac } from "../crypto/digest";
import { safeEqual } from "../crypto/safe-equal";
import { timestampReason, withinTolerance } from "./signature";
import { fromIso } from "../canonical/event-time";
import { declineReason, type ChargeSnapshot, type ChargeStatus, type DeclineReason } from "../canonical/charge-event";
import { ParseError, type GatewayLister, type SyncVerifyingDriver, type VerifyResult } from "./types";

// Mercado Pago. Key rule: the body's `id`, the notification id (a number, kept as text). Time rule:
// `date_created`, ISO-8601 with an offset and usually milliseconds (the precision it carries).
// Resource: the payment named by the `data.id` query parameter, the only id the signature covers; a
// body whose `data.id` differs is refused at verification (401, recorded as a signature failure).
//
// Signature: `x-signature: ts=<ts>,v1=<hex>` and `x-request-id`; HMAC-SHA256 (hex) over the manifest
// "id:{data.id};request-id:{x-request-id};ts:{ts};" where data.id is the query parameter (lower-cased
// when alphanumeric) and a missing part is left out whole. `ts` is documented in milliseconds but the
// documented example is in seconds: values above 1e12 are read as milliseconds.
//
// The body is not signed, so it is only a notice: payment notifications carry no charge state and
// require a refetch of GET /v1/payments/{id}. Notifications about other topics (merchant orders,
// plans, claims...) name no payment: no resource, nothing to refetch.
//
// Unconfirmed: whether the notification `id` is the same on every retry (it is the only id given);
// legacy IPN notifications (`?topic=payment&id=...`, no body id) are not handled.

const MILLISECONDS_ABOVE = 1e12;

// The statuses of GET /v1/payments/{id} ("Get payment status", docs/gateways.md's Mercado Pago table).
const PAYMENT_STATUS: Record<string, ChargeStatus> = {
  pending: "pending",
  in_process: "pending",
  authorized: "authorized",
  approved: "paid",
  rejected: "failed",
  cancelled: "canceled",
  refunded: "refunded",
  in_mediation: "disputed",
  charged_back: "charged_back",
};

const idSchema = z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String);

const notificationSchema = z.object({
  id: idSchema,
  action: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  date_created: z.string(),
  data: z.object({ id: idSchema.optional() }).optional(),
});

const paymentSchema = z.looseObject({
  status: z.string(),
  status_detail: z.string().nullish(),
  transaction_amount: z.number().nonnegative(),
  transaction_amount_refunded: z.number().nonnegative().optional(),
  currency_id: z.string().length(3).optional(),
  payer: z.object({ id: idSchema.nullable().optional(), email: z.string().nullable().optional() }).nullable().optional(),
});
type MercadoPagoPayment = z.infer<typeof paymentSchema>;

/**
 * A chargeback's outcome is in its status_detail: `in_process` while it is decided (disputed),
 * `settled` when the money was retained (charged back), `reimbursed` when it was decided for the
 * seller, who keeps the money (paid, as a won dispute).
 */
const CHARGEBACK_DETAIL: Record<string, ChargeStatus> = { in_process: "disputed", settled: "charged_back", reimbursed: "paid" };

function statusOf(payment: MercadoPagoPayment): ChargeStatus | undefined {
  if (payment.status === "charged_back") return CHARGEBACK_DETAIL[payment.status_detail ?? ""] ?? "charged_back";
  return PAYMENT_STATUS[payment.status];
}

// Decline reasons: a rejected payment says why in `status_detail` (cc_rejected_insufficient_amount,
// cc_rejected_bad_filled_security_code, cc_rejected_high_risk...: "Why is a payment rejected?",
// mercadopago.com.br/developers/en/docs/how-tos/reasons-for-rejection). It is a code only; the
// message is left to the code's words.
function declineOf(payment: MercadoPagoPayment): DeclineReason | undefined {
  return payment.status === "rejected" ? declineReason(payment.status_detail, undefined) : undefined;
}

/** The payment's current state, as GET /v1/payments/{id} shows it. */
export function paymentToSnapshot(payment: MercadoPagoPayment): ChargeSnapshot {
  const status = statusOf(payment);
  if (!status) throw new ParseError(`unknown Mercado Pago payment status "${payment.status}"`);
  const amount = toMinorUnits(payment.transaction_amount, payment.currency_id);
  const refunded =
    payment.transaction_amount_refunded === undefined ? undefined : toMinorUnits(payment.transaction_amount_refunded, payment.currency_id);
  // A partial refund leaves the payment approved (status_detail "partially_refunded").
  const refundedSome = status === "refunded" || (status === "paid" && (refunded ?? 0) > 0);
  return {
    status: refundedSome ? refundStatus(amount, refunded) : status,
    amount,
    amountRefunded: refunded,
    currency: payment.currency_id?.toLowerCase(),
    customerId: payment.payer?.id ?? undefined,
    customerEmail: payment.payer?.email ?? undefined,
    declineReason: declineOf(payment),
  };
}

const listedPaymentSchema = paymentSchema.extend({ id: idSchema, date_last_updated: z.string().nullish() });

const searchSchema = z.object({
  paging: z.object({ total: z.number().int().nonnegative(), offset: z.number().int().nonnegative(), limit: z.number().int().positive() }),
  results: z.array(z.unknown()),
});

/**
 * A search date as Mercado Pago documents it, `yyyy-MM-dd'T'HH:mm:ss.SSSZ` with a numeric offset in
 * every example (2026-12-01T00:00:00.000-03:00): milliseconds and `+00:00`, never `Z`.
 */
export function searchDate(date: Date): string {
  return `${date.toISOString().slice(0, 23)}+00:00`;
}

// Reconciliation: `GET /v1/payments/search` (mercadopago.com.br/developers, "Search payments"),
// Bearer access token: `sort=date_last_updated&criteria=asc&range=date_last_updated&begin_date=<date>
// &end_date=<date>` (searchDate), paged by `offset`/`limit` with `paging.total`. A payment whose
// state changed in the window is listed whatever its creation date. Unconfirmed: the largest offset
// it serves.
const mercadopagoLister: GatewayLister = {
  kind: "resources",
  async listPage(fetchJson, { since, until, pageToken, pageSize }) {
    const offset = Number(pageToken ?? 0);
    const query = new URLSearchParams({
      sort: "date_last_updated",
      criteria: "asc",
      range: "date_last_updated",
      begin_date: searchDate(since),
      end_date: searchDate(until),
      offset: String(offset),
      limit: String(pageSize),
    });
    const page = parseWith(searchSchema, await fetchJson(`/v1/payments/search?${query}`), "not a Mercado Pago payments search");
    // The next offset is ours to compute: an empty page short of paging.total still moves on.
    const next = offset + page.paging.limit;
    return {
      items: page.results.map((item) =>
        listedResource(listedPaymentSchema, item, (payment) => ({
          snapshot: paymentToSnapshot(payment),
          updatedAt: payment.date_last_updated ?? null,
        })),
      ),
      nextPageToken: next < page.paging.total ? String(next) : null,
    };
  },
};

/** The manifest Mercado Pago signs; a part whose value is missing is left out whole. */
function signedManifest(dataId: string | null, requestId: string | undefined, ts: string): string {
  const id = dataId !== null && /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  return [id !== null ? `id:${id};` : "", requestId !== undefined ? `request-id:${requestId};` : "", `ts:${ts};`].join("");
}

function parseSignatureHeader(header: string): { ts: string | undefined; signatures: string[] } {
  let ts: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.split("=", 2).map((piece) => piece.trim());
    if (key === "ts" && value) ts = value;
    if (key === "v1" && value) signatures.push(value.toLowerCase());
  }
  return { ts, signatures };
}

/**
 * Only the query's data.id is signed, so the body's may be anything: a body naming another resource
 * than the signed one is refused, and the driver acts on the signed id alone. A body we can't read is
 * left to parse (stored as failed).
 */
function bindsSignedId(raw: Buffer, signedId: string | null): VerifyResult {
  let bodyId: unknown;
  try {
    bodyId = (JSON.parse(raw.toString("utf8")) as { data?: { id?: unknown } } | null)?.data?.id;
  } catch {
    return { ok: true };
  }
  if (bodyId === undefined || bodyId === null) return { ok: true };
  if (signedId === null) return { ok: false, reason: "the body names a data.id but the query string carries none: the id is not signed" };
  return String(bodyId).toLowerCase() === signedId.toLowerCase()
    ? { ok: true }
    : { ok: false, reason: "the body's data.id differs from the signed data.id (query string)" };
}

function isPaymentNotice(type: string, topic: string | undefined): boolean {
  return topic === "payment" || type.startsWith("payment.");
}

export const mercadopagoDriver: SyncVerifyingDriver<"mercadopago"> = {
  name: "mercadopago",
  label: "Mercado Pago",
  defaults: { refetch: "*", paymentSource: "host", timeZone: "UTC", apiUrl: "https://api.mercadopago.com" },
  // The payer (name, e-mail, identification: CPF/CNPJ, phone, address) on a payment body and in its
  // additional_info, the card holder and the shipment's receiver address; the payer's id stays.
  personalData: [
    ...["payer", "data.payer", "additional_info.payer", "data.additional_info.payer"].flatMap((at) =>
      ["email", "first_name", "last_name", "name", "identification", "phone", "address"].map((field) => `${at}.${field}`),
    ),
    "card.cardholder",
    "data.card.cardholder",
    "additional_info.shipments.receiver_address",
    "data.additional_info.shipments.receiver_address",
  ],
  keptHeaders: ["x-signature", "x-request-id", "content-type", "user-agent"],
  enableWith: "set WEBHOOK_SECRET_MERCADOPAGO to the webhook's secret signature (the key of x-signature)",
  exampleSecret: "mercadopago_dev_webhook_secret_change_me",
  secretHeaders: [],
  apiAuth: bearerAuth,
  noticeOnly: true,
  lister: mercadopagoLister,

  verify(raw, headers, { secrets, nowSeconds, toleranceSeconds, query }) {
    const header = headers["x-signature"];
    if (!header) return { ok: false, reason: "missing x-signature header" };
    const { ts, signatures } = parseSignatureHeader(header);
    if (!ts || !/^\d+$/.test(ts) || signatures.length === 0) {
      return { ok: false, reason: "malformed x-signature header (needs ts=<digits> and v1=<hex>)" };
    }
    const timestamp = Number(ts) > MILLISECONDS_ABOVE ? Math.floor(Number(ts) / 1000) : Number(ts);
    if (!withinTolerance(timestamp, nowSeconds, toleranceSeconds)) {
      return { ok: false, reason: timestampReason(timestamp, nowSeconds) };
    }
    const signedId = query.get("data.id");
    const manifest = signedManifest(signedId, headers["x-request-id"], ts);
    const signed = secrets.some((secret) => {
      const expected = hmac("sha256", secret, manifest).toString("hex");
      return signatures.some((signature) => safeEqual(signature, expected));
    });
    if (!signed) return { ok: false, reason: "no v1 signature matches any configured secret" };
    const bound = bindsSignedId(raw, signedId);
    // The body is not signed: the signed request id and ts must not come twice with different bodies.
    return bound.ok ? { ok: true, nonce: `${headers["x-request-id"] ?? ""}|${ts}`.slice(0, 300) } : bound;
  },

  parse(raw, { query }) {
    const json = parseJson(raw);
    const notification = parseWith(notificationSchema, json, "not a Mercado Pago notification");
    const type = notification.action ?? notification.type;
    if (!type) throw new ParseError("Mercado Pago notification has neither action nor type");
    const time = fromIso(notification.date_created);
    if (!time) throw new ParseError(`date_created "${notification.date_created}" is not ISO-8601 with a zone`);
    const paymentNotice = isPaymentNotice(type, notification.type);
    // The signed id (verify refused a body naming another one).
    const resourceId = paymentNotice ? query.get("data.id") : null;
    return toNormalizedEvent({
      eventId: notification.id,
      eventIdDerived: false,
      type,
      resourceId,
      ...time,
      customerId: null,
      customerEmail: null,
      charge: null,
      refetchRequired: paymentNotice && resourceId !== null,
      payload: json,
    });
  },

  // A marketplace receives its sellers' notifications, each naming the seller's account (`user_id`),
  // whose OAuth token reads the payment; a single account's notifications name the account itself.
  accountOf(payload) {
    const account = idSchema.safeParse((payload as { user_id?: unknown } | null)?.user_id);
    return account.success ? account.data : null;
  },

  async refetch(paymentId, fetchJson) {
    const body = await fetchJson(`/v1/payments/${encodeURIComponent(paymentId)}`);
    return paymentToSnapshot(parseWith(paymentSchema, body, "refetched Mercado Pago payment"));
  },
};
