import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookFor, randomId } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { useWebRuntime } from "@/e2e/harness/web-runtime";

// The ingest route while the database does not answer: a fast 503 the gateway retries, nothing
// stored half-way; and the same webhook accepted once the database answers again.

let app: TestApp;
let post: (request: NextRequest, context: { params: Promise<{ provider: string }> }) => Promise<Response>;
let stopWebRuntime: () => Promise<void>;

beforeAll(async () => {
  app = await createTestApp("webhooks_route");
  stopWebRuntime = useWebRuntime(app, { DATABASE_STATEMENT_TIMEOUT_MS: "1000" });
  ({ POST: post } = await import("./route"));
});
afterAll(async () => {
  await stopWebRuntime();
  await app.close();
});

function signedRequest() {
  const webhook = webhookFor(
    "stripe",
    { chargeId: randomId("ch"), amount: 1000, currency: "usd", customerId: "c", customerEmail: "c@example.com" },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() },
    TEST_SECRETS.stripe,
  );
  return () =>
    post(new NextRequest("http://localhost/api/webhooks/stripe", { method: "POST", headers: webhook.headers, body: webhook.body }), {
      params: Promise.resolve({ provider: "stripe" }),
    });
}

describe("POST /api/webhooks/stripe with the database stalled", () => {
  it("answers 503 with Retry-After within the statement timeout, then 200 once the database answers", async () => {
    const send = signedRequest();
    expect((await send()).status).toBe(200); // warms the runtime (pool, job producer)
    const again = signedRequest();
    const holder = await app.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE webhook_inbox IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      const response = await again();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toEqual({ error: "database unavailable, retry later", code: "DATABASE_UNAVAILABLE" });
      await holder.query("ROLLBACK");
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
    }
    const retried = await again();
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ received: true, duplicate: false });
    expect((await app.pool.query("SELECT count(*)::int AS n FROM webhook_inbox")).rows[0].n).toBe(2);
  });
});
