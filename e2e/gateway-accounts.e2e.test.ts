import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSignaturesView } from "@/lib/console/get-signatures-view";
import { freePort } from "@/lib/db/embedded";
import { mercadopagoNotification, randomId, signedWebhook, webhookFor, type SignedWebhook } from "@/lib/testing/gateway-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, stopChild, type AppServer } from "./harness/app-server";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "./simulator/fake-gateway";
import { stateAfter, type PaymentHistory } from "./simulator/history";
import { postWebhook } from "./simulator/send-webhooks";

// [GATEWAYS][ACCOUNTS] Many accounts of one gateway, through the running servers: the web (Next
// behind our server, with its worker) and `npm run ingest` as separate processes on one database.
// An account added through the host API takes deliveries on both within 5 s without a restart (the
// cache's periodic check is set to 5 minutes here, so only the change's notification can do it);
// each account is verified with its own secret on its own URL and refetched with its own API key,
// which the fake gateway checks per account; a Mercado Pago seller's notification on the default URL
// is read with the seller's token.

const TOKEN = "e2e-accounts-api-token-0123456789";
const ASAAS_DEFAULT = "asaas-default-webhook-token-0123456789";
const MERCADOPAGO_SECRET = "mercadopago-e2e-webhook-secret-0123456789";
const A = { token: "asaas-loja-a-token-0123456789", rotated: "asaas-loja-a-token-rotated-0123", apiKey: "$aact_e2e_loja_a_0123456789" };
const B = { token: "asaas-loja-b-token-0123456789", apiKey: "$aact_e2e_loja_b_0123456789" };
const SELLER = { userId: 202809963, token: "APP_USR-e2e-seller-a-0123456789" };
const PROPAGATION_MS = 5_000;

let app: TestApp;
let gateway: FakeGateway;
let server: AppServer;
let ingest: ChildProcess;
let ingestUrl: string;
const ingestLog: string[] = [];

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** A payment that succeeded a minute ago: what the fake gateway says of it, and what the host registered. */
function succeeded(provider: "asaas" | "mercadopago"): PaymentHistory {
  const payment = {
    chargeId: randomId("pay"),
    amount: 12_345,
    currency: "brl",
    customerId: "cus_accounts",
    customerEmail: "loja@example.com",
  };
  return {
    provider,
    payment,
    steps: [{ kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 60_000 }],
    truth: stateAfter("succeeded", 12_345, 0),
  };
}

async function register(history: PaymentHistory): Promise<void> {
  const { chargeId, amount, currency, customerId, customerEmail } = history.payment;
  const answer = await api("POST", "/api/payments", { provider: history.provider, chargeId, amount, currency, customerId, customerEmail });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

/** A fresh Asaas webhook of the history's step, with this access token. */
const asaasWebhook = (history: PaymentHistory, token: string): SignedWebhook =>
  webhookFor("asaas", history.payment, history.steps[0]!, token);

/** Delivers a fresh webhook until the answer is `status` (each try a new event), within `ms`; the time it took. */
async function answeredWithin(
  base: string,
  make: () => SignedWebhook,
  account: string,
  status: number,
  ms = PROPAGATION_MS,
): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await postWebhook(base, make(), account)).status === status, ms, `${status} from ${base} for ${account}`);
  return Date.now() - started;
}

const count = async (sql: string, values: unknown[] = []) => (await app.pool.query<{ n: number }>(sql, values)).rows[0]!.n;
const paymentOf = async (chargeId: string) =>
  (
    await app.pool.query<{ status: string; account: string }>(
      "SELECT status, gateway_account AS account FROM payments WHERE gateway_charge_id = $1",
      [chargeId],
    )
  ).rows[0];
const readsOf = (chargeId: string) => gateway.requests.filter((request) => request.path.includes(chargeId)).map((request) => request.as);

