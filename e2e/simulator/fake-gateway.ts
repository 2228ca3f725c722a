import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { loadConfig } from "@/lib/config/env";
import { PROVIDER_NAMES, type ProviderName } from "@/lib/providers/registry";
import type { ApiCredentials } from "@/lib/providers/types";
import { generateSigningKey, type SigningKey } from "@/lib/testing/jwks-server";
import type { PaymentHistory } from "./history";

// A fake of every gateway's API that knows the true current state of every simulated payment, for
// the refetch strategy. Each gateway is spoken its own way (paths, authentication, resource shape),
// and the authentication each request carries is checked (401 otherwise), independently of the
// drivers' own code:
//   Stripe        GET /v1/charges/{id}, GET /v1/disputes?charge={id}      Bearer <key>
//   Standard      GET /payments/{id}                                     Bearer <key> when one is configured
//   Asaas         GET /v3/payments/{id}                                  access_token: <key>
//   Pagar.me      GET /core/v5/charges/{id}                              Basic base64("<key>:")
//   Mercado Pago  GET /v1/payments/{id}                                  Bearer <key>
//   Zoop          GET /v1/marketplaces/{marketplace}/transactions/{id}   Basic base64("<key>:")
// It also publishes Pagar.me's webhook signing key at /.well-known/jwks.json, and serves each
// gateway's list API for reconciliation, with that API's filters, paging and shapes:
//   Stripe        GET /v1/events?created[gte]&created[lt]&types[]&limit&starting_after   newest first, has_more
//   Mercado Pago  GET /v1/payments/search?range=date_last_updated&begin_date&end_date&offset&limit   paging.total
//   Asaas         GET /v3/payments?dateCreated[ge]&dateCreated[le]&offset&limit          hasMore (days in São Paulo)
//   Pagar.me      GET /core/v5/charges?created_since&created_until&page&size             paging.next
//   Zoop          GET /v1/marketplaces/{marketplace}/transactions?date_range[gte]&date_range[lte]&offset&limit   has_more
// Stripe lists the events it was given (addEvents: the simulator's, sent or withheld); the
// others list the payments they know, in their true current state. A Stripe payment added for a
// connected account (addConnected) is read only with `Stripe-Account: <its acct_>`, any other read
// (none: the platform's own account) answering 404 as Stripe does (docs.stripe.com/connect/authentication);
// Stripe events added for a connected account are listed only with that header. A payment added for
// another account of a gateway (addAccount: an Asaas subaccount, a Mercado Pago seller) is read and
// listed only with that account's own credentials, which the fake accepts beside the default ones;
// read with another account's, it is 404, as a gateway that scopes objects to the key's account says.

/** The API credentials the fake gateway accepts by default (tests point the app's keys at them). */
export const FAKE_GATEWAY_KEYS = {
  stripe: "sk_test_fake_gateway",
  standard: "fake_gateway_standard_key",
  pagarme: "sk_test_pagarme_fake_gateway",
  asaas: "$aact_test_fake_gateway",
  mercadopago: "TEST-fake-gateway-mercadopago",
  zoop: "zpk_test_fake_gateway",
  zoopMarketplace: "3249465a7753536b62545a6a684b0000",
} as const;

/** The app's environment for refetching through a fake gateway at `url` (every API, its keys, Pagar.me's JWKS). */
export function fakeGatewayEnv(url: string): Record<string, string> {
  return {
    STRIPE_API_URL: url,
    STRIPE_API_KEY: FAKE_GATEWAY_KEYS.stripe,
    STANDARD_API_URL: url,
    STANDARD_API_KEY: FAKE_GATEWAY_KEYS.standard,
    ASAAS_API_URL: `${url}/v3`,
    ASAAS_API_KEY: FAKE_GATEWAY_KEYS.asaas,
    PAGARME_API_URL: `${url}/core/v5`,
    PAGARME_API_KEY: FAKE_GATEWAY_KEYS.pagarme,
    PAGARME_JWKS_URL: `${url}/.well-known/jwks.json`,
    MERCADOPAGO_API_URL: url,
    MERCADOPAGO_API_KEY: FAKE_GATEWAY_KEYS.mercadopago,
    ZOOP_API_URL: `${url}/v1`,
    ZOOP_API_KEY: FAKE_GATEWAY_KEYS.zoop,
    ZOOP_MARKETPLACE_ID: FAKE_GATEWAY_KEYS.zoopMarketplace,
  };
}

