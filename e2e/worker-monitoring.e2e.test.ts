import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { randomId, webhookFor } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, stopChild, type AppServer } from "./harness/app-server";
import { cookieHeader, httpSignIn } from "./harness/http-session";

// A worker that stops, or is killed, as monitoring sees it through the running web server: the
// health check's token view, its public answer, the Overview and the alert webhook, each within 30 s.

const HEALTH_TOKEN = "worker-monitoring-health-token-0123";
const ADMIN = { email: "ops@example.com", password: "worker-monitoring-password-0123" };

let app: TestApp;
let server: AppServer;
let alerts: Server;
const alertTexts: string[] = [];
let env: Record<string, string>;
let spare: ChildProcess | undefined;
let cookie = "";

type Health = { healthy: boolean; serving: boolean; problems: string[]; workers: { alive: number } | null };

async function health(): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${server.url}/api/health`, { headers: { authorization: `Bearer ${HEALTH_TOKEN}` } });
  return { status: response.status, body: (await response.json()) as Health };
}

async function overview(): Promise<string> {
  return (await fetch(`${server.url}/`, { headers: { cookie } })).text();
}

/** A valid signed Stripe charge event: stored pending, for a worker to process. */
async function postWebhook(): Promise<number> {
  const facts = { chargeId: randomId("ch"), amount: 1500, currency: "usd", customerId: "cus_wait", customerEmail: "wait@example.com" };
  const webhook = webhookFor(
    "stripe",
    facts,
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
    TEST_SECRETS.stripe,
  );
  return (await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", headers: webhook.headers, body: webhook.body })).status;
}

beforeAll(async () => {
  alerts = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += String(chunk)));
    request.on("end", () => {
      alertTexts.push((JSON.parse(body) as { text: string }).text);
      response.end("ok");
    });
  });
  await new Promise<void>((done) => alerts.listen(0, "127.0.0.1", done));
  app = await createTestApp("worker_monitoring", {});
  await createUser(app.prisma, { email: ADMIN.email, role: "admin", password: ADMIN.password }, "e2e");
  env = {
    DATABASE_URL: app.db.url,
    AUTH_SECRET: "worker-monitoring-auth-secret-0123456789abcdef",
    HEALTH_TOKENS: HEALTH_TOKEN,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    ALERT_WEBHOOK_URL: `http://127.0.0.1:${(alerts.address() as AddressInfo).port}/alerts`,
  };
  server = await startAppServer(env);
  cookie = cookieHeader((await httpSignIn(server.url, ADMIN.email, ADMIN.password)).cookies);
  await waitFor(async () => (await health()).body.workers?.alive === 1, 60_000, "the worker alive on /api/health");
}, 240_000);

afterAll(async () => {
  if (spare) await stopChild(spare);
  await server?.stop();
  await app?.close();
  alerts?.close();
});

/** Milliseconds from `since` until `check` holds (polled every 250 ms), failing past 30 s. */
async function within30s(since: number, what: string, check: () => Promise<boolean>): Promise<number> {
  try {
    await waitFor(check, 30_000 - (Date.now() - since), what);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}; health then: ${JSON.stringify((await health()).body)}`);
  }
  return Date.now() - since;
}

describe("a worker that goes away", () => {
  it("[OPS][WORKERS]: stopped, shows on /api/health, the Overview and an alert within 30 s", { timeout: 120_000 }, async () => {
    expect((await health()).body).toMatchObject({ healthy: true, serving: true, workers: { alive: 1 } });
    const stoppedAt = Date.now();
    process.kill(-server.pids.worker, "SIGTERM");
    // Ingest goes on without workers: the event waits.
    expect(await postWebhook()).toBe(200);

    const healthMs = await within30s(stoppedAt, "health to say no worker is alive", async () => {
      const { status, body } = await health();
      return status === 200 && !body.healthy && body.serving && body.problems.some((problem) => problem.startsWith("no worker alive"));
    });
    // The public answer says it too, still 200: a load balancer keeps the web tier that takes webhooks.
    const publicAnswer = await fetch(`${server.url}/api/health`);
    expect({ status: publicAnswer.status, body: await publicAnswer.json() }).toEqual({ status: 200, body: { status: "degraded" } });

    const overviewMs = await within30s(stoppedAt, "the Overview's banner", async () =>
      (await overview()).includes('data-testid="no-worker-banner"'),
    );
    expect(await overview()).toMatch(/data-state="stopped"/);
    const alertMs = await within30s(stoppedAt, "the worker_down alert", async () =>
      alertTexts.some((text) => /no worker alive/.test(text)),
    );
    console.log(`stopped worker: health ${healthMs} ms, overview ${overviewMs} ms, alert ${alertMs} ms`);
  });

  it(
    "[OPS][WORKERS]: killed, shows lost on /api/health and the Overview within 30 s, never alive for a minute",
    { timeout: 180_000 },
    async () => {
      spare = spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
        env: { ...process.env, ...env, NODE_ENV: "production" },
        detached: true,
        stdio: "ignore",
      });
      await waitFor(async () => (await health()).body.workers?.alive === 1, 60_000, "the new worker alive");
      // It drains the waiting event; the next one waits once it is gone.
      await waitFor(async () => (await health()).body.healthy, 60_000, "the backlog drained");
      const killedAt = Date.now();
      process.kill(-spare.pid!, "SIGKILL");
      expect(await postWebhook()).toBe(200);
      const healthMs = await within30s(killedAt, "health to see the killed worker gone", async () => {
        const { body } = await health();
        return !body.healthy && body.workers?.alive === 0;
      });
      const overviewMs = await within30s(killedAt, "the Overview to show it lost", async () => /data-state="lost"/.test(await overview()));
      console.log(`killed worker: health ${healthMs} ms, overview ${overviewMs} ms`);
    },
  );
});
