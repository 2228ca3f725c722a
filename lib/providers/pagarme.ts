import { createPublicKey, verify as verifySignature, type JsonWebKeyInput } from "node:crypto";
import { z } from "zod";
import { listedResource, parseJson, parseWith, refundStatus, toNormalizedEvent } from "./parse-helpers";
import { basicKeyAuth } from "./api-auth";
import { basicCredentials, verifySharedSecret } from "./shared-secret";
import { hmac } from "../crypto/digest";
import { safeEqual } from "../crypto/safe-equal";
import { fromIso, fromLocalTime } from "../canonical/event-time";
import { declineReason, type ChargeSnapshot, type ChargeStatus, type DeclineReason } from "../canonical/charge-event";
import { ParseError, type GatewayLister, type ProviderDriver, type VerifyContext, type VerifyResult } from "./types";

// Pagar.me. Key rule: the event `id` (hook_...). Time rule: `created_at`, precision "second"; the
// documented example ("2017-06-29T20:23:47") has no zone, so it is read as a wall-clock time in the
// configured zone (ParseContext.timeZone); a time that carries a zone is read as such. Resource: the
// charge (`data.id` for charge.*, the first of `data.charges` for order.*).
//
// Authentication (PAGARME_SIGNATURES picks the accepted schemes; "rs256" alone by default):
// - rs256, what Pagar.me's own plugins verify today: header `X-Webhook-Asymmetric-Signature:
//   alg=RS256; kid=<key id>; signature=<base64url>`, an RSASSA-PKCS1-v1_5 SHA-256 signature of the raw
//   body, checked against the RSA key with that kid (kty RSA, use sig, alg RS256 when named) in the
//   JWKS Pagar.me publishes at https://hubapi.pagar.me/.well-known/jwks.json (PAGARME_JWKS_URL).
//   Source: pagarme/ecommerce-module-core src/Webhook/Services/WebhookValidatorService.php at commit
//   02a64677e6eeee7b3de048c838ae8329d92d1b56 (JWKS_URL, parseSignatureHeader, isTheExpectedKey,
//   openssl_verify with OPENSSL_ALGO_SHA256), used by pagarme/woocommerce src/Controller/Webhooks.php
//   at commit c8525f6419b6503675a77ac5516c38ac372d7d15 (header HTTP_X_WEBHOOK_ASYMMETRIC_SIGNATURE,
//   401 without it) and by the Magento 2 module through the same core.
// - hub-signature (legacy v3/v4 postbacks, opt-in): `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the raw
//   body>` keyed by the API key (WEBHOOK_SECRET_PAGARME).
// - basic (opt-in): the HTTP Basic Auth configured on a v5 webhook (WEBHOOK_SECRET_PAGARME "user:pass").
// None has a timestamp, so a captured request can be replayed: the configuration refetches every
// event by default (REFETCH_PAGARME="*").
//
// Statuses and event types, each decided against its source in docs/gateways.md ("Pagar.me"): the
// charge statuses of pagarme/ecommerce-module-core's ChargeStatus.php plus `chargedback` (Pagar.me's
// 2022 notice), the transaction statuses of docs.pagar.me's "Cobrança" page and the core's
// TransactionStatus.php, the event types of docs.pagar.me's webhook event list.
//
// Unconfirmed: Basic Auth on v5 webhooks (seen in community code, not in the official docs); the zone
// of the webhook's created_at (the v5 charge reference calls the charge's own created_at UTC, while
// the zone is PAGARME_TIMEZONE, UTC by default); the event name charge.canceled and the charge status
// `refunded` (in no v5 list; mapped as their names say); `refunded_amount` (the SDK's charge has only
// `canceled_amount`, read as the amount given back once the charge was captured). Legacy
// form-encoded postback bodies are verified but not parsed (stored as failed, replayable once a
// driver reads them).

