import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HistoryStep, PaymentFacts } from "@/lib/testing/gateway-events";
import { startHostReceiver, type HostReceiver } from "@/e2e/simulator/host-receiver";
import type { ProcessDeps } from "@/lib/inbox/process/process-event";
import { changeStripePayment, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig, waitFor } from "@/lib/testing/test-worker";
import type { AppConfig } from "../config/env";
import { withTransaction } from "../db/pool";
import { createDestination, rotateDestinationSecret } from "./manage-destinations";
import {
  claimDeliveries,
  outcomeOf,
  settleDeliveries,
  type ClaimedDelivery,
  type GoneDestination,
  type SentDelivery,
} from "./deliver-changes";
import { findAlerts } from "../alerts/check-alerts";
import { destinationHealth } from "./destination-stats";
import { fanOutChanges } from "./fan-out-changes";
import { postMessage } from "./post-message";
import { isRefusedAddress, refusingLookup } from "./refuse-address";
import { sendTestMessage } from "./send-test-message";
import { resendDeliveries } from "./resend-deliveries";
import { startDeliveryWorker, type DeliveryWorker } from "./run-delivery-worker";

// Pushing changes to a destination, against a real database and a receiver that verifies every
// message with the official standardwebhooks library, as a host would.

let app: TestApp;
let deps: ProcessDeps;
let config: AppConfig;
let workers: DeliveryWorker[] = [];
let receivers: HostReceiver[] = [];
let deadOnes: SentDelivery[] = [];
let goneOnes: GoneDestination[] = [];
const admin = { actor: "admin@example.com" };

beforeAll(async () => {
  app = await createTestApp("deliver_changes");
  config = testConfig(app.env, {
    DESTINATION_RETRY_DELAYS_SECONDS: "0.05,0.05",
    DESTINATION_TIMEOUT_MS: "2000",
    DESTINATION_BREAKER_FAILURES: "1000",
  });
  deps = processDeps(app, config);
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes, destinations, audit_log CASCADE");
});
afterEach(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  workers = [];
  receivers = [];
  deadOnes = [];
  goneOnes = [];
});

const facts = stripePayment;

async function change(payment: PaymentFacts, step: Pick<HistoryStep, "kind" | "occurredAtMs"> & Partial<HistoryStep>): Promise<void> {
  expect(await changeStripePayment(app, deps, payment, step)).toBe("processed");
}

/** A destination on a fresh receiver, and a running delivery worker. */
async function destinationWithReceiver(overrides: Partial<AppConfig["destinations"]> = {}) {
  const { destination, secret } = await createDestination(app.pool, { name: "host", url: "http://127.0.0.1:9/placeholder" }, admin);
  const receiver = await startHostReceiver(secret);
  receivers.push(receiver);
  await app.pool.query("UPDATE destinations SET url = $2 WHERE id = $1", [destination.id, receiver.url]);
  workers.push(
    startDeliveryWorker(
      app.pool,
      { ...config, destinations: { ...config.destinations, ...overrides } },
      { dead: (dead) => deadOnes.push(dead), gone: (gone) => goneOnes.push(gone) },
    ),
  );
  return { destination, secret, receiver };
}

async function deliveryStatuses(destinationId: number) {
  const { rows } = await app.pool.query<{ version: number; status: string; attempts: number }>(
    "SELECT version, status, attempts FROM deliveries WHERE destination_id = $1 ORDER BY id",
    [destinationId],
  );
  return rows;
}

