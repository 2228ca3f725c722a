import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PaymentHistory } from "./history";

// A fake gateway API that knows the true current state of every simulated payment, for the
// refetch strategy: Stripe's `GET /v1/charges/{id}` (dispute expanded) and the Standard Webhooks
// convention `GET /payments/{id}` (see lib/providers/standard.ts).

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

export async function startFakeGateway(histories: PaymentHistory[] = [], port = 0): Promise<FakeGateway> {
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
    const stripe = /^\/v1\/charges\/([^/?]+)/.exec(path);
    const standard = /^\/payments\/([^/?]+)/.exec(path);
    const id = decodeURIComponent((stripe ?? standard)?.[1] ?? "");
    const history = byCharge.get(id);
    if (!history) return reply(404, { error: { message: `No such charge: ${id}` } });
    return reply(200, stripe ? stripeChargeOf(history) : standardPaymentOf(history));
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