function disputesOf(history: PaymentHistory): string[] {
  const statuses: string[] = [];
  for (const step of history.steps) {
    if (step.kind === "dispute_opened") statuses.push("needs_response");
    if (step.kind === "dispute_won" || step.kind === "dispute_lost") {
      // A history may start at the outcome (tests): the dispute was opened before it.
      if (statuses.length === 0) statuses.push("needs_response");
      statuses[statuses.length - 1] = step.kind === "dispute_won" ? "won" : "lost";
    }
  }
  return statuses;
}

/** The charge before its disputes: what a refetch reads first. */
function chargeStatusBeforeDisputes(history: PaymentHistory) {
  const lastMoneyStep = [...history.steps].reverse().find((step) => !step.kind.startsWith("dispute_"));
  return lastMoneyStep?.kind ?? "succeeded";
}

export function stripeChargeOf(history: PaymentHistory) {
  const { payment } = history;
  const kind = chargeStatusBeforeDisputes(history);
  const refunded = history.steps.reduce((max, step) => Math.max(max, step.amountRefunded), 0);
  const uncaptured = kind === "authorized" || kind === "canceled";
  return {
    id: payment.chargeId,
    object: "charge",
    amount: payment.amount,
    amount_captured: uncaptured ? 0 : payment.amount,
    amount_refunded: kind === "canceled" ? payment.amount : refunded,
    captured: !uncaptured,
    refunded: kind === "canceled" || refunded >= payment.amount,
    // Documented since the `dispute` field went away: whether the charge was ever disputed.
    disputed: disputesOf(history).length > 0,
    currency: payment.currency,
    customer: payment.customerId,
    receipt_email: payment.customerEmail,
    payment_intent: payment.integration ? `pi_${payment.chargeId.slice(3)}` : null,
    status: kind === "pending" ? "pending" : kind === "failed" ? "failed" : "succeeded",
  };
}

/** `GET /v1/disputes?charge=...`: a Stripe list object of the charge's disputes. */
export function stripeDisputesOf(history: PaymentHistory) {
  const { payment } = history;
  return {
    object: "list",
    url: "/v1/disputes",
    has_more: false,
    data: disputesOf(history).map((status, index) => ({
      id: `dp_${payment.chargeId.slice(3)}_${index + 1}`,
      object: "dispute",
      amount: payment.amount,
      charge: payment.chargeId,
      currency: payment.currency,
      status,
    })),
  };
}

export function standardPaymentOf(history: PaymentHistory) {
  const { payment, truth } = history;
  if (payment.integration !== "dodo") {
    return {
      payment_id: payment.chargeId,
      status: truth.status,
      amount: payment.amount,
      amount_refunded: truth.amountRefunded,
      currency: payment.currency,
      customer: { id: payment.customerId, email: payment.customerEmail },
    };
  }
  // Dodo Payments' payment object: its own status words, refunds and disputes listed.
  const kind = chargeStatusBeforeDisputes(history);
  const status =
    { pending: "processing", authorized: "requires_capture", failed: "failed", canceled: "cancelled" }[kind as string] ?? "succeeded";
  const refunds = history.steps.flatMap((step, index) =>
    step.kind === "refund"
      ? [
          {
            refund_id: `ref_${index}`,
            payment_id: payment.chargeId,
            amount: step.amountRefunded - (history.steps[index - 1]?.amountRefunded ?? 0),
            status: "succeeded",
          },
        ]
      : [],
  );
  const disputeWords: Record<string, string> = { needs_response: "dispute_opened", won: "dispute_won", lost: "dispute_lost" };
  return {
    payment_id: payment.chargeId,
    status,
    total_amount: payment.amount,
    currency: payment.currency.toUpperCase(),
    customer: { customer_id: payment.customerId, email: payment.customerEmail, name: "Simulated Customer" },
    refunds,
    disputes: disputesOf(history).map((dispute, index) => ({
      dispute_id: `dsp_${index}`,
      payment_id: payment.chargeId,
      dispute_status: disputeWords[dispute],
    })),
    payload_type: "Payment",
  };
}