// The event types that name the state they report. A captured charge's cancellation is a refund and a
// void's "refund" a cancellation: byMoney reads which by what happened to the money.
const TYPE_STATUS: Record<string, ChargeStatus> = {
  "charge.pending": "pending",
  "charge.processing": "pending",
  "charge.paid": "paid",
  "charge.overpaid": "paid",
  // The boleto was paid, short of its amount: money taken, and a boleto is paid once (Pagar.me's own
  // plugins handle it as paid, with a remaining amount).
  "charge.underpaid": "paid",
  "charge.payment_failed": "failed",
  "charge.antifraud_reproved": "failed",
  "charge.refunded": "refunded",
  "charge.partial_canceled": "partially_refunded",
  "charge.chargedback": "charged_back",
  "charge.canceled": "canceled",
  "order.paid": "paid",
  "order.payment_failed": "failed",
  "order.canceled": "canceled",
};

// Types that say the charge changed without naming the state: the charge's own status says it.
const CHARGE_STATUS_TYPES: ReadonlySet<string> = new Set([
  "charge.created",
  "charge.updated",
  "charge.antifraud_approved",
  "charge.antifraud_manual",
  "charge.antifraud_pending",
  "order.created",
  "order.updated",
]);

// Types that say the money was taken (paid) or given back (a refund is made of captured money).
const MONEY_TAKEN_TYPES: ReadonlySet<string> = new Set([
  "charge.paid",
  "charge.overpaid",
  "charge.underpaid",
  "charge.refunded",
  "charge.partial_canceled",
  "charge.chargedback",
  "order.paid",
]);

// The charge statuses of GET /charges/{id}.
const CHARGE_STATUS: Record<string, ChargeStatus> = {
  pending: "pending",
  processing: "pending",
  paid: "paid",
  overpaid: "paid",
  underpaid: "paid",
  failed: "failed",
  canceled: "canceled",
  refunded: "refunded",
  chargedback: "charged_back",
};

// A charge's last transaction (card, boleto, Pix...) by whether its money was taken: captured (then
// perhaps given back, or charged back), or never (an authorization voided or refused, a boleto or Pix
// not paid). Statuses in neither set (waiting_cancellation) leave it to the event and the ledger.
const TRANSACTION_TAKEN: ReadonlySet<string> = new Set([
  "captured",
  "partial_capture",
  "refunded",
  "partial_refunded",
  "pending_refund",
  "error_on_refunding",
  "chargedback",
  "paid",
  "overpaid",
  "underpaid",
]);
const TRANSACTION_NOT_TAKEN: ReadonlySet<string> = new Set([
  "authorized_pending_capture",
  "waiting_capture",
  "not_authorized",
  // The plugins' TransactionStatus.php spells these two in camelCase.
  "notAuthorized",
  "voided",
  "partial_void",
  "error_on_voiding",
  "with_error",
  "withError",
  "failed",
  "generated",
  "viewed",
  "waiting_payment",
  "expired",
  "pending_review",
  "analyzing",
]);

const customerSchema = z.object({ id: z.string().optional(), email: z.string().nullable().optional() });

// v5 amounts are integers in cents already.
const cents = z.number().int().nonnegative();

const chargeSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().optional(),
  amount: cents.optional(),
  paid_amount: cents.optional(),
  canceled_amount: cents.optional(),
  refunded_amount: cents.optional(),
  // Set once the money was captured; a later cancellation then gives money back.
  paid_at: z.string().nullable().optional(),
  currency: z.string().length(3).optional(),
  customer: customerSchema.nullable().optional(),
  // The SDK's GetTransactionResponse: its status says whether this charge's money was taken, and a
  // refused one's acquirer fields and gateway_response say why.
  last_transaction: z
    .looseObject({
      status: z.string().nullable().optional(),
      acquirer_return_code: z.union([z.string(), z.number()]).nullish(),
      acquirer_message: z.string().nullish(),
      gateway_response: z
        .looseObject({
          code: z.union([z.string(), z.number()]).nullish(),
          errors: z.array(z.looseObject({ message: z.string().nullish() })).nullish(),
        })
        .nullish(),
    })
    .nullable()
    .optional(),
});
type PagarmeCharge = z.infer<typeof chargeSchema>;

