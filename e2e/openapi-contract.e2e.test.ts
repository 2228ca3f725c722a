import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "@/lib/destinations/sign-message";
import { sendTestMessage } from "@/lib/destinations/send-test-message";
import { signedWebhook, stripeEvent, type HistoryStep, type PaymentFacts } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openApiChecker, readOpenApiDocument } from "./harness/openapi";

// [HOST][OPENAPI] The host API's OpenAPI document against the running server: every answer the
// host can get (registration, lookup, the feed, a data subject's erasure, their errors) and the
// messages a destination is pushed are validated against the document's schemas, and the document's examples are this test's
// own traffic: the example registration is what it sends, and the example answers and messages are
// what the server answered and pushed (less the ids and times that differ run to run).

const TOKEN = "e2e-openapi-token-0123456789";
const ZOOP_TOKEN = "e2e-openapi-zoop-token-0123456789";
const checker = openApiChecker();
const document = readOpenApiDocument();
const secret = generateSecret();
let app: TestApp;
let server: AppServer;
let host: Server;
const pushed: { type: string; data: unknown; headers: Record<string, string> }[] = [];
let unverified = 0;

type Media = { example?: unknown };
const operation = (path: string, method: string) =>
  document.paths[path]![method] as {
    requestBody?: { content: Record<string, Media> };
    responses: Record<string, { content?: Record<string, Media> }>;
  };
const exampleAnswer = (path: string, method: string, status: number) =>
  operation(path, method).responses[String(status)]!.content!["application/json"]!.example;
const exampleMessage = (type: string) =>
  (document.webhooks[type]!.post as { requestBody?: { content: Record<string, Media> } }).requestBody!.content["application/json"]!.example;

/** Ids and times that differ from run to run, replaced by a placeholder (the schema has checked their form). */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      const varies =
        ["committedAt", "updatedAt", "createdAt", "finishedAt", "addedAt", "timestamp", "cursor"].includes(key) ||
        (key === "id" && (typeof inner === "number" || /^(chg|test)_/.test(String(inner))));
      return [key, varies ? "(varies)" : comparable(inner)];
    }),
  );
}

const registration = operation("/api/payments", "post").requestBody!.content["application/json"]!.example as {
  chargeId: string;
  amount: number;
  currency: string;
  customer: { id: string; email: string };
};
const facts: PaymentFacts = {
  chargeId: registration.chargeId,
  amount: registration.amount,
  currency: registration.currency.toLowerCase(),
  customerId: registration.customer.id,
  customerEmail: registration.customer.email,
};
const step = (kind: HistoryStep["kind"], amountRefunded: number, at: string): HistoryStep => ({
  kind,
  amountRefunded,
  occurredAtMs: Date.parse(at),
});

async function call(method: string, path: string, options: { token?: string | null; body?: unknown } = {}) {
  const token = options.token === undefined ? TOKEN : options.token;
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.body ? { "content-type": "application/json" } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** Calls, and checks the answer against the document's schema for that operation and status. */
async function checked(method: string, template: string, path: string, expected: number, options?: Parameters<typeof call>[2]) {
  const answer = await call(method, path, options);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(expected);
  expect(checker.answer(method, template, answer.status, answer.body), `${method} ${path}`).toEqual([]);
  return answer.body;
}

beforeAll(async () => {
  const verifier = new Webhook(secret);
  host = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      try {
        const message = verifier.verify(Buffer.concat(chunks).toString("utf8"), headers) as { type: string; data: unknown };
        pushed.push({ ...message, headers });
        response.writeHead(204).end();
      } catch {
        unverified++;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((ready) => host.listen(0, "127.0.0.1", ready));
  app = await createTestApp("openapi_contract");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    REFETCH_STRIPE: "none",
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    PAYMENTS_API_TOKENS: `${TOKEN},zoop:${ZOOP_TOKEN}`,
    ACCOUNT_SECRETS_KEY: "e2e-openapi-account-secrets-key-0123456789",
    DESTINATION_URL: `http://127.0.0.1:${(host.address() as AddressInfo).port}/webhooks`,
    DESTINATION_SECRET: secret,
  });
});
afterAll(async () => {
  await server?.stop();
  host?.closeAllConnections();
  await new Promise((done) => host?.close(done));
  await app?.close();
});