const reais = (cents: number) => cents / 100;

const ASAAS_STATUS: Record<string, string> = {
  pending: "PENDING",
  authorized: "AUTHORIZED",
  paid: "RECEIVED",
  partially_refunded: "RECEIVED",
  refunded: "REFUNDED",
  disputed: "CHARGEBACK_REQUESTED",
  canceled: "PENDING",
};

/** GET /v3/payments/{id} (Asaas's payment object; refunds listed with their status). */
export function asaasPaymentOf({ payment, truth }: PaymentHistory) {
  return {
    object: "payment",
    id: payment.chargeId,
    customer: payment.customerId,
    value: reais(payment.amount),
    status: ASAAS_STATUS[truth.status],
    deleted: truth.status === "canceled",
    refunds: truth.amountRefunded > 0 ? [{ status: "DONE", value: reais(truth.amountRefunded) }] : null,
  };
}

/**
 * GET /core/v5/charges/{id}. A charge refunded in full shows as a published test-account
 * charge.refunded shows it: canceled, with canceled_amount equal to the amount and neither paid_at
 * nor paid_amount (only the ledger knows it was paid, see decideChargeUpdate).
 */
export function pagarmeChargeOf({ payment, truth, steps }: PaymentHistory) {
  const status = truth.status === "refunded" ? "canceled" : truth.status === "partially_refunded" ? "paid" : truth.status;
  const paidAt = status === "canceled" ? undefined : steps.find((step) => step.kind === "succeeded");
  return {
    id: payment.chargeId,
    code: payment.chargeId.slice(-8),
    amount: payment.amount,
    currency: "BRL",
    status,
    ...(paidAt ? { paid_at: new Date(paidAt.occurredAtMs).toISOString() } : {}),
    ...(status === "paid" ? { paid_amount: payment.amount } : {}),
    ...(truth.amountRefunded > 0 ? { canceled_amount: truth.amountRefunded } : {}),
    customer: { id: payment.customerId, email: payment.customerEmail },
  };
}

const MERCADOPAGO_STATUS: Record<string, string> = {
  pending: "pending",
  authorized: "authorized",
  paid: "approved",
  partially_refunded: "approved",
  refunded: "refunded",
  failed: "rejected",
  canceled: "cancelled",
  disputed: "in_mediation",
  charged_back: "charged_back",
};

/** GET /v1/payments/{id} (amounts in reais). */
export function mercadopagoPaymentOf({ payment, truth }: PaymentHistory) {
  return {
    id: payment.chargeId,
    status: MERCADOPAGO_STATUS[truth.status],
    transaction_amount: reais(payment.amount),
    transaction_amount_refunded: reais(truth.amountRefunded),
    currency_id: "BRL",
    payer: { id: payment.customerId, email: payment.customerEmail },
  };
}

const ZOOP_STATUS: Record<string, string> = {
  pending: "pending",
  authorized: "pre_authorized",
  paid: "succeeded",
  partially_refunded: "succeeded",
  refunded: "canceled",
  failed: "failed",
  canceled: "canceled",
  disputed: "dispute",
  charged_back: "charged_back",
};

