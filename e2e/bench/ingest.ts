import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { appConfig } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { deliveryFor, randomId, type PaymentFacts } from "../simulator/gateway-events";

// `npm run bench:ingest -- [--url U] [--connections N] [--seconds S]`: ingest throughput of a
// running app (npm start), measured with autocannon. Two runs: every request a new signed Stripe
// event (insert + enqueue), then one event sent over and over (the duplicate path).

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    url: { type: "string", default: "http://localhost:3000" },
    connections: { type: "string", default: "32" },
    seconds: { type: "string", default: "15" },
  },
});
loadEnvFiles({ developmentDefaults: true });
const secret = appConfig().providers.stripe.secrets[0];
if (!secret) throw new Error("WEBHOOK_SECRET_STRIPE is not set");

function signedEvent() {
  const payment: PaymentFacts = {
    chargeId: randomId("ch"),
    amount: 1999,
    currency: "usd",
    customerId: "cus_bench",
    customerEmail: "bench@example.com",
  };
  return deliveryFor("stripe", payment, { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() }, secret!);
}

async function run(title: string, next: () => { body: string; headers: Record<string, string> }) {
  const result = await autocannon({
    url: values.url,
    connections: Number(values.connections),
    duration: Number(values.seconds),
    requests: [
      {
        method: "POST",
        path: "/api/webhooks/stripe",
        setupRequest: (request) => {
          const delivery = next();
          return { ...request, body: delivery.body, headers: delivery.headers };
        },
      },
    ],
  });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  console.log(
    `${title}: ${result.requests.average.toFixed(0)} req/s (total ${result.requests.total}), ` +
      `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, ` +
      `non-2xx/errors ${non2xx}`,
  );
}

console.log(`ingest benchmark against ${values.url}: ${values.connections} connections, ${values.seconds}s per run`);
await run("new events      ", signedEvent);
const duplicate = signedEvent();
await run("duplicate events", () => duplicate);
