import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { cookieHeader, httpSignIn } from "./harness/http-session";
import { dribble, firstDroppedSocket, openSocket } from "./harness/raw-socket";
import { postWebhook } from "./simulator/send-webhooks";

// What an outside review tried against `npm start` as an attacker: bodies of tens of megabytes to
// every endpoint that reads one (next-auth's included, unauthenticated), clients that send a byte
// every few seconds or open sockets by the hundred, and paths that don't decode. The web process
// must refuse each with a clear 4xx and keep taking webhooks.

const PASSWORD = "correct horse battery staple";
const ADMIN = "admin@hostile.test";
const API_TOKEN = "hostile-e2e-payments-token-0123456789";
const BIG = 80 * 1024 * 1024;
const MAX_CONNECTIONS = 24;

let app: TestApp;
let server: AppServer;

beforeAll(async () => {
  app = await createTestApp("hostile_clients", {});
  await createUser(app.prisma, { email: ADMIN, role: "admin", password: PASSWORD }, "e2e");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    AUTH_SECRET: "hostile-e2e-auth-secret-0123456789abcdef0123",
    PAYMENTS_API_TOKENS: API_TOKEN,
    HTTP_HEADERS_TIMEOUT_MS: "2000",
    HTTP_REQUEST_TIMEOUT_MS: "4000",
    HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await app?.close();
});

let webhooksSent = 0;
/** A signed Stripe webhook: ingest still answers. */
async function ingestAnswers(): Promise<void> {
  const body = JSON.stringify({
    id: `evt_hostile_alive_${++webhooksSent}`,
    object: "event",
    type: "charge.succeeded",
    created: Math.floor(Date.now() / 1000),
    data: {
      object: { id: `ch_alive_${webhooksSent}`, object: "charge", amount: 100, amount_refunded: 0, currency: "brl", status: "succeeded" },
    },
  });
  const response = await postWebhook(server.url, signedWebhook("stripe", `evt_hostile_alive_${webhooksSent}`, body, TEST_SECRETS.stripe));
  expect(response.status).toBe(200);
}

/**
 * POSTs `total` bytes of a JSON-looking body over a raw socket, declared up front or chunked, and
 * resolves with the status the server answers, even while the body is still being sent (the server
 * stops reading and closes, so writes may fail: only the answer counts).
 */
async function postHuge(path: string, options: { total: number; chunked: boolean; headers?: Record<string, string> }): Promise<number> {
  const socket = await openSocket(server.url);
  const headers = {
    host: new URL(server.url).host,
    "content-type": "application/json",
    ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(options.total) }),
    ...options.headers,
  };
  const head = `POST ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
  const chunk = Buffer.alloc(1024 * 1024, "a");
  const frame = (data: Buffer) => (options.chunked ? [Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")] : [data]);
  return new Promise((resolve, reject) => {
    let received = "";
    let answered = false;
    socket.on("error", () => undefined);
    socket.on("data", (data) => {
      received += String(data);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status && !answered) {
        answered = true;
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    socket.once("close", () => {
      if (!answered)
        reject(
          new Error(
            `${path}: the server closed the connection without an answer ${JSON.stringify(received)} ${server.logs.join("").slice(-2000)}`,
          ),
        );
    });
    let sent = 0;
    const pump = () => {
      while (!answered && !socket.destroyed && sent < options.total) {
        const piece =
          sent === 0
            ? Buffer.concat([Buffer.from(head), ...frame(Buffer.concat([Buffer.from('{"email":"'), chunk]))])
            : Buffer.concat(frame(chunk));
        sent += chunk.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
      if (!answered && !socket.destroyed && options.chunked) socket.write("0\r\n\r\n");
    };
    pump();
  });
}

function actionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(".next/server/server-reference-manifest.json", "utf8")) as {
    node: Record<string, { exportedName: string }>;
  };
  const found = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === exportedName);
  if (!found) throw new Error(`no server action ${exportedName} in the build`);
  return found[0];
}

describe("hostile clients", () => {
  it("[AVAILABILITY][BODY]: 80 MB to every endpoint that reads a body, declared or chunked, is refused with a 4xx before it is read; ingest keeps answering", async () => {
    const session = await httpSignIn(server.url, ADMIN, PASSWORD);
    const cookie = cookieHeader(session.cookies);
    const targets: { path: string; headers?: Record<string, string> }[] = [
      { path: "/api/auth/callback/credentials" },
      { path: "/api/auth/signout" },
      { path: "/api/auth/session" },
      { path: "/api/payments", headers: { authorization: `Bearer ${API_TOKEN}` } },
      { path: "/api/webhooks/stripe" },
      // A server action, signed in, and an unauthenticated multipart post to a page (Next tries it as a form action).
      { path: "/signatures", headers: { cookie, "next-action": actionId("debugSignature"), accept: "text/x-component" } },
      { path: "/login", headers: { "content-type": "multipart/form-data; boundary=x" } },
    ];
    for (const target of targets) {
      for (const chunked of [false, true]) {
        const status = await postHuge(target.path, { total: BIG, chunked, headers: target.headers }).catch((error: Error) => error.message);
        expect([411, 413], `${target.path} ${chunked ? "chunked" : "declared"}`).toContain(status);
        await ingestAnswers();
      }
    }
    // Just past next-auth's own limit, well under every other: its route refuses it.
    expect(await postHuge("/api/auth/callback/credentials", { total: 64 * 1024, chunked: true })).toBe(413);
    // Sign-in itself still works, and so does a server action of normal size.
    expect((await httpSignIn(server.url, ADMIN, PASSWORD)).status).toBe(200);
  });

  it("[AVAILABILITY][SLOW]: a client dribbling its headers or its body gets 408 and is disconnected within the configured timeouts", async () => {
    // Node's defaults would hold these for 300 s; the test gives up far sooner than that.
    const [body, headers] = await Promise.all([
      dribble(
        await openSocket(server.url),
        "POST /api/webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
        "a",
        500,
        60_000,
      ),
      dribble(await openSocket(server.url), "GET /api/health HTTP/1.1\r\n", "X-Slow: a\r\n", 500, 60_000),
    ]);
    expect(body).toMatch(/^HTTP\/1\.1 408/);
    expect(headers).toMatch(/^HTTP\/1\.1 408/);
    await ingestAnswers();
  });

  it("[AVAILABILITY][CONNECTIONS]: sockets past the cap are dropped at once; once they go, ingest answers again", async () => {
    // Without a cap every socket stays open (-1).
    expect(await firstDroppedSocket(server.url, MAX_CONNECTIONS * 3)).toBeGreaterThanOrEqual(0);
    await waitFor(
      async () => (await fetch(`${server.url}/api/health`).catch(() => null))?.ok,
      30_000,
      "the server to take connections again",
    );
    await ingestAnswers();
  });

  it("[PATHS]: a NUL or a malformed %FF in a path answers 400, never 500", async () => {
    const session = await httpSignIn(server.url, ADMIN, PASSWORD);
    const cookie = cookieHeader(session.cookies);
    for (const [method, path] of [
      ["GET", "/customers/%00"],
      ["GET", "/events/%FF"],
      ["GET", "/payments/%00"],
      ["GET", "/events?q=%00"],
      ["GET", "/api/events/%FF/raw"],
      ["POST", "/api/webhooks/%FF"],
      ["POST", "/api/webhooks/stripe%00"],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { cookie },
        redirect: "manual",
        body: method === "POST" ? "{}" : undefined,
      });
      expect(response.status, `${method} ${path}`).toBe(400);
    }
    await ingestAnswers();
  });
});