describe("[HOST][OPENAPI] the running server against docs/openapi.json", () => {
  it("serves the document in docs/, publicly", async () => {
    const response = await fetch(`${server.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(document);
  });

  it("registers the document's example payment with the answers it shows, and its errors in the documented shape", async () => {
    const created = await checked("POST", "/api/payments", "/api/payments", 201, { body: registration });
    expect(comparable(created)).toEqual(comparable(exampleAnswer("/api/payments", "post", 201)));
    const again = await checked("POST", "/api/payments", "/api/payments", 200, { body: registration });
    expect(comparable(again)).toEqual(comparable(exampleAnswer("/api/payments", "post", 200)));
    await checked("POST", "/api/payments", "/api/payments", 400, { body: { ...registration, amount: -1 } });
    // The deprecated flat field beside a different customer.id: the documented 400, word for word.
    const conflict = await checked("POST", "/api/payments", "/api/payments", 400, {
      body: { ...registration, chargeId: "ch_openapi_conflict", customerId: "cus_other" },
    });
    expect(conflict).toEqual(exampleAnswer("/api/payments", "post", 400));
    await checked("POST", "/api/payments", "/api/payments", 401, { body: registration, token: null });
    await checked("POST", "/api/payments", "/api/payments", 403, { body: registration, token: ZOOP_TOKEN });
  });

  it("reads the feed the document shows once the payment is paid and refunded, and its errors", async () => {
    const paid = stripeEvent(facts, step("succeeded", 0, "2026-12-01T21:40:09Z"), "evt_openapi_paid");
    const refunded = stripeEvent(facts, step("refund", facts.amount, "2026-12-01T21:40:11Z"), "evt_openapi_refund");
    for (const event of [paid, refunded]) {
      const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe);
      const response = await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", headers: webhook.headers, body: webhook.body });
      expect(response.status).toBe(200);
      // One at a time: the example shows the payment paid, then refunded.
      await waitFor(
        async () => (await app.pool.query("SELECT 1 FROM webhook_inbox WHERE status = 'pending'")).rowCount === 0,
        30_000,
        "processed",
      );
    }
    const template = "/api/payment-changes";
    const page = await checked("GET", template, template, 200);
    expect(comparable(page)).toEqual(comparable(exampleAnswer(template, "get", 200)));
    await checked("GET", template, `${template}?after=nope`, 400);
    await checked("GET", template, `${template}?provider=`, 400);
    await checked("GET", template, template, 401, { token: null });
    await checked("GET", template, `${template}?provider=stripe`, 403, { token: ZOOP_TOKEN });
  });

  it("looks the payment up as the document shows, agreeing with its last feed entry, and its errors", async () => {
    const template = "/api/payments/{provider}/{chargeId}";
    const path = `/api/payments/stripe/${registration.chargeId}`;
    const payment = (await checked("GET", template, path, 200)) as { version: number; status: string; customer: unknown };
    expect(comparable(payment)).toEqual(comparable(exampleAnswer(template, "get", 200)));
    const { data } = (await call("GET", "/api/payment-changes")).body as { data: { version: number; status: string; customer: unknown }[] };
    expect(payment).toMatchObject({ version: data.at(-1)!.version, status: data.at(-1)!.status, customer: data.at(-1)!.customer });
    await checked("GET", template, "/api/payments/stripe/ch_nobody", 404);
    await checked("GET", template, path, 401, { token: null });
    await checked("GET", template, path, 403, { token: ZOOP_TOKEN });
  });

  it("adds, rotates, reads and removes a gateway account as the document shows, never showing a secret, and its errors", async () => {
    const template = "/api/gateway-accounts/{provider}/{name}";
    const path = "/api/gateway-accounts/asaas/loja-a";
    const added = operation(template, "put").requestBody!.content["application/json"]!.example as {
      secrets: string[];
      credentials: { apiKey: string };
    };
    const created = await checked("PUT", template, path, 201, { body: added });
    expect(comparable(created)).toEqual(comparable(exampleAnswer(template, "put", 201)));
    // A rotation: the new secret first, the old one still verifying.
    const shown = exampleAnswer(template, "put", 200) as { secrets: { fingerprint: string }[] };
    const rotated = "asaas-webhook-token-loja-a-rotated-0123";
    const changed = await checked("PUT", template, path, 200, { body: { secrets: [rotated, ...added.secrets] } });
    expect(comparable(changed)).toEqual(comparable(shown));
    const read = await checked("GET", template, path, 200);
    expect(comparable(read)).toEqual(comparable(exampleAnswer(template, "get", 200)));
    for (const answer of [created, changed, read]) {
      for (const secret of [rotated, ...added.secrets, added.credentials.apiKey]) expect(JSON.stringify(answer)).not.toContain(secret);
    }
    await checked("PUT", template, "/api/gateway-accounts/asaas/loja%20a", 400, { body: added });
    await checked("PUT", template, path, 400, { body: { secrets: "not a list" } });
    await checked("PUT", template, path, 400, { body: { credentials: { marketplaceId: "asaas takes none" } } });
    await checked("PUT", template, "/api/gateway-accounts/asaas/default", 409, { body: added });
    await checked("PUT", template, "/api/gateway-accounts/nopay/loja-a", 404, { body: added });
    await checked("PUT", template, path, 401, { body: added, token: null });
    await checked("GET", template, path, 403, { token: ZOOP_TOKEN });
    await checked("DELETE", template, path, 403, { token: ZOOP_TOKEN });
    const removed = await fetch(`${server.url}${path}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(removed.status).toBe(204);
    await checked("GET", template, path, 404);
    await checked("DELETE", template, path, 404);
  });

  it("lists a page of the gateway accounts as the document shows, following the cursor, and its errors", async () => {
    const template = "/api/gateway-accounts";
    const [first, second] = ["loja-a", "loja-b"].map((name) => `/api/gateway-accounts/asaas/${name}`);
    const secrets = { first: "asaas-webhook-token-loja-a-0123456789", second: "asaas-webhook-token-loja-b-0123456789" };
    await checked("PUT", "/api/gateway-accounts/{provider}/{name}", first!, 201, {
      body: { secrets: [secrets.first], credentials: { apiKey: "$aact_openapi_loja_a_0123456789" } },
    });
    await checked("PUT", "/api/gateway-accounts/{provider}/{name}", second!, 201, { body: { secrets: [secrets.second] } });
    const page = (await checked("GET", template, `${template}?provider=asaas&limit=1`, 200)) as { cursor: string };
    expect(comparable(page)).toEqual(comparable(exampleAnswer(template, "get", 200)));
    const next = await checked("GET", template, `${template}?provider=asaas&limit=1&after=${page.cursor}`, 200);
    expect(next).toMatchObject({ total: 2, cursor: null, data: [{ name: "loja-b", webhookPath: "/api/webhooks/asaas/loja-b" }] });
    for (const answer of [page, next]) for (const secret of Object.values(secrets)) expect(JSON.stringify(answer)).not.toContain(secret);
    // A scoped token sees its gateways' accounts only.
    expect(await checked("GET", template, template, 200, { token: ZOOP_TOKEN })).toEqual({ data: [], total: 0, cursor: null });
    await checked("GET", template, `${template}?after=nope`, 400);
    await checked("GET", template, `${template}?provider=`, 400);
    await checked("GET", template, template, 401, { token: null });
    await checked("GET", template, `${template}?provider=asaas`, 403, { token: ZOOP_TOKEN });
    for (const path of [first!, second!])
      await fetch(`${server.url}${path}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
  });

  it("pushes payment.updated and destination.test messages as the document shows them", async () => {
    await waitFor(async () => pushed.filter(({ type }) => type === "payment.updated").length === 2 || null, 60_000, "both changes pushed");
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM destinations");
    expect((await sendTestMessage(app.pool, app.config.destinations, rows[0]!.id, { actor: "e2e" }))?.statusCode).toBe(204);
    expect(unverified).toBe(0);
    for (const { headers, ...message } of pushed) {
      expect(checker.message(message.type, message), message.type).toEqual([]);
      expect(headers["webhook-id"]).toBe((message.data as { id: string }).id);
    }
    const updates = pushed.filter(({ type }) => type === "payment.updated").map(({ headers: _headers, ...message }) => message);
    expect(comparable(updates.at(-1))).toEqual(comparable(exampleMessage("payment.updated")));
    const test = pushed.find(({ type }) => type === "destination.test")!;
    expect(comparable({ type: test.type, timestamp: "", data: test.data })).toEqual(comparable(exampleMessage("destination.test")));
    // A push's data is the feed's entry for the same change, field for field.
    const { data } = (await call("GET", "/api/payment-changes")).body as { data: unknown[] };
    expect(updates.map(({ data: change }) => change)).toEqual(data);
  });

  it("erases the example payment's customer as the document shows, follows it to done, and its errors", async () => {
    const template = "/api/privacy/erasures";
    const request = operation(template, "post").requestBody!.content["application/json"]!.example;
    const started = (await checked("POST", template, template, 202, { body: request })) as { id: string };
    expect(comparable(started)).toEqual(comparable(exampleAnswer(template, "post", 202)));
    const one = "/api/privacy/erasures/{id}";
    const path = `${template}/${started.id}`;
    await waitFor(async () => ((await call("GET", path)).body as { status: string }).status === "done", 60_000, "the erasure done");
    const erasure = await checked("GET", one, path, 200);
    expect(comparable(erasure)).toEqual(comparable(exampleAnswer(one, "get", 200)));
    // Every destination is told, once, in the message the document shows.
    await waitFor(async () => pushed.some(({ type }) => type === "customer.erased") || null, 60_000, "customer.erased pushed");
    const { headers: _headers, ...message } = pushed.find(({ type }) => type === "customer.erased")!;
    expect(checker.message("customer.erased", message)).toEqual([]);
    const registered = await call("GET", `/api/payments/stripe/${registration.chargeId}`);
    expect(registered.body).toMatchObject({
      status: "refunded",
      amount: registration.amount,
      customer: { id: "[redacted]", email: "[redacted]" },
    });

    await checked("POST", template, template, 400, { body: { email: "a@b.co", customerId: "cus_1" } });
    await checked("POST", template, template, 401, { body: request, token: null });
    await checked("POST", template, template, 403, { body: request, token: ZOOP_TOKEN });
    await checked("GET", one, `${template}/999999`, 404);
    await checked("GET", one, path, 401, { token: null });
    await checked("GET", one, path, 403, { token: ZOOP_TOKEN });
  });
  it("carries a declined payment's reason in its lookup, its feed entry and its push, as the document describes them", async () => {
    const declined: PaymentFacts = {
      chargeId: "ch_openapi_declined",
      amount: 1500,
      currency: "usd",
      customerId: "cus_declined",
      customerEmail: "declined@example.com",
    };
    const event = stripeEvent(declined, step("failed", 0, "2026-12-01T21:45:00Z"), "evt_openapi_declined");
    Object.assign(event.data.object, { failure_code: "card_declined", failure_message: "Your card was declined." });
    const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe);
    expect(
      (await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", headers: webhook.headers, body: webhook.body })).status,
    ).toBe(200);
    await waitFor(
      async () => (await app.pool.query("SELECT 1 FROM webhook_inbox WHERE status = 'pending'")).rowCount === 0,
      30_000,
      "processed",
    );
    const reason = { code: "card_declined", message: "Your card was declined." };
    const payment = (await checked("GET", "/api/payments/{provider}/{chargeId}", `/api/payments/stripe/${declined.chargeId}`, 200)) as {
      version: number;
    };
    expect(payment).toMatchObject({ status: "failed", declineReason: reason });
    const page = (await checked("GET", "/api/payment-changes", "/api/payment-changes?status=failed", 200)) as {
      data: { chargeId: string; version: number }[];
    };
    const entry = page.data.find((change) => change.chargeId === declined.chargeId);
    expect(entry).toMatchObject({ version: payment.version, declineReason: reason });
    const push = await waitFor(
      async () =>
        pushed.find(({ type, data }) => type === "payment.updated" && (data as { chargeId: string }).chargeId === declined.chargeId) ??
        null,
      60_000,
      "the declined payment pushed",
    );
    const { headers: _headers, ...message } = push;
    expect(checker.message("payment.updated", message)).toEqual([]);
    expect(message.data).toEqual(entry);
  });
});