beforeAll(async () => {
  app = await createTestApp("gateway_accounts_e2e");
  gateway = await startFakeGateway();
  const env = {
    ...fakeGatewayEnv(gateway.url),
    DATABASE_URL: app.db.url,
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    PAYMENTS_API_TOKENS: TOKEN,
    ACCOUNT_SECRETS_KEY: "e2e-account-secrets-key-0123456789abcdef",
    // Only the notification can make a change reach a process within the test's 5 s.
    ACCOUNTS_RELOAD_SECONDS: "300",
    WEBHOOK_SECRET_ASAAS: ASAAS_DEFAULT,
    WEBHOOK_SECRET_MERCADOPAGO: MERCADOPAGO_SECRET,
    WORKER_RETRY_DELAYS_SECONDS: "1",
  };
  server = await startAppServer(env);
  const port = await freePort();
  ingestUrl = `http://127.0.0.1:${port}`;
  ingest = spawn(process.execPath, ["--import", "tsx", "worker/ingest-server.ts"], {
    env: { ...process.env, ...env, NODE_ENV: "production", INGEST_PORT: String(port) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [ingest.stdout!, ingest.stderr!]) stream.on("data", (chunk) => ingestLog.push(String(chunk)));
  await waitFor(
    async () => (await fetch(`${ingestUrl}/api/webhooks/nope`, { method: "POST", body: "{}" }).catch(() => null))?.status === 404,
    60_000,
    "npm run ingest to listen",
  );
});
afterAll(async () => {
  if (ingest) await stopChild(ingest);
  await server?.stop();
  await gateway?.close();
  await app?.close();
});

describe("[GATEWAYS][ACCOUNTS] accounts through the running servers", () => {
  const loja = { a: succeeded("asaas"), b: succeeded("asaas") };

  it("takes an account added through the host API on the web and on npm run ingest within 5 s, and rotates its secret with overlap", async () => {
    await register(loja.a);
    gateway.addAccount({ apiKey: A.apiKey }, [loja.a]);
    for (const base of [server.url, ingestUrl]) {
      const before = await postWebhook(base, asaasWebhook(loja.a, A.token), "loja-a");
      expect(before.status).toBe(404);
      expect(await before.json()).toEqual({ error: 'unknown account "loja-a" of provider "asaas"', code: "UNKNOWN_ACCOUNT" });
    }
    const added = await api("PUT", "/api/gateway-accounts/asaas/loja-a", { secrets: [A.token], credentials: { apiKey: A.apiKey } });
    expect(added.status).toBe(201);
    const tookMs = await Promise.all(
      [server.url, ingestUrl].map((base) => answeredWithin(base, () => asaasWebhook(loja.a, A.token), "loja-a", 200)),
    );
    expect(Math.max(...tookMs)).toBeLessThan(PROPAGATION_MS);

    // Refetched with loja-a's own key (the fake gateway answers it only to that key), and the account travels with the data.
    await waitFor(async () => (await paymentOf(loja.a.payment.chargeId))?.status === "paid", 60_000, "loja-a's payment paid");
    expect(await paymentOf(loja.a.payment.chargeId)).toEqual({ status: "paid", account: "loja-a" });
    expect(new Set(readsOf(loja.a.payment.chargeId))).toEqual(new Set([`key:${A.apiKey}`]));
    expect(
      await count("SELECT count(*)::int AS n FROM webhook_inbox WHERE resource_id = $1 AND gateway_account <> 'loja-a'", [
        loja.a.payment.chargeId,
      ]),
    ).toBe(0);

    // A rotation overlaps: the new secret verifies everywhere while the old one still does, until it is retired.
    expect((await api("PUT", "/api/gateway-accounts/asaas/loja-a", { secrets: [A.rotated, A.token] })).status).toBe(200);
    for (const base of [server.url, ingestUrl]) {
      await answeredWithin(base, () => asaasWebhook(loja.a, A.rotated), "loja-a", 200);
      expect((await postWebhook(base, asaasWebhook(loja.a, A.token), "loja-a")).status).toBe(200);
    }
    const retired = await api("PUT", "/api/gateway-accounts/asaas/loja-a", { secrets: [A.rotated] });
    expect(retired.body).toMatchObject({
      secrets: [{ fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/) }],
      credentials: { apiKey: expect.any(Object) },
    });
    for (const base of [server.url, ingestUrl]) {
      await answeredWithin(base, () => asaasWebhook(loja.a, A.token), "loja-a", 401);
      expect((await postWebhook(base, asaasWebhook(loja.a, A.rotated), "loja-a")).status).toBe(200);
    }
  });

  it("verifies each Asaas subaccount with its own token on its own URL (another's is 401, nothing stored) and refetches each with its own key", async () => {
    await register(loja.b);
    gateway.addAccount({ apiKey: B.apiKey }, [loja.b]);
    expect((await api("PUT", "/api/gateway-accounts/asaas/loja-b", { secrets: [B.token], credentials: { apiKey: B.apiKey } })).status).toBe(
      201,
    );
    await answeredWithin(server.url, () => asaasWebhook(loja.b, B.token), "loja-b", 200);

    const stored = await count("SELECT count(*)::int AS n FROM webhook_inbox");
    const failures = await count("SELECT count(*)::int AS n FROM signature_failures");
    for (const base of [server.url, ingestUrl]) {
      // loja-a's token on loja-b's URL, and the other way round; and the default account's on either.
      for (const [token, account] of [
        [A.rotated, "loja-b"],
        [B.token, "loja-a"],
        [ASAAS_DEFAULT, "loja-b"],
      ] as const) {
        const crossed = asaasWebhook(loja.b, token);
        const answer = await postWebhook(base, crossed, account);
        expect(answer.status, `${account} with another's token`).toBe(401);
        expect(await count("SELECT count(*)::int AS n FROM webhook_inbox WHERE event_id = $1", [crossed.eventId])).toBe(0);
      }
    }
    expect(await count("SELECT count(*)::int AS n FROM webhook_inbox")).toBe(stored);
    expect(await count("SELECT count(*)::int AS n FROM signature_failures")).toBe(failures + 6);
    // Each refusal says whose URL it came to, as the console's rejected webhooks show it.
    const shown = (await getSignaturesView(app.pool, null)).failures.slice(0, 6).map((failure) => `${failure.provider}/${failure.account}`);
    expect(shown).toEqual(["asaas/loja-b", "asaas/loja-a", "asaas/loja-b", "asaas/loja-b", "asaas/loja-a", "asaas/loja-b"]);

    await waitFor(async () => (await paymentOf(loja.b.payment.chargeId))?.status === "paid", 60_000, "loja-b's payment paid");
    expect(await paymentOf(loja.b.payment.chargeId)).toEqual({ status: "paid", account: "loja-b" });
    expect(new Set(readsOf(loja.b.payment.chargeId))).toEqual(new Set([`key:${B.apiKey}`]));
    expect(new Set(readsOf(loja.a.payment.chargeId))).toEqual(new Set([`key:${A.apiKey}`]));
  });

  it("refuses an unknown account (404) and a disabled one (503, Retry-After) on both servers, storing nothing, and takes them once enabled", async () => {
    const stored = await count("SELECT count(*)::int AS n FROM webhook_inbox");
    for (const base of [server.url, ingestUrl]) expect((await postWebhook(base, asaasWebhook(loja.b, B.token), "loja-z")).status).toBe(404);
    expect((await api("PUT", "/api/gateway-accounts/asaas/loja-b", { enabled: false })).body).toMatchObject({ enabled: false });
    for (const base of [server.url, ingestUrl]) {
      await answeredWithin(base, () => asaasWebhook(loja.b, B.token), "loja-b", 503);
      const refused = await postWebhook(base, asaasWebhook(loja.b, B.token), "loja-b");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("300");
      expect(await refused.json()).toMatchObject({ code: "ACCOUNT_DISABLED" });
    }
    expect(await count("SELECT count(*)::int AS n FROM webhook_inbox")).toBe(stored);
    await api("PUT", "/api/gateway-accounts/asaas/loja-b", { enabled: true });
    for (const base of [server.url, ingestUrl]) await answeredWithin(base, () => asaasWebhook(loja.b, B.token), "loja-b", 200);
  });

  it("reads a Mercado Pago notification for seller A (its user_id) with A's token, on the default URL", async () => {
    const sale = succeeded("mercadopago");
    await register(sale);
    gateway.addAccount({ apiKey: SELLER.token }, [sale]);
    const seller = await api("PUT", "/api/gateway-accounts/mercadopago/seller-a", {
      credentials: { apiKey: SELLER.token },
      gatewayAccountId: String(SELLER.userId),
    });
    expect(seller.body).toMatchObject({
      gatewayAccountId: String(SELLER.userId),
      secrets: [],
      webhookPath: "/api/webhooks/mercadopago/seller-a",
    });
    const notification = { ...mercadopagoNotification(sale.payment, sale.steps[0]!), user_id: SELLER.userId };
    const webhook = signedWebhook("mercadopago", String(notification.id), JSON.stringify(notification), MERCADOPAGO_SECRET);
    // To the web process: it took the account in as it answered the PUT (the ingest server's copy is tested above).
    expect((await postWebhook(server.url, webhook)).status).toBe(200);
    await waitFor(async () => (await paymentOf(sale.payment.chargeId))?.status === "paid", 60_000, "the seller's payment paid");
    expect(await paymentOf(sale.payment.chargeId)).toEqual({ status: "paid", account: "seller-a" });
    const { rows } = await app.pool.query("SELECT gateway_account FROM webhook_inbox WHERE event_id = $1", [webhook.eventId]);
    expect(rows).toEqual([{ gateway_account: "seller-a" }]);
    // Every read of it carried the seller's token; one with the marketplace's would have been 404.
    expect(readsOf(sale.payment.chargeId).length).toBeGreaterThan(0);
    expect(new Set(readsOf(sale.payment.chargeId))).toEqual(new Set([`key:${SELLER.token}`]));
  });
});