const orderSchema = z.looseObject({
  customer: customerSchema.nullable().optional(),
  charges: z.array(chargeSchema).optional(),
});

const eventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});

function amountRefunded(charge: PagarmeCharge): number | undefined {
  return charge.refunded_amount ?? charge.canceled_amount;
}

// Decline reasons: a refused card transaction (the SDK's GetCreditCardTransactionResponse, status
// not_authorized or with_error) carries the acquirer's answer, `acquirer_return_code` (the issuer's
// code, "1011", "51"...) and `acquirer_message`; one the gateway refused before any acquirer saw it
// carries `gateway_response` { code, errors: [{ message }] } (GetGatewayResponseResponse). A failed
// charge's reason is read from its last transaction the same way.
const REFUSED_TRANSACTION: ReadonlySet<string> = new Set(["not_authorized", "notAuthorized", "with_error", "withError", "failed"]);

/** Why the charge's last transaction was refused, when it was. */
function declineOf(charge: PagarmeCharge): DeclineReason | undefined {
  const transaction = charge.last_transaction;
  if (!transaction || (charge.status !== "failed" && !REFUSED_TRANSACTION.has(transaction.status ?? ""))) return undefined;
  const gateway = transaction.gateway_response;
  const gatewayMessage = (gateway?.errors ?? []).flatMap((error) => (error.message ? [error.message] : [])).join("; ");
  return declineReason(transaction.acquirer_return_code, transaction.acquirer_message) ?? declineReason(gateway?.code, gatewayMessage);
}

function snapshotOf(charge: PagarmeCharge, status: ChargeStatus): ChargeSnapshot {
  return {
    declineReason: declineOf(charge),
    status: status === "refunded" ? refundStatus(charge.amount, amountRefunded(charge)) : status,
    amount: charge.amount,
    amountRefunded: amountRefunded(charge),
    currency: charge.currency?.toLowerCase(),
    customerId: charge.customer?.id,
    customerEmail: charge.customer?.email ?? undefined,
  };
}

/** The charge an event is about: `data` itself for charge.*, an order's first charge for order.*. */
function chargeOf(type: string, data: Record<string, unknown>): PagarmeCharge | null {
  if (type.startsWith("charge.")) return parseWith(chargeSchema, data, `${type}: data is not a charge`);
  if (!type.startsWith("order.")) return null;
  const order = parseWith(orderSchema, data, `${type}: data is not an order`);
  const first = order.charges?.[0];
  return first ? { ...first, customer: first.customer ?? order.customer } : null;
}

/**
 * Was the charge's money taken? The charge says so first: paid_at or a paid_amount (the refetch of a
 * fully canceled charge may keep neither), then its last transaction's status. Only when the charge
 * tells nothing does the event: a notice of payment or refund says the money was taken, even when
 * the charge it refetches was refunded since. null: nothing tells (the ledger may, see
 * byWhatTheMoneyDid in lib/payments).
 */
function moneyTaken(charge: PagarmeCharge, eventType: string | undefined): boolean | null {
  if ((charge.paid_amount ?? 0) > 0 || Boolean(charge.paid_at)) return true;
  const transaction = charge.last_transaction?.status ?? undefined;
  if (transaction !== undefined && TRANSACTION_TAKEN.has(transaction)) return true;
  if (transaction !== undefined && TRANSACTION_NOT_TAKEN.has(transaction)) return false;
  return eventType !== undefined && MONEY_TAKEN_TYPES.has(eventType) ? true : null;
}

