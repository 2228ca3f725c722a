import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { reservedConnections } from "@/lib/request/create-limited-server";
import { MAX_WAITS_PER_READER } from "@/lib/outbox/read-change-feed";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { cookieHeader, csrfToken, httpSignIn } from "./harness/http-session";
import { holdSockets, openSocket, requestFrom, serverSocketsSettled } from "./harness/raw-socket";
import { webhookUrl } from "./simulator/send-webhooks";

// Floods an outside review sent at `npm start`: hundreds of concurrent wrong passwords for one
// account, one address holding every socket it can (reconnecting as they are closed), and many
// addresses filling the server. Sign-ins past the throttle must not be checked, and health probes
// and webhooks from other clients must keep being answered.
//
// Other clients are other loopback addresses (127.0.0.x): the server tells clients apart by the
// socket's address. The test itself is the trusted proxy (127.0.0.1) when it signs in for others.

const PASSWORD = "correct horse battery staple";
const ADMIN = "admin@floods.test";
const MAX_FAILURES = 5;
const MAX_CONNECTIONS = 1536;
// 100 feed readers, each holding as many waiting reads as a token may.
const FEED_TOKENS = Array.from({ length: 100 }, (_, i) => `floods-feed-token-${String(i).padStart(3, "0")}-0123456789`);
const PER_ADDRESS = 32;
const METRICS_TOKEN = "floods-metrics-token-0123456789abcdef";

let app: TestApp;
let server: AppServer;

beforeAll(async () => {
  app = await createTestApp("floods", {});
  await createUser(app.prisma, { email: ADMIN, role: "admin", password: PASSWORD }, "e2e");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    AUTH_SECRET: "floods-e2e-auth-secret-0123456789abcdef0123",
    LOGIN_MAX_FAILURES: String(MAX_FAILURES),
    TRUSTED_PROXIES: "127.0.0.1/32",
    HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
    PAYMENTS_API_TOKENS: FEED_TOKENS.join(","),
    METRICS_TOKEN,
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await app?.close();
});

let webhooksSent = 0;
/** A signed Stripe webhook, as a gateway at `from` sends it. */
function webhookFrom(from: string) {
  const n = ++webhooksSent;
  const body = JSON.stringify({
    id: `evt_flood_${n}`,
    object: "event",
    type: "charge.succeeded",
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: `ch_flood_${n}`, object: "charge", amount: 100, amount_refunded: 0, currency: "brl", status: "succeeded" } },
  });
  const webhook = signedWebhook("stripe", `evt_flood_${n}`, body, TEST_SECRETS.stripe);
  return requestFrom(from, webhookUrl(server.url, webhook), { method: "POST", headers: webhook.headers, body: webhook.body });
}

/** Where a sign-in's answer sends the browser: its error code, or null for a session. */
async function signInOutcome(response: Response): Promise<string | null> {
  const text = await response.text();
  const url = (JSON.parse(text) as { url?: string }).url;
  return url ? new URL(url).searchParams.get("error") : `${response.status} ${text}`;
}

