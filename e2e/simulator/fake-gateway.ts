import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
// It also publishes Pagar.me's webhook signing key at /.well-known/jwks.json.

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
  const status = { pending: "processing", authorized: "requires_capture", failed: "failed", canceled: "cancelled" }[kind as string] ?? "succeeded";
  const refunds = history.steps.flatMap((step, index) =>
    step.kind === "refund" ? [{ refund_id: `ref_${index}`, payment_id: payment.chargeId, amount: step.amountRefunded - (history.steps[index - 1]?.amountRefunded ?? 0), status: "succeeded" }] : [],
  );
  const disputeWords: Record<string, string> = { needs_response: "dispute_opened", won: "dispute_won", lost: "dispute_lost" };
  return {
    payment_id: payment.chargeId,
    status,
    total_amount: payment.amount,
    currency: payment.currency.toUpperCase(),
    customer: { customer_id: payment.customerId, email: payment.customerEmail, name: "Simulated Customer" },
    refunds,
    disputes: disputesOf(history).map((dispute, index) => ({ dispute_id: `dsp_${index}`, payment_id: payment.chargeId, dispute_status: disputeWords[dispute] })),
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
 * GET /core/v5/charges/{id}. A charge refunded in full shows as Pagar.me shows it: canceled, with
 * canceled_amount equal to the amount, paid_at kept and no paid_amount (see the driver).
 */
export function pagarmeChargeOf({ payment, truth, steps }: PaymentHistory) {
  const paidAt = steps.find((step) => step.kind === "succeeded");
  const status = truth.status === "refunded" ? "canceled" : truth.status === "partially_refunded" ? "paid" : truth.status;
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
  if (truth.amountRefunded > 0) history.push({ operation_type: "void", status: "succeeded", amount: reais(truth.amountRefunded).toFixed(2) });
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
      return apiKey !== undefined && authorization === basic(apiKey) && path.startsWith(`/v1/marketplaces/${encodeURIComponent(marketplaceId ?? "")}/`);
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
  /** When each request arrived (ms), for rate-limit checks, and whether its authentication was right. */
  requests: { path: string; at: number; authorized: boolean }[];
  /** Pagar.me's webhook signing key, published at `${url}/.well-known/jwks.json`. */
  pagarmeKey: SigningKey;
  /** While down, every request gets 503. */
  setDown: (down: boolean) => void;
  /** Answers only after this many milliseconds (a slow gateway, for timeouts). */
  setDelay: (ms: number) => void;
  add: (histories: PaymentHistory[]) => void;
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
  // A new kid per start: an app that cached an earlier run's key must fetch this one.
  const pagarmeKey = generateSigningKey(`fake-gateway-${randomBytes(6).toString("hex")}`);
  const requests: FakeGateway["requests"] = [];
  let down = false;
  let delayMs = 0;
  const server: Server = createServer(async (request, response) => {
    const path = request.url ?? "/";
    const route = ROUTES.find((candidate) => candidate.path.test(path));
    const authorized = route !== undefined && authenticated(route.provider, request, path, credentials[route.provider]);
    requests.push({ path, at: Date.now(), authorized });
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs));
    if (down) return reply(503, { error: "gateway unavailable (simulated)" });
    if (path === "/.well-known/jwks.json") return reply(200, { keys: [pagarmeKey.jwk] });
    if (!route) return reply(404, { error: `no such API: ${path}` });
    if (!authorized) return reply(401, { error: `${route.provider}: missing or wrong API credentials (simulated gateway)` });
    const id = decodeURIComponent(route.path.exec(path)![1]!);
    const history = byCharge.get(id);
    if (!history || history.provider !== route.provider) return reply(404, { error: { message: `No such charge: ${id}` } });
    return reply(200, route.resource(history));
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
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
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
