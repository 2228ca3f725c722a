import { z } from "zod";
import { listedResource, parseJson, parseWith, refundStatus, toMinorUnits, toNormalizedEvent } from "./parse-helpers";
import { accessTokenAuth } from "./api-auth";
import { verifySharedSecret } from "./shared-secret";
import { fromLocalTime } from "../canonical/event-time";
import { declineReason, type ChargeSnapshot, type ChargeStatus } from "../canonical/charge-event";
import { ParseError, type GatewayLister, type SyncVerifyingDriver } from "./types";

// Asaas. Key rule: the event `id` (evt_...), repeated when Asaas resends the same event. Time rule:
// `dateCreated` ("2024-06-12 16:45:03"), precision "second", a wall-clock time in Asaas's zone with
// no offset: read in the configured zone (ASAAS_TIMEZONE, America/Sao_Paulo by default). Resource:
// `payment.id`; customer: `payment.customer` (an id; the body carries no e-mail). Amounts: `value`,
// decimal BRL (Asaas only charges in reais).
//
// Authentication: the optional `asaas-access-token` header holds the fixed token set on the webhook;
// no HMAC, no timestamp, the body is not signed. Compared in constant time; the configuration
// refetches every event by default (REFETCH_ASAAS="*").
//
// Statuses and event types, each decided against its source in docs/gateways.md ("Asaas"):
// docs.asaas.com's payment events, its payment object's statuses, refunds and chargebacks.
//
// Unconfirmed: whether a partial refund leaves the payment RECEIVED (handled either way, from the
// DONE refunds); the status a payment shows once its chargeback is lost (its `chargeback.status`
// decides: DISPUTE_LOST or DONE is charged back).
//
// Asaas documents two ways back: a deleted payment (only a pending or overdue one can be deleted) is
// restored and can then be paid, and a cash receipt (RECEIVED_IN_CASH) is undone. Every snapshot but
// a deleted payment's says canceled can be left (`reopens`), and one for a cash receipt undone says
// paid can too.

const TYPE_STATUS: Record<string, ChargeStatus> = {
  PAYMENT_CREATED: "pending",
  PAYMENT_AWAITING_RISK_ANALYSIS: "pending",
  PAYMENT_APPROVED_BY_RISK_ANALYSIS: "pending",
  PAYMENT_RESTORED: "pending",
  // Overdue is not failed: Asaas still takes a late boleto or Pix (then sends PAYMENT_RECEIVED),
  // and failed is final in the state machine, so "failed" here would make us ignore real money.
  PAYMENT_OVERDUE: "pending",
  // Dunning (negativação) chases the customer: still owed, and PAYMENT_DUNNING_RECEIVED may follow.
  PAYMENT_DUNNING_REQUESTED: "pending",
  PAYMENT_RECEIVED_IN_CASH_UNDONE: "pending",
  PAYMENT_AUTHORIZED: "authorized",
  PAYMENT_CONFIRMED: "paid",
  PAYMENT_RECEIVED: "paid",
  PAYMENT_DUNNING_RECEIVED: "paid",
  PAYMENT_REPROVED_BY_RISK_ANALYSIS: "failed",
  PAYMENT_CREDIT_CARD_CAPTURE_REFUSED: "failed",
  PAYMENT_DELETED: "canceled",
  PAYMENT_REFUNDED: "refunded",
  PAYMENT_PARTIALLY_REFUNDED: "partially_refunded",
  PAYMENT_CHARGEBACK_REQUESTED: "disputed",
  PAYMENT_CHARGEBACK_DISPUTE: "disputed",
  // "Dispute won, awaiting the acquirer's transfer": the payment is reinstated, as a won dispute is.
  PAYMENT_AWAITING_CHARGEBACK_REVERSAL: "paid",
  // Not here, on purpose (no change of what the payment is; refetched by default): the refund
  // not made yet (PAYMENT_REFUND_IN_PROGRESS, then PAYMENT_REFUNDED) or denied (PAYMENT_REFUND_DENIED),
  // PAYMENT_ANTICIPATED, the views, the boleto canceled, the split's events.
};

// Types that say the payment changed without naming the state: the payment's own status says it.
const PAYMENT_STATUS_TYPES: ReadonlySet<string> = new Set(["PAYMENT_UPDATED"]);

