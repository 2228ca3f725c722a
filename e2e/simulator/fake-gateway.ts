import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@/lib/config/env";
import { PROVIDER_NAMES, type ProviderName } from "@/lib/config/provider-names";
import type { ApiCredentials } from "@/lib/providers/types";
import { generateSigningKey, type SigningKey } from "@/lib/testing/jwks-server";
import { TEST_API_ENV } from "@/lib/testing/test-app";
import type { PaymentHistory } from "./history";

// A fake of every gateway's API that knows the true current state of every simulated payment, for
// the refetch strategy. Each gateway is spoken its own way (paths, authentication, resource shape),
// and the authentication each request carries is checked (401 otherwise), independently of the
// drivers' own code:
//   Stripe        GET /v1/charges/{id}                                   Bearer <key>
//   Standard      GET /payments/{id}                                     Bearer <key> when one is configured
//   Asaas         GET /v3/payments/{id}                                  access_token: <key>
//   Pagar.me      GET /core/v5/charges/{id}                              Basic base64("<key>:")
//   Mercado Pago  GET /v1/payments/{id}                                  Bearer <key>
//   Zoop          GET /v1/marketplaces/{marketplace}/transactions/{id}   Basic base64("<key>:")
// It also publishes Pagar.me's webhook signing key at /.well-known/jwks.json.

function lastDispute(history: PaymentHistory): string | null {
  const kinds = history.steps.map((step) => step.kind);
  if (kinds.includes("dispute_lost")) return "lost";
  if (kinds.includes("dispute_won")) return "won";
  if (kinds.includes("dispute_opened")) return "needs_response";
  return null;
}

export function stripeChargeOf(history: PaymentHistory) {
  const { payment, truth } = history;
  const dispute = lastDispute(history);
  const uncaptured = truth.status === "authorized" || truth.status === "canceled";
  return {
    id: payment.chargeId,
    object: "charge",
    amount: payment.amount,
    amount_refunded: truth.status === "canceled" ? payment.amount : truth.amountRefunded,
    captured: !uncaptured,
    refunded: truth.status === "refunded" || truth.status === "canceled",
    currency: payment.currency,
    customer: payment.customerId,
    receipt_email: payment.customerEmail,
    status: truth.status === "pending" ? "pending" : truth.status === "failed" ? "failed" : "succeeded",
    dispute: dispute ? { id: `dp_${payment.chargeId}`, object: "dispute", charge: payment.chargeId, status: dispute } : null,
  };
}

export function standardPaymentOf(history: PaymentHistory) {
  const { payment, truth } = history;
  return {
    payment_id: payment.chargeId,
    status: truth.status,
    amount: payment.amount,
    amount_refunded: truth.amountRefunded,
    currency: payment.currency,
    customer: { id: payment.customerId, email: payment.customerEmail },
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

/** The credentials tests configure (TEST_API_ENV): what the fake gateway accepts unless told otherwise. */
export function testGatewayCredentials(): GatewayCredentials {
  const { providers } = loadConfig(TEST_API_ENV);
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
