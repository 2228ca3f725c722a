import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiChecker } from "@/e2e/harness/openapi";
import { useWebRuntime } from "@/e2e/harness/web-runtime";
import { erasuresJob } from "@/lib/jobs/definitions/erasures";
import { runJob } from "@/lib/jobs/work-jobs";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { changeStripePayment, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { testConfig } from "@/lib/testing/test-worker";

const HASH_KEY = "api-test-hash-key-0123456789abcdef";

// The host asks for an erasure through the real route handlers; a worker's job runs it. Each answer
// is checked against docs/openapi.json (the contract test checks them again through the running server).

const checker = openApiChecker();

let app: TestApp;
let start: (request: Request) => Promise<Response>;
let follow: (request: NextRequest, context: { params: Promise<{ id: string }> }) => Promise<Response>;
let stopWebRuntime: () => Promise<void>;

beforeAll(async () => {
  app = await createTestApp("privacy_api");
  stopWebRuntime = useWebRuntime(app, { PAYMENTS_API_TOKENS: "host-token,asaas:scoped-token", PRIVACY_HASH_KEY: HASH_KEY });
  ({ POST: start } = await import("./route"));
  ({ GET: follow } = await import("./[id]/route"));
});
afterAll(async () => {
  await stopWebRuntime();
  await app.close();
});

const post = (body: unknown, token?: string) =>
  start(
    new Request("http://localhost/api/privacy/erasures", {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }),
  );
const get = (id: string, token = "host-token") =>
  follow(new NextRequest(`http://localhost/api/privacy/erasures/${id}`, { headers: { authorization: `Bearer ${token}` } }), {
    params: Promise.resolve({ id }),
  });

describe("/api/privacy/erasures", () => {
  it("refuses a missing token, a subject named twice, and a scoped token naming no provider", async () => {
    expect((await post({ email: "a@b.co" })).status).toBe(401);
    expect((await post({ email: "a@b.co", customerId: "cus_1" }, "host-token")).status).toBe(400);
    expect((await post({ email: "a@b.co" }, "scoped-token")).status).toBe(403);
    expect((await post({ customerId: "cus_1", provider: "stripe" }, "scoped-token")).status).toBe(403);
  });

  it("answers 202 with an id, and the job's state and counts once a worker ran it", async () => {
    const payment = { ...stripePayment(), customerEmail: "erase.me@example.com", customerId: "cus_erase_me" };
    expect(await changeStripePayment(app, processDeps(app), payment, { kind: "succeeded" })).toBe("processed");
    const response = await post({ email: "Erase.Me@example.com" }, "host-token");
    expect(response.status).toBe(202);
    const started = await response.json();
    expect(checker.answer("POST", "/api/privacy/erasures", 202, started)).toEqual([]);
    const { id } = started as { id: string };
    const queued = await (await get(id)).json();
    expect(queued).toMatchObject({ id, status: "queued", finishedAt: null });
    expect(checker.answer("GET", "/api/privacy/erasures/{id}", 200, queued)).toEqual([]);
    const { rows } = await app.pool.query<{ data: { erasureId: number } }>("SELECT data FROM pgboss.job WHERE name = $1", [
      erasuresJob.name,
    ]);
    expect(rows.map((row) => row.data)).toEqual([{ erasureId: Number(id) }]);
    await runJob(erasuresJob, processDeps(app, testConfig(app.env, { PRIVACY_HASH_KEY: HASH_KEY })), rows[0]!.data);
    const erasure = await (await get(id)).json();
    expect(erasure).toMatchObject({
      status: "done",
      subjectKind: "email",
      provider: null,
      counts: { payments: 1, inbox_events: 1 },
      payments: [{ provider: "stripe", account: "default", chargeId: payment.chargeId, status: "paid", amount: payment.amount }],
    });
    expect(checker.answer("GET", "/api/privacy/erasures/{id}", 200, erasure)).toEqual([]);
    expect(JSON.stringify(erasure)).not.toMatch(/erase\.me|cus_erase_me/i);
    expect(erasure).not.toHaveProperty("subjectHash");
    expect((await get("999999")).status).toBe(404);
    // A token scoped to Asaas reads the erasures of Asaas customer ids only.
    expect((await get(id, "scoped-token")).status).toBe(403);
    const scoped = await post({ customerId: "cus_000005219613", provider: "asaas" }, "scoped-token");
    expect(scoped.status).toBe(202);
    const { id: asaasId } = (await scoped.json()) as { id: string };
    expect(await (await get(asaasId, "scoped-token")).json()).toMatchObject({ id: asaasId, subjectKind: "customerId", provider: "asaas" });
  });
});