// The statuses of GET /payments/{id}.
const PAYMENT_STATUS: Record<string, ChargeStatus> = {
  PENDING: "pending",
  AWAITING_RISK_ANALYSIS: "pending",
  OVERDUE: "pending",
  DUNNING_REQUESTED: "pending",
  AUTHORIZED: "authorized",
  CONFIRMED: "paid",
  RECEIVED: "paid",
  RECEIVED_IN_CASH: "paid",
  DUNNING_RECEIVED: "paid",
  // A refund asked for but not yet made leaves the payment paid.
  REFUND_REQUESTED: "paid",
  REFUND_IN_PROGRESS: "paid",
  REFUNDED: "refunded",
  CHARGEBACK_REQUESTED: "disputed",
  CHARGEBACK_DISPUTE: "disputed",
  AWAITING_CHARGEBACK_REVERSAL: "paid",
};

// A payment's `chargeback.status` when the chargeback was lost, or done (the money went to the
// cardholder): charged back, which no payment status says. Requested, in dispute or reversed (the
// merchant won), the payment's own status already tells.
const CHARGEBACK_LOST: ReadonlySet<string> = new Set(["DISPUTE_LOST", "DONE"]);

// Asaas charges in reais only: its payments carry no currency.
const CURRENCY = "brl";

const paymentSchema = z.looseObject({
  id: z.string().min(1),
  customer: z.string().nullable().optional(),
  value: z.number().nonnegative(),
  status: z.string().optional(),
  deleted: z.boolean().optional(),
  refunds: z
    .array(z.looseObject({ status: z.string(), value: z.number().nonnegative() }))
    .nullable()
    .optional(),
  chargeback: z.looseObject({ status: z.string() }).nullable().optional(),
});
type AsaasPayment = z.infer<typeof paymentSchema>;

const eventSchema = z.object({
  id: z.string().min(1),
  event: z.string().min(1),
  dateCreated: z.string(),
  // Absent on events about other objects (transfers, invoices...).
  payment: z.unknown().nullish(),
});

/** What the refunds that went through add up to, in cents; undefined when the body lists none. */
function amountRefunded(payment: AsaasPayment): number | undefined {
  const done = payment.refunds?.filter((refund) => refund.status === "DONE");
  return done?.length ? done.reduce((sum, refund) => sum + toMinorUnits(refund.value, CURRENCY), 0) : undefined;
}

// Decline reasons: Asaas's payment object documents no refusal field; the event is the reason. A
// card refused (PAYMENT_CREDIT_CARD_CAPTURE_REFUSED, "Credit card payment failure", sent since
// 2023-12-11 per docs.asaas.com's changelog) or reproved by its manual risk analysis
// (PAYMENT_REPROVED_BY_RISK_ANALYSIS) says so in its type, in the words of docs.asaas.com/docs/payment-events.
// A refused card leaves the payment open to another try, so a refetch may show it still pending.
const DECLINE_EVENTS: Readonly<Record<string, string>> = {
  PAYMENT_CREDIT_CARD_CAPTURE_REFUSED: "Credit card payment failure",
  PAYMENT_REPROVED_BY_RISK_ANALYSIS: "Card payment disapproved by manual risk analysis",
};

/** What the payment is, `status` read with its refunds and chargeback, and the ways back Asaas documents from it. */
function snapshotOf(payment: AsaasPayment, status: ChargeStatus, eventType?: string): ChargeSnapshot {
  const amount = toMinorUnits(payment.value, CURRENCY);
  const refunded = amountRefunded(payment);
  const refundedSome = status === "paid" && (refunded ?? 0) > 0;
  const own = status === "refunded" || refundedSome ? refundStatus(amount, refunded) : status;
  const settled = payment.chargeback && CHARGEBACK_LOST.has(payment.chargeback.status) ? "charged_back" : own;
  const reopens: ChargeStatus[] | undefined =
    settled === "canceled" ? undefined : eventType === "PAYMENT_RECEIVED_IN_CASH_UNDONE" ? ["canceled", "paid"] : ["canceled"];
  const declined = eventType === undefined ? undefined : DECLINE_EVENTS[eventType];
  return {
    status: settled,
    amount,
    amountRefunded: refunded,
    currency: CURRENCY,
    customerId: payment.customer ?? undefined,
    reopens,
    declineReason: declined ? declineReason(eventType, declined) : undefined,
  };
}

/** The payment's status as GET /payments/{id} shows it; undefined for one Asaas doesn't document. */
function knownStatus(payment: AsaasPayment): ChargeStatus | undefined {
  if (payment.deleted) return "canceled";
  return payment.status === undefined ? undefined : PAYMENT_STATUS[payment.status];
}

/** The payment's current state, as GET /payments/{id} shows it, read with the event it was fetched for. */
export function paymentToSnapshot(payment: AsaasPayment, eventType?: string): ChargeSnapshot {
  const status = knownStatus(payment);
  if (!status) throw new ParseError(`unknown Asaas payment status "${payment.status}"`);
  return snapshotOf(payment, status, eventType);
}

