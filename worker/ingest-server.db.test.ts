import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { dribble, firstDroppedSocket, openSocket } from "@/e2e/harness/raw-socket";
import { webhookFor, randomId } from "@/lib/testing/gateway-events";
import { freePort } from "@/lib/db/embedded";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";

// `npm run ingest` as a real process: webhooks posted to it over HTTP are stored with their job,
// and it answers like the Next.js route (same ingestEvent, same replies).

let app: TestApp;
let child: ChildProcess;
let port: number;

type Reply = { status: number; body: Record<string, unknown> };

/** A raw node:http request, so a streamed body without Content-Length can be sent too. */
function send(
  method: string,
  path: string,
  body: string | Buffer | null,
  headers: Record<string, string> = {},
  chunked = false,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString() || "{}") }));
    });
    req.on("error", reject);
    if (body !== null && chunked) {
      // Several writes without a declared length: the limit is enforced while reading.
      for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024));
    } else if (body !== null) req.write(body);
    req.end();
  });
}

function stripeWebhook() {
  return webhookFor(
    "stripe",
    { chargeId: randomId("ch"), amount: 1200, currency: "usd", customerId: "cus_1", customerEmail: "ana@example.com" },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
    TEST_SECRETS.stripe,
  );
}

const count = async (from: string) => (await app.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from}`)).rows[0]!.n;

beforeAll(async () => {
  app = await createTestApp("ingest_server", {
    WEBHOOK_BODY_LIMIT_BYTES: "4096",
    HTTP_HEADERS_TIMEOUT_MS: "2000",
    HTTP_REQUEST_TIMEOUT_MS: "3000",
    HTTP_MAX_CONNECTIONS: "16",
  });
  port = await freePort();
  child = spawn(process.execPath, ["--import", "tsx", "worker/ingest-server.ts"], {
    env: { ...process.env, ...app.env, INGEST_PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await waitFor(
    async () => (await send("POST", "/api/webhooks/nope", "{}").catch(() => null))?.status === 404,
    30_000,
    "npm run ingest to listen",
  );
});
afterAll(async () => {
  child.kill("SIGKILL");
  await app.close();
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, signature_failures CASCADE");
  await app.pool.query("DELETE FROM pgboss.job WHERE name = 'webhooks'");
});

describe("npm run ingest", () => {
  it("answers 400 to a path that does not decode, 408 to a client dribbling its body, and drops sockets past its cap", async () => {
    expect((await send("POST", "/api/webhooks/%FF", "{}")).status).toBe(400);
    expect((await send("POST", "/api/webhooks/stripe%00", "{}")).status).toBe(400);
    const url = `http://127.0.0.1:${port}`;
    const head = "POST /api/webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n";
    // Node's default would hold it for 300 s; the test gives up long before.
    expect(await dribble(await openSocket(url), head, "a", 500, 60_000)).toMatch(/^HTTP\/1\.1 408/);
    expect(await firstDroppedSocket(url, 48)).toBeGreaterThanOrEqual(0);
    await waitFor(
      async () => (await send("POST", "/api/webhooks/nope", "{}").catch(() => null))?.status === 404,
      30_000,
      "the server to take connections again",
    );
  });

  it("stores a signed webhook once with its job, and answers a resend as a duplicate", async () => {
    const webhook = stripeWebhook();
    const first = await send("POST", "/api/webhooks/stripe", webhook.body, webhook.headers);
    const again = await send("POST", "/api/webhooks/stripe", webhook.body, webhook.headers);
    expect(first).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
    const { rows } = await app.pool.query("SELECT raw_body, status, headers FROM webhook_inbox");
    expect(rows).toHaveLength(1);
    expect(rows[0].raw_body.toString()).toBe(webhook.body);
    expect(rows[0].status).toBe("pending");
    expect(rows[0].headers).toHaveProperty("stripe-signature");
    expect(await count("pgboss.job WHERE name = 'webhooks'")).toBe(1);
  });

  it("answers 401 to a bad signature and stores no event", async () => {
    const webhook = stripeWebhook();
    const reply = await send("POST", "/api/webhooks/stripe", webhook.body, { ...webhook.headers, "stripe-signature": "t=1,v1=00" });
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe("INVALID_SIGNATURE");
    expect(await count("webhook_inbox")).toBe(0);
  });

  it("answers 413 to an oversized body, declared or streamed, and stores nothing", async () => {
    const big = Buffer.alloc(10_000, "a");
    expect((await send("POST", "/api/webhooks/stripe", big, { "content-type": "application/json" })).status).toBe(413);
    expect((await send("POST", "/api/webhooks/stripe", big, { "transfer-encoding": "chunked" }, true)).status).toBe(413);
    expect(await count("webhook_inbox")).toBe(0);
    expect(await count("signature_failures")).toBe(0);
  });

  it("answers 404 off its one path or for an unknown provider, and 405 to other methods", async () => {
    expect((await send("POST", "/api/webhooks/nope", "{}")).body).toEqual({ error: 'unknown provider "nope"', code: "NOT_FOUND" });
    expect((await send("GET", "/login", null)).status).toBe(404);
    expect((await send("GET", "/api/webhooks/stripe", null)).status).toBe(405);
  });

  it("finishes and exits 0 on SIGTERM", async () => {
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
