import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "@/lib/destinations/sign-message";
import type { PaymentChange } from "@/lib/outbox/payment-change";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, stopChild, type AppServer } from "./harness/app-server";
import { sendAll, httpSender, planWebhooks } from "./simulator/send-webhooks";
import { generateHistories } from "./simulator/history";
import { startHostReceiver, type HostReceiver } from "./simulator/host-receiver";

// [HOST][DESTINATIONS]: the host application told of every payment change, pushed and pulled, while
// things go wrong: two workers, a receiver that answers 500 to 30% of messages and hangs on 10%,
// is down for 30 s in the middle, and one worker killed with kill -9 while it delivers. Every
// message is verified with the official standardwebhooks library, as the host would.

const TOKEN = "e2e-feed-token-0123456789";
const secrets = { stripe: TEST_SECRETS.stripe };
let app: TestApp;
let server: AppServer;
let receiver: HostReceiver;
let secondWorker: ChildProcess;
let env: Record<string, string>;

function startWorker(): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
    env: { ...process.env, ...env, NODE_ENV: "production" },
    detached: true,
    stdio: "ignore",
  });
}

beforeAll(async () => {
  app = await createTestApp("destinations_e2e");
  const secret = generateSecret();
  receiver = await startHostReceiver(secret);
  env = {
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    REFETCH_STRIPE: "none",
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    PAYMENTS_API_TOKENS: TOKEN,
    DESTINATION_URL: receiver.url,
    DESTINATION_SECRET: secret,
    // Short timeouts and retries keep the run to about two minutes; enough retries to outlast the outage.
    DESTINATION_TIMEOUT_MS: "1000",
    DESTINATION_RETRY_DELAYS_SECONDS: "0.2,0.5,1,2,3,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5",
    DESTINATION_BREAKER_COOLDOWN_SECONDS: "2",
  };
  server = await startAppServer(env);
  secondWorker = startWorker();
});
afterAll(async () => {
  await Promise.all([server?.stop(), secondWorker && stopChild(secondWorker)]);
  await receiver?.close();
  await app?.close();
});

async function count(sql: string): Promise<number> {
  return (await app.pool.query<{ n: number }>(sql)).rows[0]!.n;
}

describe("[HOST][DESTINATIONS] telling the host", () => {
  it("delivers every change at least once, each payment in version order, to a flaky host through a kill -9 and an outage; nothing dead", async () => {
    const histories = generateHistories(2112, 60, ["stripe"], { sameSecondRate: 0 });
    const plan = planWebhooks(histories, { secrets, duplicateRate: 0.2, shuffle: "payment", seed: 5 });
    receiver.set({ failShare: 0.3, hangShare: 0.1 });
    const sending = sendAll(plan, httpSender(server.url), { concurrency: 8, secrets });

    // kill -9 the second worker while deliveries are in flight, and start it again.
    await waitFor(async () => receiver.received.length >= 20 || null, 60_000, "deliveries under way");
    const leased = await count("SELECT count(*)::int AS n FROM deliveries WHERE leased_until > now()");
    process.kill(-secondWorker.pid!, "SIGKILL");
    secondWorker = startWorker();

    // The host goes down for 30 s in the middle.
    await waitFor(async () => receiver.received.length >= 60 || null, 60_000, "more deliveries");
    receiver.set({ down: true });
    const downSince = Date.now();
    expect((await sending).failed).toBe(0);
    await new Promise((resume) => setTimeout(resume, Math.max(0, 30_000 - (Date.now() - downSince))));
    receiver.set({ down: false });

    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'")) === 0,
      60_000,
      "inbox drained",
    );
    const changes = await count("SELECT count(*)::int AS n FROM payment_changes");
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'")) === changes,
      90_000,
      `all ${changes} changes delivered`,
    );

    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE status = 'dead'")).toBe(0);
    expect(receiver.rejected).toBe(0);
    expect(receiver.outOfOrder).toEqual([]);
    // Deduped on webhook-id: each change applied exactly once.
    const { rows } = await app.pool.query<{ id: string }>("SELECT 'chg_' || id AS id FROM payment_changes");
    expect(receiver.applied.map(({ id }) => id).sort()).toEqual(rows.map(({ id }) => id).sort());
    // The host's final view is the truth: each payment's last version as the inbox holds it.
    const { rows: payments } = await app.pool.query<{ key: string; version: number; status: string; amount_refunded: number }>(
      "SELECT provider || '/' || gateway_charge_id AS key, version, status, amount_refunded FROM payments",
    );
    for (const payment of payments) {
      expect(receiver.lastVersion.get(payment.key)).toMatchObject({
        version: payment.version,
        status: payment.status,
        amountRefunded: payment.amount_refunded,
      });
    }
    for (const history of histories) {
      expect(receiver.lastVersion.get(`stripe/${history.payment.chargeId}`)).toMatchObject({ status: history.truth.status });
    }
    const attempts = await count("SELECT count(*)::int AS n FROM delivery_attempts");
    console.log(
      `[destinations] ${changes} changes, ${receiver.received.length} verified arrivals (${receiver.received.length - changes} repeats), ` +
        `${attempts} attempts recorded, ${leased} leased at the kill`,
    );
  });

  it("serves the same changes as a feed through the running server, once each, in version order per payment", async () => {
    expect((await fetch(`${server.url}/api/payment-changes`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/payment-changes?after=nope`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      400,
    );
    const seen: PaymentChange[] = [];
    let cursor = "";
    for (;;) {
      const response = await fetch(`${server.url}/api/payment-changes?limit=37${cursor ? `&after=${cursor}` : ""}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: PaymentChange[]; cursor: string };
      seen.push(...page.data);
      cursor = page.cursor;
      if (page.data.length === 0) break;
    }
    const { rows } = await app.pool.query<{ id: string }>("SELECT 'chg_' || id AS id FROM payment_changes");
    expect(seen.map(({ id }) => id).sort()).toEqual(rows.map(({ id }) => id).sort());
    const versions = new Map<string, number[]>();
    for (const change of seen) versions.set(change.chargeId, [...(versions.get(change.chargeId) ?? []), change.version]);
    for (const list of versions.values()) expect(list).toEqual(list.map((_, index) => index + 1));
  });
});