const listSchema = z.object({ hasMore: z.boolean(), data: z.array(z.unknown()) });

/** A day in Asaas's zone ("2024-06-12"): its list filters take dates, not times. */
function asaasDay(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

// Reconciliation: `GET /v3/payments?dateCreated[ge]=<day>&dateCreated[le]=<day>&offset=&limit=`
// (docs.asaas.com "Listar cobranças"; the list shape {object, hasMore, totalCount, limit, offset,
// data} as in the go-asaas client's Pageable), `access_token` header, limit at most 100. Asaas
// filters by creation day only: a payment created before the window that changed inside it is not
// listed; the stuck-payment refetch covers those. The window is widened to whole days in its zone.
const asaasLister: GatewayLister = {
  kind: "resources",
  async listPage(fetchJson, { since, until, pageToken, pageSize }, context) {
    const offset = Number(pageToken ?? 0);
    const timeZone = context?.timeZone ?? "America/Sao_Paulo";
    const query = new URLSearchParams({
      "dateCreated[ge]": asaasDay(since, timeZone),
      "dateCreated[le]": asaasDay(until, timeZone),
      offset: String(offset),
      limit: String(Math.min(pageSize, 100)),
    });
    const page = parseWith(listSchema, await fetchJson(`/payments?${query}`), "not an Asaas list of payments");
    return {
      items: page.data.map((item) =>
        listedResource(paymentSchema, item, (payment) => ({ snapshot: paymentToSnapshot(payment), updatedAt: null })),
      ),
      nextPageToken: page.hasMore ? String(offset + Math.min(pageSize, 100)) : null,
    };
  },
};

export const asaasDriver: SyncVerifyingDriver<"asaas"> = {
  name: "asaas",
  label: "Asaas",
  // A fixed token, not a signature: every event's state is fetched. Its times are São Paulo wall clock.
  defaults: { refetch: "*", paymentSource: "host", timeZone: "America/Sao_Paulo", apiUrl: "https://api.asaas.com/v3" },
  enableWith: "set WEBHOOK_SECRET_ASAAS to the webhook's authentication token (Asaas sends it as asaas-access-token)",
  exampleSecret: "asaas_dev_webhook_token_change_me",
  // A customer object (CUSTOMER_* events) and the payer's fields a payment body may carry.
  personalData: [
    ...["customer", "payment.customer"].flatMap((at) =>
      [
        "name",
        "email",
        "cpfCnpj",
        "phone",
        "mobilePhone",
        "address",
        "addressNumber",
        "complement",
        "province",
        "postalCode",
        "additionalEmails",
      ].map((field) => `${at}.${field}`),
    ),
    "payment.creditCard.creditCardHolderInfo",
  ],
  keptHeaders: ["content-type", "user-agent"],
  secretHeaders: ["asaas-access-token"],
  // Asaas v3 takes the API key in an `access_token` header, not as a bearer token.
  apiAuth: accessTokenAuth,
  lister: asaasLister,

  verify(_raw, headers, { secrets }) {
    const token = headers["asaas-access-token"];
    if (token === undefined) return { ok: false, reason: "missing asaas-access-token header" };
    return verifySharedSecret(token, secrets, "asaas-access-token");
  },

  parse(raw, { timeZone }) {
    const json = parseJson(raw);
    const event = parseWith(eventSchema, json, "not an Asaas event");
    const time = fromLocalTime(event.dateCreated, timeZone);
    if (!time) throw new ParseError(`dateCreated "${event.dateCreated}" is not "YYYY-MM-DD HH:MM:SS"`);
    const payment = event.payment ? parseWith(paymentSchema, event.payment, `${event.event}: payment`) : null;
    const named = TYPE_STATUS[event.event] !== undefined || PAYMENT_STATUS_TYPES.has(event.event);
    if (named && !payment) throw new ParseError(`${event.event} has no payment`);
    const status = payment
      ? (TYPE_STATUS[event.event] ?? (PAYMENT_STATUS_TYPES.has(event.event) ? knownStatus(payment) : undefined))
      : undefined;
    return toNormalizedEvent({
      eventId: event.id,
      eventIdDerived: false,
      type: event.event,
      resourceId: payment?.id ?? null,
      ...time,
      customerId: payment?.customer ?? null,
      customerEmail: null,
      charge: payment && status ? snapshotOf(payment, status, event.event) : null,
      payload: json,
    });
  },

  async refetch(paymentId, fetchJson, context) {
    const body = await fetchJson(`/payments/${encodeURIComponent(paymentId)}`);
    return paymentToSnapshot(parseWith(paymentSchema, body, "refetched Asaas payment"), context?.eventType);
  },
};