/**
 * A status read by what happened to the money. Money taken and some of it given back is a refund
 * (partial while canceled_amount < amount), whatever the charge's status says (canceled, or still
 * paid after a partial refund): "canceled" can't follow paid. A "refund" whose charge shows its money
 * was never taken (a voided authorization) moved no money: the charge's own status. A charge canceled
 * with nothing telling either way stays canceled, its canceled amount kept for the ledger to judge.
 */
function byMoney(charge: PagarmeCharge, status: ChargeStatus, eventType: string | undefined): ChargeStatus {
  const taken = moneyTaken(charge, eventType);
  const returned = (amountRefunded(charge) ?? 0) > 0;
  const refund = status === "refunded" || status === "partially_refunded";
  if (refund && taken === false) return charge.status === undefined ? "canceled" : (CHARGE_STATUS[charge.status] ?? "canceled");
  if (taken === true && returned && (refund || status === "paid" || status === "canceled")) return "refunded";
  return status;
}

/** The charge's status, as GET /charges/{id} shows it; a ParseError for a status no list documents. */
function chargeStatus(charge: PagarmeCharge): ChargeStatus {
  const status = charge.status === undefined ? undefined : CHARGE_STATUS[charge.status];
  if (!status) throw new ParseError(`unknown Pagar.me charge status "${charge.status}"`);
  return status;
}

/** The charge's current state, as GET /charges/{id} shows it, read with the event it was fetched for. */
export function chargeToSnapshot(charge: PagarmeCharge, eventType?: string): ChargeSnapshot {
  return snapshotOf(charge, byMoney(charge, chargeStatus(charge), eventType));
}

/**
 * The state an event's own body reports: named by its type, or the charge's own status (none when the
 * status is one no list documents: the event then goes by a refetch, or by nothing).
 */
function eventStatus(type: string, charge: PagarmeCharge): ChargeStatus | undefined {
  if (TYPE_STATUS[type]) return TYPE_STATUS[type];
  return CHARGE_STATUS_TYPES.has(type) && charge.status !== undefined ? CHARGE_STATUS[charge.status] : undefined;
}

/** `alg=RS256; kid=...; signature=...`: parts split on ";", each on its first "=" (as the plugins do). */
function parseAsymmetricHeader(header: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0) parts[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return parts;
}

// The plugins' isTheExpectedKey: an RSA signing key, for RS256 when it names an algorithm.
function isSigningKey(jwk: JsonWebKey & { use?: string }): boolean {
  return jwk.kty === "RSA" && (jwk.use === undefined || jwk.use === "sig") && (jwk.alg === undefined || jwk.alg === "RS256");
}

async function verifyAsymmetric(raw: Buffer, header: string, publicKeys: VerifyContext["publicKeys"]): Promise<VerifyResult> {
  const { alg, kid, signature } = parseAsymmetricHeader(header);
  if (!alg || !kid || !signature)
    return { ok: false, reason: "malformed X-Webhook-Asymmetric-Signature header (needs alg, kid and signature)" };
  if (alg !== "RS256")
    return { ok: false, reason: `unsupported X-Webhook-Asymmetric-Signature algorithm "${alg.slice(0, 16)}" (expected RS256)` };
  if (!publicKeys) return { ok: false, reason: "no published key source is configured for X-Webhook-Asymmetric-Signature" };
  const jwk = await publicKeys(kid);
  if (!jwk || !isSigningKey(jwk)) return { ok: false, reason: "the signature's kid is not among the published RS256 signing keys" };
  let valid = false;
  try {
    // RS256 is RSASSA-PKCS1-v1_5 with SHA-256 over the raw body; the signature is base64url.
    valid = verifySignature(
      "sha256",
      raw,
      createPublicKey({ key: jwk as JsonWebKeyInput["key"], format: "jwk" }),
      Buffer.from(signature, "base64url"),
    );
  } catch {
    return { ok: false, reason: "the published key for this kid is not a usable RSA key" };
  }
  return valid ? { ok: true } : { ok: false, reason: "X-Webhook-Asymmetric-Signature does not verify against the published key" };
}

