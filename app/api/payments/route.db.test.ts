import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { useWebRuntime } from "@/e2e/harness/web-runtime";

// The host application's API through the real route handlers, on a database of this file's own.

let app: TestApp;
let register: (request: Request) => Promise<Response>;
let read: (request: NextRequest, context: { params: Promise<{ provider: string; chargeId: string }> }) => Promise<Response>;
let feed: (request: NextRequest) => Promise<Response>;

let stopWebRuntime: () => Promise<void>;

beforeAll(async () => {
  app = await createTestApp("payments_api");
  stopWebRuntime = useWebRuntime(app, { PAYMENTS_API_TOKENS: "old-token,new-token,asaas+zoop:scoped-token" });
  ({ POST: register } = await import("./route"));
  ({ GET: read } = await import("./[provider]/[chargeId]/route"));
  ({ GET: feed } = await import("../payment-changes/route"));
});
afterAll(async () => {
  await stopWebRuntime();
  await app.close();
});

const post = (body: unknown, token?: string) =>
  register(
    new Request("http://localhost/api/payments", {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );

describe("POST /api/payments", () => {
  const payment = { provider: "asaas", chargeId: "pay_123", amount: 4990, currency: "BRL", customerEmail: "Bia@Example.com" };

  it("refuses a missing or wrong token", async () => {
    expect((await post(payment)).status).toBe(401);
    expect((await post(payment, "guess")).status).toBe(401);
  });

  it("registers once (201), then answers 200 for the same charge; either rotated token works", async () => {
    const first = await post(payment, "new-token");
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ created: true, eventsWoken: 0 });
    expect((await post(payment, "old-token")).status).toBe(200);
    const response = await read(
      new NextRequest("http://localhost/api/payments/asaas/pay_123", { headers: { authorization: "Bearer new-token" } }),
      {
        params: Promise.resolve({ provider: "asaas", chargeId: "pay_123" }),
      },
    );
    // The feed's names: the customer as one object, the version (0: no change recorded yet).
    const body = await response.json();
    expect(body).toEqual({
      provider: "asaas",
      account: "default",
      chargeId: "pay_123",
      version: 0,
      status: "pending",
      amount: 4990,
      amountRefunded: 0,
      currency: "brl",
      customer: { id: null, email: "bia@example.com" },
      declineReason: null,
      registeredBy: "host",
      lastGatewayEventAt: null,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
  });

  it("answers 400 with the bad field named, and 404 for an unknown payment", async () => {
    const bad = await post({ ...payment, amount: -1, provider: "paypal" }, "new-token");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/provider.*amount|amount.*provider/s);
    expect((await post("not json", "new-token")).status).toBe(400);
    const missing = await read(
      new NextRequest("http://localhost/api/payments/asaas/nope", { headers: { authorization: "Bearer new-token" } }),
      {
        params: Promise.resolve({ provider: "asaas", chargeId: "nope" }),
      },
    );
    expect(missing.status).toBe(404);
  });
});

describe("POST /api/payments: the customer", () => {
  const lookup = async (chargeId: string) =>
    (
      await (
        await read(new NextRequest(`http://localhost/api/payments/asaas/${chargeId}`, { headers: { authorization: "Bearer new-token" } }), {
          params: Promise.resolve({ provider: "asaas", chargeId }),
        })
      ).json()
    ).customer;
  const base = { provider: "asaas", amount: 100, currency: "BRL" };

  it("takes customer { id, email }, the shape the lookup answers with", async () => {
    expect((await post({ ...base, chargeId: "pay_nested", customer: { id: "cus_1", email: "Ana@Example.com" } }, "new-token")).status).toBe(
      201,
    );
    expect(await lookup("pay_nested")).toEqual({ id: "cus_1", email: "ana@example.com" });
  });

  it("still takes the deprecated flat fields, alone or beside the same values in customer", async () => {
    expect((await post({ ...base, chargeId: "pay_flat", customerId: "cus_2" }, "new-token")).status).toBe(201);
    expect(await lookup("pay_flat")).toEqual({ id: "cus_2", email: null });
    const both = {
      ...base,
      chargeId: "pay_both",
      customer: { id: "cus_3", email: "bo@example.com" },
      customerId: "cus_3",
      customerEmail: "BO@example.com",
    };
    expect((await post(both, "new-token")).status).toBe(201);
    expect(await lookup("pay_both")).toEqual({ id: "cus_3", email: "bo@example.com" });
  });

  it("answers 400 naming both fields when customer and a deprecated field differ, and registers nothing", async () => {
    const answer = await post({ ...base, chargeId: "pay_conflict", customer: { id: "cus_4" }, customerId: "cus_5" }, "new-token");
    expect(answer.status).toBe(400);
    expect((await answer.json()).error).toBe("customer.id: customer.id and the deprecated customerId differ: send customer.id alone");
    const email = await post(
      { ...base, chargeId: "pay_conflict", customer: { email: "a@example.com" }, customerEmail: "b@example.com" },
      "new-token",
    );
    expect((await email.json()).error).toContain("customer.email and the deprecated customerEmail differ");
    expect((await app.pool.query("SELECT 1 FROM payments WHERE gateway_charge_id = 'pay_conflict'")).rowCount).toBe(0);
  });

  it("refuses a customer field it doesn't know", async () => {
    expect((await post({ ...base, chargeId: "pay_unknown", customer: { name: "Ana" } }, "new-token")).status).toBe(400);
  });
});

describe("a token scoped to some gateways", () => {
  const withToken = (path: string, token: string) =>
    new NextRequest(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` } });
  const readAs = (provider: string, chargeId: string, token: string) =>
    read(withToken(`/api/payments/${provider}/${chargeId}`, token), { params: Promise.resolve({ provider, chargeId }) });

  it("reads and registers its gateways' payments only (403 for the others)", async () => {
    const stripePayment = { provider: "stripe", chargeId: "ch_scope", amount: 100, currency: "USD" };
    expect((await post(stripePayment, "scoped-token")).status).toBe(403);
    expect((await post({ provider: "zoop", chargeId: "tr_scope", amount: 100, currency: "BRL" }, "scoped-token")).status).toBe(201);
    expect((await readAs("zoop", "tr_scope", "scoped-token")).status).toBe(200);
    expect((await readAs("stripe", "ch_scope", "scoped-token")).status).toBe(403);
    expect((await readAs("zoop", "tr_scope", "new-token")).status).toBe(200);
  });

  it("reads its gateways' changes on the feed: its scope when it names none, 403 past it; an empty filter is a 400", async () => {
    // One change of each of three gateways (the feed reads the rows; which payment they name doesn't matter here).
    await app.pool.query(
      `INSERT INTO payment_changes (payment_id, version, provider, gateway_charge_id, status, amount_refunded)
       SELECT (SELECT min(id) FROM payments), 100 + n, provider, 'ch_' || provider, 'paid', 0
         FROM unnest(ARRAY['stripe', 'asaas', 'zoop']) WITH ORDINALITY AS p(provider, n)`,
    );
    const providersRead = async (token: string) =>
      ((await (await feed(withToken("/api/payment-changes", token))).json()) as { data: { provider: string }[] }).data
        .map(({ provider }) => provider)
        .sort();
    expect(await providersRead("new-token")).toEqual(["asaas", "stripe", "zoop"]);
    expect(await providersRead("scoped-token")).toEqual(["asaas", "zoop"]);
    expect((await feed(withToken("/api/payment-changes?provider=stripe", "scoped-token"))).status).toBe(403);
    expect((await feed(withToken("/api/payment-changes?provider=zoop", "scoped-token"))).status).toBe(200);
    expect((await feed(withToken("/api/payment-changes?provider=", "new-token"))).status).toBe(400);
  });
});