describe("floods", () => {
  // Each flood starts on a server that has closed the last one's sockets (it counts them until then).
  beforeEach(() => serverSocketsSettled(server.url, 8), 90_000);

  it("[AUTH][FLOOD]: 250 concurrent wrong passwords from one address: at most the limit are checked, the rest refused; the owner signs in from elsewhere", async () => {
    const attacker = { "x-forwarded-for": "203.0.113.7" };
    const cookies = new Map<string, string>();
    const token = await csrfToken(server.url, cookies, attacker);
    const attempt = () =>
      fetch(`${server.url}/api/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: { ...attacker, cookie: cookieHeader(cookies), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: ADMIN, password: "wrong password", csrfToken: token, json: "true" }),
      }).then(signInOutcome);
    const outcomes = await Promise.all(Array.from({ length: 250 }, attempt));
    const checked = outcomes.filter((outcome) => outcome === "CredentialsSignin").length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(MAX_FAILURES);
    // Every other attempt was refused as throttled: none signed in, none failed some other way.
    expect(outcomes.filter((outcome) => outcome !== "CredentialsSignin" && outcome !== "RateLimited")).toEqual([]);
    // What was checked is what the audit log says was checked.
    const { rows } = await app.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE actor = $1 AND details->>'reason' = 'wrong_password'",
      [ADMIN],
    );
    expect(rows[0]!.n).toBe(checked);
    // The owner, from their own address, is not locked out.
    const owner = await httpSignIn(server.url, ADMIN, PASSWORD, { "x-forwarded-for": "198.51.100.20" });
    expect(owner.status).toBe(200);
    expect(owner.cookies.has("next-auth.session-token")).toBe(true);
  });

  it("[AVAILABILITY][CONNECTIONS]: one address trying to hold more idle sockets than the server has, reconnecting: health probes and webhooks from another address keep being answered", async () => {
    const flood = holdSockets(server.url, "127.0.0.2", MAX_CONNECTIONS + 100, 200);
    try {
      await new Promise((done) => setTimeout(done, 1000));
      const answers = [];
      for (let probe = 0; probe < 20; probe++) {
        answers.push(
          await requestFrom("127.0.0.3", `${server.url}/api/health`).then(
            (answer) => answer.status,
            (error: Error) => error.message,
          ),
        );
        if (probe % 4 === 0)
          answers.push(
            await webhookFrom("127.0.0.3").then(
              (answer) => answer.status,
              (error: Error) => error.message,
            ),
          );
        await new Promise((done) => setTimeout(done, 200));
      }
      expect(answers.filter((status) => status !== 200)).toEqual([]);
      // The flood kept trying all along: without a cap per address it would hold every socket.
      expect(flood.opened()).toBeGreaterThan(PER_ADDRESS);
    } finally {
      flood.stop();
    }
    // The flood's sockets count against its address until the server has seen them close.
    await serverSocketsSettled(server.url, 8);
    // A socket that sends nothing is closed by the headers timeout (5 s by default), answered 408.
    const idle = await openSocket(server.url, "127.0.0.2");
    const started = Date.now();
    const closed = await new Promise<string>((done) => {
      let received = "";
      idle.on("data", (data) => (received += String(data)));
      idle.once("close", () => done(received));
    });
    expect(closed).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(7000);
  });

  it("[AVAILABILITY][RESERVE]: many addresses filling every socket but the reserve: a webhook still gets in, the console is told to retry", async () => {
    const general = MAX_CONNECTIONS - reservedConnections(MAX_CONNECTIONS);
    const sockets = [];
    for (let i = 0; i < general; i++) sockets.push(await openSocket(server.url, `127.0.1.${1 + Math.floor(i / PER_ADDRESS)}`));
    try {
      // Accepted in the order they connected: the next sockets come from the reserve.
      expect((await webhookFrom("127.0.0.4")).status).toBe(200);
      const health = await requestFrom("127.0.0.4", `${server.url}/api/health`);
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({ code: "SERVER_BUSY" });
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("[FEED][FLOOD]: 1,000 concurrent wait=30 long polls while webhooks keep being acknowledged fast; a token's 11th wait is refused", async () => {
    /** p99 of `count` webhook acknowledgements, 4 at a time, in ms. */
    const ackP99 = async (count: number) => {
      const took: number[] = [];
      const sender = async () => {
        while (took.length < count) {
          const started = performance.now();
          expect((await webhookFrom("127.0.0.3")).status).toBe(200);
          took.push(performance.now() - started);
        }
      };
      await Promise.all(Array.from({ length: 4 }, sender));
      return took.sort((a, b) => a - b)[Math.ceil(took.length * 0.99) - 1]!;
    };
    await ackP99(20); // warm-up: the first webhooks of a process are slower
    const baseline = await ackP99(100);
    // Waiting for a gateway no webhook here is from: every poll is held for its whole 30 s.
    const poll = async (token: string) => {
      try {
        const response = await fetch(`${server.url}/api/payment-changes?provider=zoop&wait=30`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return `${response.status} ${response.status === 200 ? ((await response.json()) as { data: unknown[] }).data.length : await response.text()}`;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const started = Date.now();
    let answered = 0;
    const polls = FEED_TOKENS.flatMap((token) => Array.from({ length: MAX_WAITS_PER_READER }, () => poll(token).finally(() => answered++)));
    // Measured once every poll is held or answered (accepting a thousand requests is itself work for
    // the server); one answered early fails the test below, with its answer.
    const allArrived = async () => {
      const text = await (await fetch(`${server.url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return Number(/^webhook_inbox_feed_waiting_reads (\d+)/m.exec(text)?.[1]) + answered >= polls.length;
    };
    await waitFor(allArrived, 30_000, `${polls.length} long polls to be held or answered`);
    // While the last token's ten are held, its eleventh is refused at once.
    expect(await poll(FEED_TOKENS.at(-1)!)).toMatch(/^429 .*waiting reads per token/);
    const during = await ackP99(100);
    expect(answered, "long polls answered before the acknowledgements beside them were all measured").toBe(0);
    console.log(
      `webhook ack p99: ${baseline.toFixed(0)} ms alone, ${during.toFixed(0)} ms beside ${polls.length} waiting long polls (${(during / baseline).toFixed(1)}x)`,
    );
    expect(during).toBeLessThan(1500);
    const answers = await Promise.all(polls);
    // Every poll was held to its end and answered with an empty page: none refused, none dropped.
    expect(answers.filter((answer) => answer !== "200 0")).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(29_000);
  }, 120_000);
});