function verifyHubSignature(raw: Buffer, header: string, secrets: readonly string[]): VerifyResult {
  const match = /^sha1=([0-9a-f]{40})$/i.exec(header.trim());
  if (!match?.[1]) return { ok: false, reason: "malformed X-Hub-Signature header (needs sha1=<hex>)" };
  const signature = match[1].toLowerCase();
  return secrets.some((secret) => safeEqual(signature, hmac("sha1", secret, raw).toString("hex")))
    ? { ok: true }
    : { ok: false, reason: "X-Hub-Signature matches no configured secret" };
}

const chargeListSchema = z.object({
  data: z.array(z.unknown()),
  paging: z.object({ total: z.number().int().nonnegative().optional(), next: z.string().nullish() }).optional(),
});

// Reconciliation: core v5 `GET /charges?created_since=<ISO>&created_until=<ISO>&page=&size=` (the
// official SDK's ChargesController.getCharges; ListChargesResponse {data, paging {total, previous,
// next}}), Basic with the secret key. Filtered by creation time only: a charge created before the
// window that changed inside it is not listed; the stuck-payment refetch covers those.
const pagarmeLister: GatewayLister = {
  kind: "resources",
  async listPage(fetchJson, { since, until, pageToken, pageSize }) {
    const page = Number(pageToken ?? 1);
    const query = new URLSearchParams({
      created_since: since.toISOString(),
      created_until: until.toISOString(),
      page: String(page),
      size: String(pageSize),
    });
    const list = parseWith(chargeListSchema, await fetchJson(`/charges?${query}`), "not a Pagar.me list of charges");
    return {
      items: list.data.map((item) =>
        listedResource(chargeSchema, item, (charge) => ({
          snapshot: chargeToSnapshot(charge),
          updatedAt: typeof charge.updated_at === "string" ? charge.updated_at : null,
        })),
      ),
      nextPageToken: list.paging?.next ? String(page + 1) : null,
    };
  },
};

/** The schemes PAGARME_SIGNATURES may choose; "rs256" alone when it is unset. */
const PAGARME_SIGNATURE_SCHEMES = ["rs256", "hub-signature", "basic"] as const;
type PagarmeSignatureScheme = (typeof PAGARME_SIGNATURE_SCHEMES)[number];

/** Where Pagar.me publishes the keys of X-Webhook-Asymmetric-Signature (its plugins' JWKS_URL). */
const DEFAULT_JWKS_URL = "https://hubapi.pagar.me/.well-known/jwks.json";

const settingsSchema = z
  .object({
    PAGARME_SIGNATURES: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? "")
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part.length > 0),
      )
      .pipe(z.array(z.enum(PAGARME_SIGNATURE_SCHEMES, { message: `each must be one of ${PAGARME_SIGNATURE_SCHEMES.join(", ")}` }))),
    PAGARME_JWKS_URL: z.url().default(DEFAULT_JWKS_URL),
    PAGARME_JWKS_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  })
  .transform((raw) => ({
    /** The signatures accepted. */
    signatures: raw.PAGARME_SIGNATURES.length > 0 ? raw.PAGARME_SIGNATURES : (["rs256"] satisfies PagarmeSignatureScheme[]),
    jwksUrl: raw.PAGARME_JWKS_URL,
    jwksTtlSeconds: raw.PAGARME_JWKS_TTL_SECONDS,
  }));
export type PagarmeSettings = z.output<typeof settingsSchema>;

const DEFAULT_SETTINGS = settingsSchema.parse({});