/** GET /v1/marketplaces/{mp}/transactions/{id}: a refund is a void of the captured transaction. */
export function zoopTransactionOf({ payment, truth }: PaymentHistory) {
  const captured = !["pending", "authorized", "failed", "canceled"].includes(truth.status);
  const history = [{ operation_type: "authorization", status: "succeeded", amount: reais(payment.amount).toFixed(2) }];
  if (truth.amountRefunded > 0)
    history.push({ operation_type: "void", status: "succeeded", amount: reais(truth.amountRefunded).toFixed(2) });
  return {
    id: payment.chargeId,
    resource: "transaction",
    status: ZOOP_STATUS[truth.status],
    amount: reais(payment.amount).toFixed(2),
    currency: "BRL",
    customer: payment.customerId,
    captured,
    voided: truth.status === "refunded" || truth.status === "canceled",
    refunded: false,
    history,
  };
}

type Route = { provider: ProviderName; path: RegExp; resource: (history: PaymentHistory) => unknown };

/** A Stripe event the fake gateway lists (its body as the webhook carries it). */
export type ListedStripeEvent = { id: string; created: number; type: string };

type ListContext = { query: URLSearchParams; histories: PaymentHistory[]; events: ListedStripeEvent[] };

/**
 * Whose objects a request reads: null for the default credentials' own (the platform), `acct:<id>`
 * for a Stripe connected account (the platform's key plus Stripe-Account), `key:<apiKey>` for an
 * account of its own credentials.
 */
type Owner = string | null;

const firstMs = (history: PaymentHistory) => history.steps[0]!.occurredAtMs;
const lastMs = (history: PaymentHistory) => history.steps.at(-1)!.occurredAtMs;
/** A gateway's payments whose time (`at`) passes `within`, oldest first. */
function listed(
  histories: PaymentHistory[],
  provider: ProviderName,
  at: (history: PaymentHistory) => number,
  within: (ms: number) => boolean,
) {
  return histories.filter((history) => history.provider === provider && within(at(history))).sort((a, b) => at(a) - at(b));
}
/** Between two ISO times (either may be absent), both inclusive. */
const between = (from: string | null, to: string | null) => (ms: number) =>
  (from === null || ms >= Date.parse(from)) && (to === null || ms <= Date.parse(to));
/** The list's own times of a payment: its first step and its last. */
const times = (history: PaymentHistory) => ({
  created: new Date(firstMs(history)).toISOString(),
  updated: new Date(lastMs(history)).toISOString(),
});
const int = (value: string | null, fallback: number) => (value === null ? fallback : Number(value));

/** `GET /v1/events`: newest first (ties by id, so pages are stable), `starting_after` an event id. */
function stripeEventList({ query, events }: ListContext) {
  const gte = int(query.get("created[gte]"), 0);
  const lt = int(query.get("created[lt]"), Number.MAX_SAFE_INTEGER);
  const types = query.getAll("types[]");
  const limit = Math.min(int(query.get("limit"), 10), 100);
  // `events` is kept newest first (ties by id), so pages are stable.
  const matching = events.filter(
    (event) => event.created >= gte && event.created < lt && (types.length === 0 || types.includes(event.type)),
  );
  const after = query.get("starting_after");
  const start = after === null ? 0 : matching.findIndex((event) => event.id === after) + 1;
  const data = matching.slice(start, start + limit);
  return { object: "list", url: "/v1/events", has_more: start + limit < matching.length, data };
}

/** `GET /v1/payments/search`, by date_last_updated (the last step), ascending. */
function mercadopagoSearch({ query, histories }: ListContext) {
  const offset = int(query.get("offset"), 0);
  const limit = int(query.get("limit"), 30);
  const matching = listed(histories, "mercadopago", lastMs, between(query.get("begin_date"), query.get("end_date")));
  const results = matching.slice(offset, offset + limit).map((history) => {
    const { created, updated } = times(history);
    return { ...mercadopagoPaymentOf(history), date_created: created, date_last_updated: updated };
  });
  return { paging: { total: matching.length, limit, offset }, results };
}