describe("destinations", () => {
  it("delivers every change once, signed, with the change id as webhook-id and each payment's versions in order", async () => {
    const { receiver } = await destinationWithReceiver();
    const payments = Array.from({ length: 8 }, facts);
    const now = Date.now();
    for (const payment of payments) await change(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    for (const payment of payments) await change(payment, { kind: "refund", amountRefunded: 200, occurredAtMs: now - 20_000 });
    for (const payment of payments.slice(0, 4)) await change(payment, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 10_000 });

    await waitFor(async () => receiver.applied.length === 20, 30_000, "20 changes delivered");
    const { rows } = await app.pool.query<{ id: string }>("SELECT 'chg_' || id AS id FROM payment_changes ORDER BY id");
    expect(receiver.applied.map(({ id }) => id).sort()).toEqual(rows.map(({ id }) => id).sort());
    expect(receiver.received.every(({ id, change }) => id === change.id)).toBe(true);
    expect(receiver.outOfOrder).toEqual([]);
    expect(receiver.rejected).toBe(0);
    // Each answer is recorded as it comes: one attempt per delivery, none lost to a lease running out.
    const tally = async () =>
      (
        await app.pool.query(
          "SELECT count(*)::int AS delivered, sum(attempts)::int AS attempts, (SELECT count(*)::int FROM delivery_attempts) AS recorded FROM deliveries WHERE status = 'delivered'",
        )
      ).rows[0];
    expect(await waitFor(async () => ((await tally()).delivered === 20 ? tally() : null), 30_000, "20 delivered")).toEqual({
      delivered: 20,
      attempts: 20,
      recorded: 20,
    });
    expect(receiver.lastVersion.get(`stripe/${payments[0]!.chargeId}`)).toMatchObject({
      version: 3,
      status: "refunded",
      previousStatus: "partially_refunded",
      amountRefunded: 1000,
    });
  });

  it("pushes each change with its payment's gateway account", async () => {
    const { receiver } = await destinationWithReceiver();
    const connected = { ...facts(), account: "acct_push_1" };
    const own = facts();
    for (const payment of [connected, own]) await change(payment, { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    await waitFor(async () => receiver.applied.length === 2, 30_000, "2 changes delivered");
    const accounts = new Map(receiver.received.map(({ change }) => [change.chargeId, change.account]));
    expect([accounts.get(connected.chargeId), accounts.get(own.chargeId)]).toEqual(["acct_push_1", "default"]);
  });

  it("holds a payment's next version until the previous one is answered, while other payments pass it", async () => {
    const { receiver, destination } = await destinationWithReceiver({ retryDelaysSeconds: Array(50).fill(0.05) });
    const stuck = facts();
    const other = facts();
    receiver.set({ refuse: (change) => change.chargeId === stuck.chargeId });
    const now = Date.now();
    await change(stuck, { kind: "succeeded", occurredAtMs: now - 30_000 });
    await change(stuck, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 20_000 });
    await change(other, { kind: "succeeded", occurredAtMs: now - 30_000 });
    await change(other, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 20_000 });

    await waitFor(async () => receiver.applied.length === 2, 30_000, "the other payment's two versions");
    const stuckDeliveries = async () =>
      (
        await app.pool.query<{ version: number; attempts: number; status: string }>(
          "SELECT c.version, d.attempts, d.status FROM deliveries d JOIN payment_changes c ON c.id = d.change_id WHERE c.gateway_charge_id = $1 ORDER BY c.version",
          [stuck.chargeId],
        )
      ).rows;
    await waitFor(async () => ((await stuckDeliveries())[0]?.attempts ?? 0) >= 3, 30_000, "the stuck version 1 retried");
    expect((await stuckDeliveries())[1]).toEqual({ version: 2, attempts: 0, status: "pending" });
    expect(destination.enabled).toBe(true);

    receiver.set({ refuse: null });
    await waitFor(async () => receiver.applied.length === 4, 30_000, "the stuck payment's versions");
    expect(receiver.applied.filter(({ chargeId }) => chargeId === stuck.chargeId).map(({ version }) => version)).toEqual([1, 2]);
    expect(receiver.outOfOrder).toEqual([]);
  });

  it("records each attempt, goes dead after the last retry (reported for the alert), lets the next version go, and resends on request (audited)", async () => {
    const { receiver, destination } = await destinationWithReceiver();
    const payment = facts();
    receiver.set({ fixedStatus: 503 });
    const now = Date.now();
    await change(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    await waitFor(async () => (await deliveryStatuses(destination.id))[0]?.status === "dead", 30_000, "dead after the retries");
    expect(await deliveryStatuses(destination.id)).toEqual([{ version: 1, status: "dead", attempts: 3 }]);
    const { rows: attempts } = await app.pool.query(
      "SELECT outcome, status_code, response_excerpt FROM delivery_attempts WHERE destination_id = $1",
      [destination.id],
    );
    expect(attempts).toEqual(Array(3).fill({ outcome: "failed", status_code: 503, response_excerpt: "fixed answer" }));
    expect(deadOnes.map(({ claimed }) => claimed.change)).toMatchObject([{ chargeId: payment.chargeId, version: 1 }]);

    receiver.set({ fixedStatus: null });
    await change(payment, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 20_000 });
    await waitFor(async () => receiver.applied.length === 1, 30_000, "version 2 after version 1 went dead");
    expect(receiver.applied[0]).toMatchObject({ version: 2 });

    expect(await resendDeliveries(app.pool, { destinationId: destination.id }, admin)).toBe(1);
    await waitFor(async () => receiver.applied.length === 2, 30_000, "the dead version 1 resent");
    // The host has it; its answer is recorded right after.
    await waitFor(
      async () => (await deliveryStatuses(destination.id)).every(({ status }) => status === "delivered"),
      30_000,
      "both recorded delivered",
    );
    const { rows: audit } = await app.pool.query("SELECT actor, details FROM audit_log WHERE action = 'delivery_resent'");
    expect(audit).toMatchObject([{ actor: "admin@example.com", details: { destinationId: destination.id, resent: 1 } }]);
  });

  it("switches a destination off when it answers 410 Gone (reported for the alert), keeping its deliveries for when it is switched on again", async () => {
    const { receiver, destination } = await destinationWithReceiver();
    receiver.set({ fixedStatus: 410 });
    await change(facts(), { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    await waitFor(
      async () => {
        const { rows } = await app.pool.query("SELECT enabled, disabled_reason FROM destinations WHERE id = $1", [destination.id]);
        return rows[0].enabled === false ? rows[0] : null;
      },
      30_000,
      "the destination switched off",
    );
    await waitFor(async () => goneOnes.length > 0, 30_000, "the switch-off reported");
    expect((await deliveryStatuses(destination.id))[0]).toMatchObject({ status: "pending" });
    const { rows } = await app.pool.query("SELECT outcome, status_code FROM delivery_attempts");
    expect(rows).toEqual([{ outcome: "gone", status_code: 410 }]);
    await workers[0]!.stop();
    expect(goneOnes).toEqual([{ id: destination.id, name: "host" }]);
    expect(await destinationHealth(app.pool)).toEqual([expect.objectContaining({ id: destination.id, gone: true, circuitOpen: false })]);
  });

  it("opens the destination's breaker after consecutive failures: nothing is sent until the cooldown ends", async () => {
    const { receiver, destination } = await destinationWithReceiver({
      breakerFailures: 2,
      breakerCooldownSeconds: 3600,
      retryDelaysSeconds: Array(20).fill(0.05),
    });
    receiver.set({ fixedStatus: 500 });
    for (const payment of [facts(), facts(), facts()]) await change(payment, { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    await waitFor(
      async () => {
        const { rows } = await app.pool.query("SELECT breaker_open_until > now() AS open FROM destinations WHERE id = $1", [
          destination.id,
        ]);
        return rows[0].open;
      },
      30_000,
      "the breaker open",
    );
    // Monitoring sees it at once, long before the deliveries run out of retries.
    expect(await destinationHealth(app.pool)).toEqual([
      expect.objectContaining({
        id: destination.id,
        circuitOpen: true,
        gone: false,
        undelivered: 3,
        oldestUndeliveredSeconds: expect.any(Number),
      }),
    ]);
    const failing = (await findAlerts({ pool: app.pool, config })).filter((alert) => alert.kind === "destination_failing");
    expect(failing).toEqual([{ kind: "destination_failing", provider: `destination:${destination.id}`, text: expect.any(String) }]);
    expect(failing[0]!.text).toMatch(
      /^\[webhook-inbox\] destination \S+ \(id \d+\) is failing: its circuit opened .*; 3 pushes wait, the oldest change for \d+s\./,
    );
    const attempted = (await app.pool.query("SELECT count(*)::int AS n FROM delivery_attempts")).rows[0].n;
    // Another round of claims finds nothing due on an open breaker.
    expect(await claimDeliveries(app.pool, config.destinations, 10)).toEqual([]);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM delivery_attempts")).rows[0].n).toBe(attempted);
  });

  it("signs with both secrets after a rotation, so a host holding either verifies", async () => {
    const { destination, secret: oldSecret, receiver } = await destinationWithReceiver();
    const newSecret = await rotateDestinationSecret(app.pool, destination.id, 24, admin);
    const onlyNew = await startHostReceiver(newSecret);
    receivers.push(onlyNew);
    await change(facts(), { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    await waitFor(async () => receiver.applied.length === 1, 30_000, "delivered to the host holding the old secret");
    expect(oldSecret).not.toBe(newSecret);
    await app.pool.query("UPDATE destinations SET url = $2 WHERE id = $1", [destination.id, onlyNew.url]);
    await change(facts(), { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    await waitFor(async () => onlyNew.applied.length === 1, 30_000, "delivered to the host holding the new secret");
    expect(receiver.rejected + onlyNew.rejected).toBe(0);
  });
});

describe("claims and answers (no worker: the test claims and answers as a host would)", () => {
  const answered = (claimed: ClaimedDelivery[], statusCode: number): SentDelivery[] =>
    claimed.map((delivery) => {
      const result = { statusCode, latencyMs: 1, excerpt: null, error: null };
      return { claimed: delivery, outcome: outcomeOf(result), result };
    });

  /** A destination with `count` payments' first versions due to it. */
  async function destinationWithBacklog(count: number) {
    const { destination } = await createDestination(app.pool, { name: "host", url: "http://127.0.0.1:9/never" }, admin);
    for (let i = 0; i < count; i++) await change(facts(), { kind: "succeeded", occurredAtMs: Date.now() - 30_000 });
    expect(await fanOutChanges(app.pool)).toBe(count);
    return destination;
  }

  const breaker = async (id: number) =>
    (
      await app.pool.query<{ failures: number; open: boolean; coolingDown: boolean }>(
        `SELECT consecutive_failures AS failures, COALESCE(breaker_open_until > now(), false) AS open,
                COALESCE(breaker_open_until > now() + interval '1 hour' - interval '1 minute', false) AS "coolingDown"
           FROM destinations WHERE id = $1`,
        [id],
      )
    ).rows[0];
  const coolDown = (id: number) => app.pool.query("UPDATE destinations SET breaker_open_until = now() WHERE id = $1", [id]);

  it("after the cooldown admits one probe at a time across claims: its failure reopens the breaker, its success closes it", async () => {
    const settings = { ...config.destinations, breakerFailures: 2, breakerCooldownSeconds: 3600, retryDelaysSeconds: Array(20).fill(0) };
    const destination = await destinationWithBacklog(6);
    const first = await claimDeliveries(app.pool, settings, 3);
    expect(first).toHaveLength(3);
    expect((await settleDeliveries(app.pool, settings, answered(first.slice(0, 2), 503))).breakersOpened).toEqual([destination.id]);
    expect(await claimDeliveries(app.pool, settings, 10)).toEqual([]);

    // Cooled down, but one sent before the breaker opened is still in flight: no probe beside it.
    await coolDown(destination.id);
    expect(await claimDeliveries(app.pool, settings, 10)).toEqual([]);
    await settleDeliveries(app.pool, settings, answered(first.slice(2), 503));
    expect(await breaker(destination.id)).toEqual({ failures: 3, open: true, coolingDown: true });

    // A claim of many gets one probe; a claim beside it, before it commits, gets none, nor any after while it is in flight.
    await coolDown(destination.id);
    const probe = await withTransaction(app.pool, async (tx) => {
      const claimed = await claimDeliveries(tx, settings, 10);
      expect(await claimDeliveries(app.pool, settings, 10)).toEqual([]);
      return claimed;
    });
    expect(probe).toHaveLength(1);
    expect(await breaker(destination.id)).toEqual({ failures: 3, open: true, coolingDown: false });
    expect(await claimDeliveries(app.pool, settings, 10)).toEqual([]);
    await settleDeliveries(app.pool, settings, answered(probe, 500));
    expect(await breaker(destination.id)).toEqual({ failures: 4, open: true, coolingDown: true });
    expect(await claimDeliveries(app.pool, settings, 10)).toEqual([]);

    // A prober killed mid-send holds nothing past its lease: the next probe goes.
    await coolDown(destination.id);
    const lost = await claimDeliveries(app.pool, settings, 10);
    expect(lost).toHaveLength(1);
    await app.pool.query("UPDATE deliveries SET leased_until = now() WHERE id = $1", [lost[0]!.id]);
    await coolDown(destination.id);
    const next = await claimDeliveries(app.pool, settings, 10);
    expect(next).toHaveLength(1);

    await settleDeliveries(app.pool, settings, answered(next, 200));
    expect(await breaker(destination.id)).toEqual({ failures: 0, open: false, coolingDown: false });
    expect(await claimDeliveries(app.pool, settings, 10)).toHaveLength(5);
  });

  it("reports a destination switched off by 410 once, however many answers say so", async () => {
    const destination = await destinationWithBacklog(2);
    const claimed = await claimDeliveries(app.pool, config.destinations, 10);
    expect(claimed).toHaveLength(2);
    const reports = await Promise.all(
      claimed.map((delivery) => settleDeliveries(app.pool, config.destinations, answered([delivery], 410))),
    );
    expect(reports.flatMap(({ gone }) => gone)).toEqual([{ id: destination.id, name: "host" }]);
    expect((await settleDeliveries(app.pool, config.destinations, answered(claimed, 410))).gone).toEqual([]);
  });
});

describe("where a destination may point", () => {
  it("refuses link-local and metadata addresses, literal or resolved, and never follows a redirect", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://[fe80::1]/",
      "http://100.100.100.200/",
    ]) {
      expect(await postMessage(url, "{}", {}, { timeoutMs: 1000, allowedHosts: [] })).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/link-local or cloud metadata/),
      });
    }
    // A name is checked on what it resolves to: the lookup the socket connects through refuses it.
    const resolve = (name: string) =>
      new Promise<string>((done) => refusingLookup(name, {}, (error, address) => done(error ? error.message : String(address))));
    expect(await resolve("169.254.169.254")).toMatch(/link-local or cloud metadata/);
    expect(await resolve("localhost")).toMatch(/^(127\.0\.0\.1|::1)$/);
    const { createServer } = await import("node:http");
    const redirecting = createServer((_, response) => response.writeHead(302, { location: "http://169.254.169.254/" }).end());
    await new Promise<void>((ready) => redirecting.listen(0, "127.0.0.1", ready));
    const port = (redirecting.address() as { port: number }).port;
    try {
      expect(await postMessage(`http://127.0.0.1:${port}/`, "{}", {}, { timeoutMs: 1000, allowedHosts: [] })).toMatchObject({
        statusCode: 302,
      });
    } finally {
      redirecting.close();
    }
    const { createDestination: create } = await import("./manage-destinations");
    await expect(create(app.pool, { name: "metadata", url: "http://169.254.169.254/" }, admin)).rejects.toThrow(/link-local/);
  });

  it("refuses the metadata address embedded in IPv6 however it is written (mapped, translated, compatible, NAT64), not ::1", () => {
    for (const host of [
      "[::ffff:169.254.169.254]",
      "[::ffff:a9fe:a9fe]",
      "[::ffff:0:a9fe:a9fe]",
      "[::ffff:0:169.254.169.254]",
      "[64:ff9b::a9fe:a9fe]",
      "[64:ff9b::169.254.169.254]",
      "[::a9fe:a9fe]",
      "[::169.254.169.254]",
      "[0:0:0:0:0:ffff:a9fe:a9fe]",
    ]) {
      expect(isRefusedAddress(host), host).toBe(true);
    }
    for (const host of ["[::1]", "127.0.0.1", "[::ffff:10.0.0.1]", "[64:ff9b::a00:1]", "[2002:a9fe:a9fe::1]", "host.internal"]) {
      expect(isRefusedAddress(host), host).toBe(false);
    }
  });

  it("with DESTINATION_ALLOWED_HOSTS, creates and sends only to the hosts it lists", async () => {
    const allowed = ["*.shop.internal", "10.1.0.0/16", "127.0.0.1"];
    const { createDestination: create } = await import("./manage-destinations");
    await expect(create(app.pool, { name: "elsewhere", url: "http://attacker.example/" }, admin, allowed)).rejects.toThrow(
      /attacker.example is not in DESTINATION_ALLOWED_HOSTS/,
    );
    await expect(create(app.pool, { name: "apex", url: "http://shop.internal/" }, admin, allowed)).rejects.toThrow(/not in/);
    await expect(create(app.pool, { name: "range", url: "http://10.2.0.1/" }, admin, allowed)).rejects.toThrow(/not in/);
    expect((await create(app.pool, { name: "sub", url: "http://api.shop.internal/hooks" }, admin, allowed)).destination.url).toBe(
      "http://api.shop.internal/hooks",
    );
    expect((await create(app.pool, { name: "in range", url: "http://10.1.2.3/" }, admin, allowed)).destination.name).toBe("in range");
    // Sending checks again: a URL stored before the list was set is not used.
    expect(await postMessage("http://attacker.example/", "{}", {}, { timeoutMs: 1000, allowedHosts: allowed })).toMatchObject({
      statusCode: null,
      error: "attacker.example is not in DESTINATION_ALLOWED_HOSTS",
    });
  });

  it("audits a test message with what the destination answered", async () => {
    const { destination } = await destinationWithReceiver();
    const result = await sendTestMessage(app.pool, config.destinations, destination.id, admin);
    expect(result?.statusCode).toBe(204);
    const { rows } = await app.pool.query("SELECT actor, details FROM audit_log WHERE action = 'destination_tested'");
    expect(rows).toEqual([{ actor: admin.actor, details: { destinationId: destination.id, statusCode: 204, error: null } }]);
  });
});
