import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PaymentHistory } from "./history";

// A fake gateway API that knows the true current state of every simulated payment, for the
// refetch strategy, speaking each API as documented and checking its authentication: Stripe's
// `GET /v1/charges/{id}` and `GET /v1/disputes?charge={id}` (Bearer secret key), and the Standard
// Webhooks sender's `GET /payments/{id}` (Bearer; Dodo Payments' shape for its payments).

/** The API keys the fake gateway accepts; point STRIPE_API_KEY / STANDARD_API_KEY at them. */
export const FAKE_GATEWAY_KEYS = { stripe: "sk_test_fake_gateway", standard: "fake_gateway_standard_key" } as const;

/** The app's environment for refetching through a fake gateway at `url` (both APIs, their keys). */
export function fakeGatewayEnv(url: string): Record<string, string> {
  return { STRIPE_API_URL: url, STRIPE_API_KEY: FAKE_GATEWAY_KEYS.stripe, STANDARD_API_URL: url, STANDARD_API_KEY: FAKE_GATEWAY_KEYS.standard };
}

/** Each dispute of a charge, in order: every opening starts one, a won or lost step closes the last. */
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

export type FakeGateway = {
  url: string;
  /** When each request arrived (ms), for rate-limit checks. */
  requests: { path: string; at: number }[];
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
  keys: { stripe: string; standard: string } = FAKE_GATEWAY_KEYS,
): Promise<FakeGateway> {
  const byCharge = new Map<string, PaymentHistory>();
  const add = (more: PaymentHistory[]) => more.forEach((history) => byCharge.set(history.payment.chargeId, history));
  add(histories);
  const requests: FakeGateway["requests"] = [];
  let down = false;
  let delayMs = 0;
  const server: Server = createServer(async (request, response) => {
    const path = request.url ?? "/";
    requests.push({ path, at: Date.now() });
    if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs));
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (down) return reply(503, { error: "gateway unavailable (simulated)" });
    const url = new URL(path, "http://fake-gateway");
    const stripe = url.pathname.startsWith("/v1/");
    if (request.headers.authorization !== `Bearer ${stripe ? keys.stripe : keys.standard}`) {
      return reply(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided (fake gateway)" } });
    }
    const charge = /^\/v1\/charges\/([^/]+)$/.exec(url.pathname);
    const payment = /^\/payments\/([^/]+)$/.exec(url.pathname);
    const disputes = url.pathname === "/v1/disputes" ? url.searchParams.get("charge") : null;
    const id = decodeURIComponent(charge?.[1] ?? payment?.[1] ?? disputes ?? "");
    const history = byCharge.get(id);
    if (!history) return reply(404, { error: { type: "invalid_request_error", message: `No such charge: ${id}` } });
    if (charge) return reply(200, stripeChargeOf(history));
    if (disputes) return reply(200, stripeDisputesOf(history));
    if (payment) return reply(200, standardPaymentOf(history));
    return reply(404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (GET: ${url.pathname})` } });
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
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