const saoPauloDay = (ms: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo", year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);

/** `GET /v3/payments`, by creation day in São Paulo. */
function asaasPaymentList({ query, histories }: ListContext) {
  const offset = int(query.get("offset"), 0);
  const limit = Math.min(int(query.get("limit"), 10), 100);
  const from = query.get("dateCreated[ge]");
  const to = query.get("dateCreated[le]");
  const matching = listed(
    histories,
    "asaas",
    firstMs,
    (ms) => (from === null || saoPauloDay(ms) >= from) && (to === null || saoPauloDay(ms) <= to),
  );
  const data = matching
    .slice(offset, offset + limit)
    .map((history) => ({ ...asaasPaymentOf(history), dateCreated: saoPauloDay(firstMs(history)) }));
  return { object: "list", hasMore: offset + limit < matching.length, totalCount: matching.length, limit, offset, data };
}

/** `GET /core/v5/charges`, by creation time, pages numbered from 1. */
function pagarmeChargeList({ query, histories }: ListContext) {
  const page = int(query.get("page"), 1);
  const size = int(query.get("size"), 10);
  const matching = listed(histories, "pagarme", firstMs, between(query.get("created_since"), query.get("created_until")));
  const data = matching.slice((page - 1) * size, page * size).map((history) => {
    const { created, updated } = times(history);
    return { ...pagarmeChargeOf(history), created_at: created, updated_at: updated };
  });
  const pages = Math.ceil(matching.length / size);
  const link = (to: number) => `/core/v5/charges?${new URLSearchParams({ ...Object.fromEntries(query), page: String(to) })}`;
  return {
    data,
    paging: { total: pages, ...(page > 1 ? { previous: link(page - 1) } : {}), ...(page < pages ? { next: link(page + 1) } : {}) },
  };
}

/**
 * `GET /v1/marketplaces/{id}/transactions`, by creation time, ascending; as a recorded answer has it,
 * at most 100 a page and `total`/`query_count` written as strings.
 */
function zoopTransactionList({ query, histories }: ListContext) {
  const offset = int(query.get("offset"), 0);
  const limit = Math.min(int(query.get("limit"), 20), 100);
  const matching = listed(histories, "zoop", firstMs, between(query.get("date_range[gte]"), query.get("date_range[lte]")));
  const items = matching.slice(offset, offset + limit).map((history) => {
    const { created, updated } = times(history);
    return { ...zoopTransactionOf(history), created_at: created, updated_at: updated };
  });
  const total = String(matching.length);
  return { resource: "list", items, has_more: offset + limit < matching.length, total, query_count: total, offset, limit };
}

type ListRoute = { provider: ProviderName; path: RegExp; list: (context: ListContext) => unknown };

const LIST_ROUTES: ListRoute[] = [
  { provider: "stripe", path: /^\/v1\/events(?:\?|$)/, list: stripeEventList },
  { provider: "mercadopago", path: /^\/v1\/payments\/search(?:\?|$)/, list: mercadopagoSearch },
  { provider: "asaas", path: /^\/v3\/payments(?:\?|$)/, list: asaasPaymentList },
  { provider: "pagarme", path: /^\/core\/v5\/charges(?:\?|$)/, list: pagarmeChargeList },
  { provider: "zoop", path: /^\/v1\/marketplaces\/[^/]+\/transactions(?:\?|$)/, list: zoopTransactionList },
];

const ROUTES: Route[] = [
  { provider: "stripe", path: /^\/v1\/charges\/([^/?]+)/, resource: stripeChargeOf },
  { provider: "stripe", path: /^\/v1\/disputes\?(?:.*&)?charge=([^&]+)/, resource: stripeDisputesOf },
  { provider: "mercadopago", path: /^\/v1\/payments\/([^/?]+)/, resource: mercadopagoPaymentOf },
  { provider: "asaas", path: /^\/v3\/payments\/([^/?]+)/, resource: asaasPaymentOf },
  { provider: "pagarme", path: /^\/core\/v5\/charges\/([^/?]+)/, resource: pagarmeChargeOf },
  { provider: "zoop", path: /^\/v1\/marketplaces\/[^/]+\/transactions\/([^/?]+)/, resource: zoopTransactionOf },
  { provider: "standard", path: /^\/payments\/([^/?]+)/, resource: standardPaymentOf },
];

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

/** Does the request carry this gateway's authentication, as that gateway expects it? */
function authenticated(provider: ProviderName, request: IncomingMessage, path: string, credentials: ApiCredentials): boolean {
  const { apiKey, marketplaceId } = credentials;
  const authorization = request.headers.authorization;
  switch (provider) {
    case "stripe":
    case "mercadopago":
      return apiKey !== undefined && authorization === `Bearer ${apiKey}`;
    case "standard":
      return apiKey === undefined || authorization === `Bearer ${apiKey}`;
    case "asaas":
      return apiKey !== undefined && request.headers.access_token === apiKey && authorization === undefined;
    case "pagarme":
      return apiKey !== undefined && authorization === basic(apiKey);
    case "zoop":
      return (
        apiKey !== undefined &&
        authorization === basic(apiKey) &&
        path.startsWith(`/v1/marketplaces/${encodeURIComponent(marketplaceId ?? "")}/`)
      );
  }
}

export type GatewayCredentials = Record<ProviderName, ApiCredentials>;

/** FAKE_GATEWAY_KEYS by provider: what the fake gateway accepts unless told otherwise. */
export function testGatewayCredentials(): GatewayCredentials {
  const { providers } = loadConfig(fakeGatewayEnv("http://127.0.0.1"));
  return Object.fromEntries(PROVIDER_NAMES.map((name) => [name, providers[name].credentials])) as GatewayCredentials;
}

export type FakeGateway = {
  url: string;
  /**
   * When each request arrived (ms), for rate-limit checks, whether its authentication was right, and
   * whose objects it read (`as`: null the default credentials' own, `acct:<id>`, `key:<apiKey>`).
   */
  requests: { path: string; at: number; authorized: boolean; stripeAccount: string | null; as: Owner }[];
  /** Pagar.me's webhook signing key, published at `${url}/.well-known/jwks.json`. */
  pagarmeKey: SigningKey;
  /** The Stripe events GET /v1/events lists (sent or not); a connected account's only with its Stripe-Account. */
  addEvents: (events: ListedStripeEvent[], connectedAccount?: string) => void;
  /**
   * Answers requests whose path matches instead of the fake (a 429, a 500, an odd page; a Readable
   * body is streamed as is); return undefined to let the fake answer. Null removes it.
   */
  intercept: (handler: ((path: string) => { status: number; body: unknown } | undefined) | null) => void;
  /** Forgets every payment and event it was given (between tests that list). */
  reset: () => void;
  /** While down, every request gets 503. */
  setDown: (down: boolean) => void;
  /** Answers only after this many milliseconds (a slow gateway, for timeouts). */
  setDelay: (ms: number) => void;
  add: (histories: PaymentHistory[]) => void;
  /** Stripe payments that live in the connected account `account` (acct_...), not the platform's. */
  addConnected: (account: string, histories: PaymentHistory[]) => void;
  /** Payments of another account of their gateway, read and listed only with its own `credentials`. */
  addAccount: (credentials: ApiCredentials, histories: PaymentHistory[]) => void;
  close: () => Promise<void>;
};

export async function startFakeGateway(
  histories: PaymentHistory[] = [],
  port = 0,
  credentials: GatewayCredentials = testGatewayCredentials(),
): Promise<FakeGateway> {
  const byCharge = new Map<string, PaymentHistory>();
  const add = (more: PaymentHistory[]) => more.forEach((history) => byCharge.set(history.payment.chargeId, history));
  add(histories);
  // Whose each payment (by charge id) and each listed Stripe event (by id) is: absent, the default's.
  const owners = new Map<string, string>();
  const eventOwners = new Map<string, string>();
  // The credentials of other accounts, by provider: accepted besides the default ones.
  const accountCredentials = new Map<ProviderName, ApiCredentials[]>();
  /** Whose objects a request with these headers reads, or undefined when no known credentials authenticate it. */
  const ownerOf = (provider: ProviderName, request: IncomingMessage, path: string, stripeAccount: string | null): Owner | undefined => {
    if (authenticated(provider, request, path, credentials[provider])) return stripeAccount === null ? null : `acct:${stripeAccount}`;
    const account = (accountCredentials.get(provider) ?? []).find((candidate) => authenticated(provider, request, path, candidate));
    return account ? `key:${account.apiKey}` : undefined;
  };
  // A new kid per start: an app that cached an earlier run's key must fetch this one.
  const pagarmeKey = generateSigningKey(`fake-gateway-${randomBytes(6).toString("hex")}`);
  const requests: FakeGateway["requests"] = [];
  const events: ListedStripeEvent[] = [];
  let interceptor: ((path: string) => { status: number; body: unknown } | undefined) | null = null;
  let down = false;
  let delayMs = 0;
  const server: Server = createServer(async (request, response) => {
    const path = request.url ?? "/";
    const listRoute = LIST_ROUTES.find((candidate) => candidate.path.test(path));
    const route = listRoute ? undefined : ROUTES.find((candidate) => candidate.path.test(path));
    const provider = listRoute?.provider ?? route?.provider;
    const stripeAccount = [request.headers["stripe-account"]].flat()[0] ?? null;
    const as = provider === undefined ? undefined : ownerOf(provider, request, path, stripeAccount);
    const authorized = as !== undefined;
    requests.push({ path, at: Date.now(), authorized, stripeAccount, as: as ?? null });
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs));
    if (down) return reply(503, { error: "gateway unavailable (simulated)" });
    if (path === "/.well-known/jwks.json") return reply(200, { keys: [pagarmeKey.jwk] });
    if (!provider) return reply(404, { error: `no such API: ${path}` });
    if (!authorized) return reply(401, { error: `${provider}: missing or wrong API credentials (simulated gateway)` });
    const intercepted = interceptor?.(path);
    if (intercepted?.body instanceof Readable) {
      response.writeHead(intercepted.status, { "content-type": "application/json" });
      return void intercepted.body.pipe(response);
    }
    if (intercepted) return reply(intercepted.status, intercepted.body);
    if (listRoute) {
      const query = new URLSearchParams(path.slice(path.indexOf("?") + 1 || path.length));
      const own = (key: string) => (owners.get(key) ?? null) === as;
      return reply(
        200,
        listRoute.list({
          query,
          histories: [...byCharge.values()].filter((history) => own(history.payment.chargeId)),
          events: events.filter((event) => (eventOwners.get(event.id) ?? null) === as),
        }),
      );
    }
    if (!route) return reply(404, { error: `no such API: ${path}` });
    const id = decodeURIComponent(route.path.exec(path)![1]!);
    const history = byCharge.get(id);
    const elsewhere = (owners.get(id) ?? null) !== as;
    if (!history || history.provider !== route.provider || elsewhere) {
      return reply(404, { error: { code: "resource_missing", message: `No such charge: '${id}'` } });
    }
    return reply(200, route.resource(history));
  });
  // A busy port rejects (EADDRINUSE) instead of crashing the process: the caller says which option moves it.
  await new Promise<void>((ready, fail) => server.once("error", fail).listen(port, "127.0.0.1", ready));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    pagarmeKey,
    setDown: (value) => {
      down = value;
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    add,
    addConnected: (account, more) => {
      add(more);
      for (const history of more) owners.set(history.payment.chargeId, `acct:${account}`);
    },
    addAccount: (own, more) => {
      add(more);
      for (const history of more) {
        owners.set(history.payment.chargeId, `key:${own.apiKey}`);
        const known = accountCredentials.get(history.provider) ?? [];
        if (!known.some((candidate) => candidate.apiKey === own.apiKey)) accountCredentials.set(history.provider, [...known, own]);
      }
    },
    addEvents: (more, connectedAccount) => {
      for (const event of more) {
        events.push(event);
        if (connectedAccount) eventOwners.set(event.id, `acct:${connectedAccount}`);
      }
      events.sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
    },
    reset: () => {
      byCharge.clear();
      owners.clear();
      eventOwners.clear();
      accountCredentials.clear();
      events.length = 0;
    },
    intercept: (handler) => {
      interceptor = handler;
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
