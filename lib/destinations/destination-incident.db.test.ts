import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHostReceiver, type HostReceiver } from "@/e2e/simulator/host-receiver";
import type { ProcessDeps } from "@/lib/inbox/process/process-event";
import { changeStripePayment, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import type { AppConfig } from "../config/env";
import { claimDeliveries, sendDelivery, settleDeliveries } from "./deliver-changes";
import { getDestinationState, nextTry } from "./destination-state";
import { fanOutChanges } from "./fan-out-changes";
import { getAttempt, listAttempts } from "./list-attempts";
import { listDeliveries } from "./list-deliveries";
import { createDestination, setDestinationPaused } from "./manage-destinations";
import { previewRecovery, recoverSince } from "./recover-changes";
import { redactDeliveryAttempts } from "./redact-attempts";
import { countResendable, resendDeliveries } from "./resend-deliveries";
import { retryNow } from "./retry-deliveries";

// A destination during an incident, against a real database and a receiver that verifies every
// message: its state, the next try the page shows, the attempts and what each sent and got, and what
// an operator does about it (retry now, pause, bulk resend, recover since T). The worker's rounds are
// driven by hand, so every step is seen between two rounds.

let app: TestApp;
let deps: ProcessDeps;
let config: AppConfig;
let receiver: HostReceiver;
const admin = { actor: "admin@example.com" };

beforeAll(async () => {
  app = await createTestApp("destination_incident");
  config = testConfig(app.env, {
    DESTINATION_RETRY_DELAYS_SECONDS: "60,60,60",
    DESTINATION_TIMEOUT_MS: "2000",
    DESTINATION_BREAKER_FAILURES: "2",
    DESTINATION_BREAKER_COOLDOWN_SECONDS: "300",
  });
  deps = processDeps(app, config);
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes, destinations, audit_log CASCADE");
});
afterEach(async () => receiver?.close());

async function paid(): Promise<string> {
  const payment = stripePayment();
  expect(await changeStripePayment(app, deps, payment, { kind: "succeeded", occurredAtMs: Date.now() - 30_000 })).toBe("processed");
  return payment.chargeId;
}

/** One round of the delivery worker: fan out, claim what is due, send it, record the answers. */
async function round(): Promise<number> {
  await fanOutChanges(app.pool);
  const claimed = await claimDeliveries(app.pool, config.destinations, 50);
  const sent = await Promise.all(claimed.map((delivery) => sendDelivery(delivery, config.destinations)));
  await settleDeliveries(app.pool, config.destinations, sent);
  return claimed.length;
}

async function failingDestination() {
  const { destination, secret } = await createDestination(app.pool, { name: "shop", url: "http://127.0.0.1:9/placeholder" }, admin);
  receiver = await startHostReceiver(secret, { fixedStatus: 503 });
  await app.pool.query("UPDATE destinations SET url = $2 WHERE id = $1", [destination.id, receiver.url]);
  return destination.id;
}

const audit = async (action: string) =>
  (await app.pool.query("SELECT actor, details FROM audit_log WHERE action = $1 ORDER BY id", [action])).rows;

describe("a destination during an incident", () => {
  it("says its circuit is open, when it opened and next probes, its last error and backlog; no next try is in the past", async () => {
    const id = await failingDestination();
    for (let i = 0; i < 3; i++) await paid();
    expect(await round()).toBe(3);
    const state = (await getDestinationState(app.pool, id))!;
    expect(state).toMatchObject({
      condition: "circuit_open",
      consecutiveFailures: 3,
      lastError: { statusCode: 503, reason: "Service Unavailable" },
      undelivered: 3,
    });
    expect(state.circuit!.openedAt!.getTime()).toBeLessThanOrEqual(state.now.getTime());
    expect(state.circuit!.probing).toBe(false);
    expect(state.circuit!.probesAt!.getTime() - state.now.getTime()).toBeGreaterThan(290_000);
    expect(state.oldestUndeliveredAt).not.toBeNull();

    // The deliveries' own backoff ends before the circuit's probe: the page shows the probe's time.
    await app.pool.query("UPDATE deliveries SET next_attempt_at = now() - interval '1 hour'");
    const page = await listDeliveries(app.pool, id, {}, { page: 1, pageSize: 2 });
    expect(page).toMatchObject({ total: 3, totalCapped: false, page: 1 });
    expect(page.rows).toHaveLength(2);
    for (const row of page.rows) {
      const next = nextTry(row, state)!;
      expect(next.at).toEqual(state.circuit!.probesAt);
      expect(next.waitsFor).toMatch(/probe/);
    }
    // A circuit that cooled down probes with its next round: no time is shown, only what it waits for.
    await app.pool.query("UPDATE destinations SET breaker_open_until = now() - interval '1 second'");
    const cooled = (await getDestinationState(app.pool, id))!;
    expect(nextTry(page.rows[0]!, cooled)).toEqual({ at: null, waitsFor: "the circuit's next probe (due now) to succeed" });
    // The second page holds the rest.
    expect((await listDeliveries(app.pool, id, {}, { page: 2, pageSize: 2 })).rows).toHaveLength(1);
  });

  it("pages the attempts with their total, and shows one as sent (signature masked) and answered", async () => {
    const id = await failingDestination();
    await paid();
    await paid();
    await round();
    const page = await listAttempts(app.pool, id, {}, { page: 1, pageSize: 1 });
    expect(page).toMatchObject({ total: 2, rows: [{ outcome: "failed", statusCode: 503 }] });
    const attempt = (await getAttempt(app.pool, id, page.rows[0]!.id))!;
    expect(attempt.requestHeaders).toMatchObject({
      "content-type": "application/json",
      "webhook-id": attempt.changeId,
      "webhook-signature": "v1,***",
      "user-agent": "webhook-inbox",
    });
    const { rows } = await app.pool.query("SELECT request_headers::text AS stored FROM delivery_attempts");
    expect(rows.every(({ stored }) => !/v1,[A-Za-z0-9+/]{20,}/.test(stored))).toBe(true);
    expect(JSON.parse(attempt.requestBody)).toMatchObject({ type: "payment.updated", data: { id: attempt.changeId } });
    expect(attempt.responseHeaders).toHaveProperty("date");
    expect(attempt.responseExcerpt).toBe("fixed answer");
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
    // Another destination's attempt is not shown here.
    expect(await getAttempt(app.pool, id + 1, attempt.id)).toBeNull();
    // One delivery's attempts.
    expect((await listAttempts(app.pool, id, { deliveryId: attempt.deliveryId }, { page: 1, pageSize: 10 })).total).toBe(1);

    // An erasure drops the answers' headers of the person's payments (they might quote the customer).
    await app.pool.query(
      `UPDATE delivery_attempts SET response_headers = '{"x-customer": "ana@example.com", "date": "today"}' WHERE id = $1`,
      [attempt.id],
    );
    await redactDeliveryAttempts(app.pool, [attempt.paymentId], ["ana@example.com"]);
    expect((await getAttempt(app.pool, id, attempt.id))!.responseHeaders).toBeNull();
  });

  it("retries now: one delivery goes as the circuit's probe at once, and its success closes the circuit (audited)", async () => {
    const id = await failingDestination();
    for (let i = 0; i < 3; i++) await paid();
    await round();
    expect(await round()).toBe(0);
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM deliveries ORDER BY id DESC LIMIT 1");
    const last = rows[0]!.id;
    receiver.set({ fixedStatus: null });
    expect(await retryNow(app.pool, { destinationId: id, deliveryId: last }, admin)).toEqual({ retried: 1, probed: true });
    const claimed = await claimDeliveries(app.pool, config.destinations, 50);
    expect(claimed.map((delivery) => delivery.id)).toEqual([last]);
    expect((await getDestinationState(app.pool, id))!.circuit).toMatchObject({ probing: true, probesAt: null });
    await settleDeliveries(app.pool, config.destinations, [await sendDelivery(claimed[0]!, config.destinations)]);
    expect((await getDestinationState(app.pool, id))!.condition).toBe("healthy");
    // The rest still wait out their backoff; retrying the queue sends them now.
    expect(await round()).toBe(0);
    expect(await retryNow(app.pool, { destinationId: id }, admin)).toEqual({ retried: 2, probed: false });
    expect(await round()).toBe(2);
    expect(receiver.applied).toHaveLength(3);
    expect(await audit("delivery_retried")).toMatchObject([
      { actor: admin.actor, details: { destinationId: id, deliveryId: last, retried: 1, probed: true } },
      { actor: admin.actor, details: { destinationId: id, retried: 2, probed: false } },
    ]);
  });

  it("pauses: nothing is sent, deliveries keep queueing, the state says paused; resumed, they go (audited)", async () => {
    const id = await failingDestination();
    receiver.set({ fixedStatus: null });
    await setDestinationPaused(app.pool, id, true, admin);
    await paid();
    await paid();
    expect(await round()).toBe(0);
    expect(await getDestinationState(app.pool, id)).toMatchObject({ condition: "paused", paused: { by: admin.actor }, undelivered: 2 });
    await expect(retryNow(app.pool, { destinationId: id }, admin)).rejects.toThrow(/paused/);
    const page = await listDeliveries(app.pool, id, {}, { page: 1, pageSize: 10 });
    expect(nextTry(page.rows[0]!, (await getDestinationState(app.pool, id))!)).toEqual({
      at: null,
      waitsFor: "the destination to be resumed",
    });
    await setDestinationPaused(app.pool, id, false, admin);
    expect(await round()).toBe(2);
    expect(receiver.applied).toHaveLength(2);
    expect((await getDestinationState(app.pool, id))!.condition).toBe("healthy");
    expect((await audit("destination_paused")).length).toBe(1);
    expect((await audit("destination_resumed")).length).toBe(1);
  });

  it("resends by filter (status, time window): the count before confirming is what is resent, audited with the filter", async () => {
    const id = await failingDestination();
    receiver.set({ fixedStatus: null });
    for (let i = 0; i < 3; i++) await paid();
    await round();
    await app.pool.query("UPDATE deliveries SET created_at = now() - interval '2 hours' WHERE id = (SELECT min(id) FROM deliveries)");
    const window = { status: "delivered" as const, from: new Date(Date.now() - 3600_000), to: new Date(Date.now() + 60_000) };
    expect(await countResendable(app.pool, { destinationId: id, filter: window })).toBe(2);
    expect(await countResendable(app.pool, { destinationId: id })).toBe(0);
    expect(await resendDeliveries(app.pool, { destinationId: id, filter: window }, admin)).toBe(2);
    expect(await countResendable(app.pool, { destinationId: id, filter: window })).toBe(0);
    expect(await round()).toBe(2);
    expect(receiver.received).toHaveLength(5);
    expect(await audit("delivery_resent")).toMatchObject([
      {
        details: {
          destinationId: id,
          resent: 2,
          filter: { status: "delivered", from: window.from.toISOString(), to: window.to.toISOString() },
        },
      },
    ]);
  });

  it("recovers since T: the changes committed since then go again, and a second run adds nothing", async () => {
    const older = await paid();
    // committed_at is when the sequencer first saw a change committed.
    await fanOutChanges(app.pool);
    await new Promise((done) => setTimeout(done, 20));
    const since = new Date();
    const before = await paid();
    // Numbered into the feed before the destination exists (it starts at the feed's head).
    await fanOutChanges(app.pool);
    const id = await failingDestination();
    receiver.set({ fixedStatus: null });
    const after = await paid();
    await round();
    expect(receiver.applied.map(({ chargeId }) => chargeId)).toEqual([after]);

    // Changes from before the destination existed (committed since T) are queued; the delivered one goes again.
    expect(await previewRecovery(app.pool, { destinationId: id, since })).toEqual({ queued: 1, resent: 1, alreadyPending: 0 });
    expect(await recoverSince(app.pool, { destinationId: id, since }, admin)).toEqual({ queued: 1, resent: 1, alreadyPending: 0 });
    expect(await recoverSince(app.pool, { destinationId: id, since }, admin)).toEqual({ queued: 0, resent: 0, alreadyPending: 2 });
    const { rows } = await app.pool.query("SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1", [id]);
    expect(rows[0].n).toBe(2);
    await round();
    expect(receiver.applied.map(({ chargeId }) => chargeId).sort()).toEqual([after, before].sort());
    expect(receiver.received.map(({ change }) => change.chargeId)).not.toContain(older);
    expect(await audit("deliveries_recovered")).toMatchObject([
      { details: { destinationId: id, since: since.toISOString(), queued: 1, resent: 1, alreadyPending: 0 } },
      { details: { queued: 0, resent: 0, alreadyPending: 2 } },
    ]);
  });
});