export const pagarmeDriver: ProviderDriver<"pagarme", PagarmeSettings> = {
  name: "pagarme",
  label: "Pagar.me",
  // Thin bodies: payments are registered by the host, and every event's state is fetched.
  defaults: { refetch: "*", paymentSource: "host", timeZone: "UTC", apiUrl: "https://api.pagar.me/core/v5" },
  settings: settingsSchema,
  verification: { publishedKeys: ({ jwksUrl, jwksTtlSeconds }) => ({ url: jwksUrl, ttlSeconds: jwksTtlSeconds }) },
  // The customer (core v5) on a charge, on an order and on each of an order's charges; the card
  // holder and billing address of its last transaction; an order's shipping.
  personalData: [
    ...["data", "data.charges.*", "data.order"].flatMap((at) =>
      ["name", "email", "document", "documents", "phones", "address", "birthdate", "code"].map((field) => `${at}.customer.${field}`),
    ),
    "data.last_transaction.card.holder_name",
    "data.last_transaction.card.holder_document",
    "data.last_transaction.card.billing_address",
    "data.charges.*.last_transaction.card.holder_name",
    "data.charges.*.last_transaction.card.holder_document",
    "data.charges.*.last_transaction.card.billing_address",
    "data.shipping",
  ],
  keptHeaders: ["x-webhook-asymmetric-signature", "x-hub-signature", "content-type", "user-agent"],
  secretHeaders: ["authorization"],
  // Core v5: HTTP Basic, the secret key as user name and an empty password.
  apiAuth: basicKeyAuth(),
  // RS256 needs no shared secret: choosing the schemes is enough to turn Pagar.me on.
  enabledBy: ["PAGARME_SIGNATURES"],
  enableWith:
    "set PAGARME_SIGNATURES=rs256 and PAGARME_JWKS_URL to where its signing keys are published (Pagar.me's own by default); " +
    "WEBHOOK_SECRET_PAGARME is only for the opt-in hub-signature and basic schemes",
  lister: pagarmeLister,

  async verify(raw, headers, { secrets, publicKeys, settings = DEFAULT_SETTINGS }) {
    const schemes = settings.signatures;
    const asymmetric = headers["x-webhook-asymmetric-signature"];
    if (asymmetric !== undefined && schemes.includes("rs256")) return verifyAsymmetric(raw, asymmetric, publicKeys);
    const signature = headers["x-hub-signature"];
    if (signature !== undefined && schemes.includes("hub-signature")) return verifyHubSignature(raw, signature, secrets);
    const credentials = basicCredentials(headers.authorization);
    if (credentials !== null && schemes.includes("basic")) return verifySharedSecret(credentials, secrets, "Basic Auth credentials");
    const expected = {
      rs256: "X-Webhook-Asymmetric-Signature header",
      "hub-signature": "X-Hub-Signature header",
      basic: "Basic Auth credentials",
    };
    const accepted = schemes.map((scheme) => expected[scheme]);
    return { ok: false, reason: `missing ${accepted.join(" or ")} (the schemes PAGARME_SIGNATURES accepts)` };
  },

  parse(raw, { timeZone }) {
    const json = parseJson(raw);
    const event = parseWith(eventSchema, json, "not a Pagar.me event");
    const time = fromIso(event.created_at) ?? fromLocalTime(event.created_at, timeZone);
    if (!time) throw new ParseError(`created_at "${event.created_at}" is not a date-time`);
    const charge = chargeOf(event.type, event.data);
    const status = charge ? eventStatus(event.type, charge) : undefined;
    return toNormalizedEvent({
      eventId: event.id,
      eventIdDerived: false,
      type: event.type,
      resourceId: charge?.id ?? null,
      ...time,
      customerId: charge?.customer?.id ?? null,
      customerEmail: charge?.customer?.email ?? null,
      charge: charge && status ? snapshotOf(charge, byMoney(charge, status, event.type)) : null,
      payload: json,
    });
  },

  async refetch(chargeId, fetchJson, context) {
    const body = await fetchJson(`/charges/${encodeURIComponent(chargeId)}`);
    return chargeToSnapshot(parseWith(chargeSchema, body, "refetched Pagar.me charge"), context?.eventType);
  },
};
