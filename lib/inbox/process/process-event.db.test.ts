import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { webhookFor, randomId, type HistoryStep, type PaymentFacts, type SimulatedProvider } from "@/lib/testing/gateway-events";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "@/e2e/simulator/fake-gateway";
import { registerPaymentAndWake, wakeWaitingEvents } from "@/lib/inbox/process/wake-waiting-events";
import { registerPayment, registerPaymentSchema } from "@/lib/payments/register-payment";
import { withTransaction } from "@/lib/db/pool";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { testConfig, waitFor } from "@/lib/testing/test-worker";
import type { ChargeSnapshot } from "../../canonical/charge-event";
import { applyChargeUpdates, type ChargeUpdate } from "../../payments/apply-charge-update";
import type { AppConfig } from "../../config/env";
import { createGatewayClients } from "../../http/gateway-clients";
import { ingestEvent } from "../ingest/ingest-event";
import { processEvent, processEvents, type ProcessDeps } from "./process-event";
import { startAttempts } from "./track-attempts";
import { replayEvents } from "../replay/replay-events";
import { sweepPending } from "./sweep-pending";

// processEvent against a real database: each case ingests signed webhooks, then runs the same
// function the worker runs, job by job.

let app: TestApp;
let gateway: FakeGateway;

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("process", fakeGatewayEnv(gateway.url));
});
afterAll(async () => {
  await app.close();
  await gateway.close();
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, processing_attempts, payment_transitions, audit_log CASCADE");
  await app.pool.query("DELETE FROM pgboss.job WHERE name = 'webhooks'");
  gateway.setDown(false);
  gateway.setDelay(0);
});

function depsWith(overrides: Record<string, string> = {}): ProcessDeps & { config: AppConfig } {
  const config = testConfig(app.env, overrides);
  return { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config), workerId: "test" };
}

const ASAAS_TOKEN = "asaas_webhook_token";
const secrets: Partial<Record<SimulatedProvider, string>> = {
  stripe: TEST_SECRETS.stripe,
  standard: TEST_SECRETS.standard,
  asaas: ASAAS_TOKEN,
};

function facts(chargeId = randomId("ch")): PaymentFacts {
  return { chargeId, amount: 1000, currency: "usd", customerId: "cus_1", customerEmail: "Zoe@Example.com" };
}

async function ingest(
  payment: PaymentFacts,
  step: Partial<HistoryStep> & Pick<HistoryStep, "kind">,
  provider: SimulatedProvider = "stripe",
  config = app.config,
) {
  const webhook = webhookFor(provider, payment, { amountRefunded: 0, occurredAtMs: Date.now() - 60_000, ...step }, secrets[provider]!);
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config },
    { provider, rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  return outcome.inboxId;
}

async function inbox(id: number) {
  const { rows } = await app.pool.query(
    "SELECT status, ignored_reason, attempts, last_error, next_attempt_at, processed_at FROM webhook_inbox WHERE id = $1",
    [id],
  );
  return rows[0];
}

async function payment(chargeId: string) {
  const { rows } = await app.pool.query(
    "SELECT status, amount, amount_refunded, currency, customer_email, registered_by FROM payments WHERE gateway_charge_id = $1",
    [chargeId],
  );
  return rows[0];
}

async function jobsFor(inboxId: number) {
  const { rows } = await app.pool.query(
    "SELECT state, start_after FROM pgboss.job WHERE name = 'webhooks' AND (data->>'inboxId')::bigint = $1 ORDER BY created_on",
    [inboxId],
  );
  return rows;
}

describe("processEvent", () => {
  it("creates a Stripe payment from its event, records the effect and the attempt", async () => {
    const p = facts();
    const id = await ingest(p, { kind: "succeeded" });
    expect(await processEvent(depsWith(), id)).toBe("processed");
    expect(await inbox(id)).toMatchObject({ status: "processed", attempts: 1, last_error: null, ignored_reason: null });
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid", amount: 1000, currency: "usd", customer_email: "zoe@example.com" });
    const { rows: attempts } = await app.pool.query(
      "SELECT attempt, outcome, duration_ms, worker FROM processing_attempts WHERE inbox_id = $1",
      [id],
    );
    expect(attempts).toEqual([{ attempt: 1, outcome: "processed", duration_ms: expect.any(Number), worker: "test" }]);
    expect(await processEvent(depsWith(), id)).toBe("skipped");
  });

  it("applies a refund that arrives before paid, and ignores the late paid as stale", async () => {
    const p = facts();
    const now = Date.now();
    const refund = await ingest(p, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 10_000 });
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: now - 20_000 });
    expect(await processEvent(depsWith(), refund)).toBe("processed");
    expect(await processEvent(depsWith(), paid)).toBe("ignored");
    expect(await inbox(paid)).toMatchObject({ status: "ignored", ignored_reason: "stale" });
    expect(await payment(p.chargeId)).toMatchObject({ status: "refunded", amount_refunded: 1000 });
  });

  it("orders two events of the same second with the state machine", async () => {
    const p = facts();
    const second = Math.floor(Date.now() / 1000) * 1000 - 30_000;
    const partial = await ingest(p, { kind: "refund", amountRefunded: 300, occurredAtMs: second + 900 });
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: second + 100 });
    expect(await processEvent(depsWith(), partial)).toBe("processed");
    expect(await processEvent(depsWith(), paid)).toBe("ignored");
    expect(await inbox(paid)).toMatchObject({ ignored_reason: "invalid_transition" });
    expect(await payment(p.chargeId)).toMatchObject({ status: "partially_refunded", amount_refunded: 300 });
  });

  it("keeps a dispute won when its opening arrives after it (standard, no refetch)", async () => {
    const p = facts(randomId("pay"));
    const now = Date.now();
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: now - 30_000 }, "standard");
    const won = await ingest(p, { kind: "dispute_won", occurredAtMs: now - 10_000 }, "standard");
    const opened = await ingest(p, { kind: "dispute_opened", occurredAtMs: now - 20_000 }, "standard");
    const deps = depsWith();
    expect(await processEvent(deps, paid)).toBe("processed");
    expect(await processEvent(deps, won)).toBe("ignored");
    expect(await inbox(won)).toMatchObject({ ignored_reason: "duplicate_in_meaning" });
    expect(await processEvent(deps, opened)).toBe("ignored");
    expect(await inbox(opened)).toMatchObject({ ignored_reason: "stale" });
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid" });
  });

  it("keeps who paid and how much from a stale event it ignores, and records which event said so", async () => {
    // A Dodo dispute (Standard Webhooks) names the payment and its amount, not the customer.
    const p: PaymentFacts = { ...facts(randomId("pay")), integration: "dodo" };
    const now = Date.now();
    const lost = await ingest(p, { kind: "dispute_lost", occurredAtMs: now - 10_000 }, "standard");
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: now - 20_000 }, "standard");
    const deps = depsWith();
    expect(await processEvent(deps, lost)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "charged_back", customer_email: null });
    expect(await processEvent(deps, paid)).toBe("ignored");
    expect(await inbox(paid)).toMatchObject({ ignored_reason: "stale" });
    // The status stays as the newer event left it; the facts the stale one carried fill the gaps.
    expect(await payment(p.chargeId)).toMatchObject({
      status: "charged_back",
      amount: 1000,
      currency: "usd",
      customer_email: "zoe@example.com",
    });
    const { rows } = await app.pool.query<{ factsFrom: Record<string, { inboxId: number; source: string }> }>(
      `SELECT facts_from AS "factsFrom" FROM payments WHERE gateway_charge_id = $1`,
      [p.chargeId],
    );
    expect(rows[0]!.factsFrom.customerEmail).toEqual({ inboxId: paid, source: "event" });
    expect(rows[0]!.factsFrom.customerId).toEqual({ inboxId: paid, source: "event" });
  });

  it("ignores uninteresting event types with a reason", async () => {
    const body = JSON.stringify({
      id: "evt_cus",
      type: "customer.created",
      created: 1,
      data: { object: { id: "cus_1", object: "customer" } },
    });
    const now = Math.floor(Date.now() / 1000);
    const { signStripe } = await import("@/lib/providers/stripe");
    const outcome = await ingestEvent(
      { pool: app.pool, boss: app.boss, config: app.config },
      { provider: "stripe", rawBody: Buffer.from(body), headers: { "stripe-signature": signStripe(TEST_SECRETS.stripe, now, body) } },
    );
    const id = outcome.kind === "stored" ? outcome.inboxId : 0;
    expect(await processEvent(depsWith(), id)).toBe("ignored");
    expect(await inbox(id)).toMatchObject({ status: "ignored", ignored_reason: "uninteresting_type" });
  });

  it("does not apply an effect twice when processed events are replayed", async () => {
    const p = facts();
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: Date.now() - 20_000 });
    const refund = await ingest(p, { kind: "refund", amountRefunded: 400, occurredAtMs: Date.now() - 10_000 });
    const deps = depsWith();
    await processEvent(deps, paid);
    await processEvent(deps, refund);
    const replay = await replayEvents(deps, { statuses: ["processed"], resourceId: p.chargeId }, { actor: "test" });
    expect(replay.total).toBe(2);
    expect((await inbox(paid)).status).toBe("pending");
    expect(await processEvent(deps, paid)).toBe("processed");
    expect(await processEvent(deps, refund)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "partially_refunded", amount_refunded: 400 });
    const { rows } = await app.pool.query("SELECT count(*)::int AS n FROM payment_transitions");
    expect(rows[0].n).toBe(2);
    const { rows: audit } = await app.pool.query("SELECT actor, action, details FROM audit_log");
    expect(audit).toEqual([{ actor: "test", action: "replay", details: expect.objectContaining({ count: 2 }) }]);
  });

  it("retries an event for a payment the host has not registered, then succeeds once it is", async () => {
    const hostConfig = testConfig(app.env, { PAYMENT_SOURCE_STANDARD: "host", WORKER_RETRY_DELAYS_SECONDS: "30" });
    const deps = { ...depsWith(), config: hostConfig };
    const p = facts(randomId("pay"));
    const id = await ingest(p, { kind: "succeeded" }, "standard", hostConfig);
    expect(await processEvent(deps, id)).toBe("retry");
    const waiting = await inbox(id);
    expect(waiting).toMatchObject({ status: "pending", attempts: 1, last_error: expect.stringMatching(/not registered yet/) });
    expect(waiting.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 25_000);
    expect(await jobsFor(id)).toHaveLength(2);
    // Too early: the retry is not due, so a stray job does nothing.
    expect(await processEvent(deps, id)).toBe("skipped");

    const registered = await registerPaymentAndWake(deps, { provider: "standard", chargeId: p.chargeId, amount: 1000, currency: "USD" });
    expect(registered).toMatchObject({ created: true, eventsWoken: 1 });
    expect(await processEvent(deps, id)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid", registered_by: "host" });
  });

  it("wakes waiting events in the registration's transaction, and leaves a lost wake-up to the sweeper", async () => {
    const hostConfig = testConfig(app.env, { PAYMENT_SOURCE_STANDARD: "host", WORKER_RETRY_DELAYS_SECONDS: "3600" });
    const deps = { ...depsWith(), config: hostConfig };
    const p = facts(randomId("pay"));
    const id = await ingest(p, { kind: "succeeded" }, "standard", hostConfig);
    expect(await processEvent(deps, id)).toBe("retry");

    // A registration that fails after the insert takes its wake-up with it.
    await expect(
      withTransaction(app.pool, async (tx) => {
        const payment = registerPaymentSchema(hostConfig).parse({
          provider: "standard",
          chargeId: p.chargeId,
          amount: 1000,
          currency: "USD",
        });
        await registerPayment(tx, payment);
        expect(await wakeWaitingEvents(tx, deps, "standard", p.chargeId)).toBe(1);
        throw new Error("the process died");
      }),
    ).rejects.toThrow("the process died");
    expect(await payment(p.chargeId)).toBeUndefined();
    expect((await inbox(id)).next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 3_000_000);

    // Registered and woken together; if the woken event's job is then lost, the sweeper finds the row
    // (due now, counted from its arrival) and dispatches it again.
    expect(await registerPaymentAndWake(deps, { provider: "standard", chargeId: p.chargeId, amount: 1000, currency: "USD" })).toMatchObject(
      {
        created: true,
        eventsWoken: 1,
      },
    );
    expect((await inbox(id)).next_attempt_at).toBeNull();
    await app.pool.query("DELETE FROM pgboss.job WHERE name = 'webhooks'");
    await app.pool.query("UPDATE webhook_inbox SET received_at = now() - interval '10 minutes' WHERE id = $1", [id]);
    expect(await sweepPending(deps)).toEqual({ dispatched: 1, skipped: false });
    expect(await processEvent(deps, id)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid", registered_by: "host" });
  });

  describe("an event stored as unparseable that a fixed driver now reads", () => {
    // The row an older driver left: the bytes and headers kept, keyed by its bytes, then replayed to pending.
    async function storedAsUnparseable(p: PaymentFacts, description: string) {
      const webhook = webhookFor(
        "stripe",
        p,
        { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 60_000 },
        TEST_SECRETS.stripe,
      );
      const body = webhook.body.replace('"livemode":false', `"livemode":false,"description":${JSON.stringify(description)}`);
      const { rows } = await app.pool.query(
        `INSERT INTO webhook_inbox (provider, event_id, event_id_derived, event_type, raw_body, headers, status, attempts)
         VALUES ('stripe', $1, true, 'unparseable', $2, $3::jsonb, 'pending', 0) RETURNING id`,
        [`raw:${randomId("x")}`, Buffer.from(body), JSON.stringify(webhook.headers)],
      );
      return rows[0].id as number;
    }

    async function columns(id: number) {
      const { rows } = await app.pool.query("SELECT event_type, resource_id, customer_email, payload FROM webhook_inbox WHERE id = $1", [
        id,
      ]);
      return rows[0];
    }

    it("lower-cases the customer e-mail as ingest does, so e-mail search finds it", async () => {
      const p = facts();
      const id = await storedAsUnparseable(p, "plain");
      expect(await processEvent(depsWith(), id)).toBe("processed");
      expect(await columns(id)).toMatchObject({
        event_type: "charge.succeeded",
        resource_id: p.chargeId,
        customer_email: "zoe@example.com",
      });
    });

    it("takes the account its body names (a Stripe Connect event's), on the event and its new payment", async () => {
      const p = { ...facts(), account: "acct_revived" };
      const id = await storedAsUnparseable(p, "plain");
      expect(await processEvent(depsWith(), id)).toBe("processed");
      const { rows } = await app.pool.query(
        `SELECT w.gateway_account AS event, p.gateway_account AS payment
           FROM webhook_inbox w JOIN payments p ON p.provider = w.provider AND p.gateway_charge_id = w.resource_id WHERE w.id = $1`,
        [id],
      );
      expect(rows).toEqual([{ event: "acct_revived", payment: "acct_revived" }]);
    });

    it("stores the payload only when jsonb accepts it, instead of failing every retry", async () => {
      const p = facts();
      const id = await storedAsUnparseable(p, "a\u0000b");
      expect(await processEvent(depsWith(), id)).toBe("processed");
      expect(await columns(id)).toMatchObject({ resource_id: p.chargeId, payload: null });
      expect(await payment(p.chargeId)).toMatchObject({ status: "paid" });
    });

    it("retries under the payment's queue key, not the key it had before it was read", async () => {
      const deps = { ...depsWith(), config: testConfig(app.env, { PAYMENT_SOURCE_STRIPE: "host", WORKER_RETRY_DELAYS_SECONDS: "30" }) };
      const p = facts();
      const id = await storedAsUnparseable(p, "plain");
      expect(await processEvent(deps, id)).toBe("retry");
      const { rows } = await app.pool.query(
        "SELECT singleton_key FROM pgboss.job WHERE name = 'webhooks' AND (data->>'inboxId')::bigint = $1",
        [id],
      );
      expect(rows).toEqual([{ singleton_key: `stripe:${p.chargeId}` }]);
      // Committed with the attempt, so the sweeper re-dispatches it under the same key.
      expect(await columns(id)).toMatchObject({ resource_id: p.chargeId, customer_email: "zoe@example.com" });
    });
  });

  it("fails an event after its last attempt, keeping the error", async () => {
    const config = testConfig(app.env, { PAYMENT_SOURCE_STANDARD: "host", WORKER_MAX_ATTEMPTS: "3" });
    const deps = { ...depsWith(), config };
    const id = await ingest(facts(randomId("pay")), { kind: "succeeded" }, "standard", config);
    expect(await processEvent(deps, id)).toBe("retry");
    expect(await processEvent(deps, id)).toBe("retry");
    expect(await processEvent(deps, id)).toBe("failed");
    expect(await inbox(id)).toMatchObject({ status: "failed", attempts: 3, last_error: expect.stringMatching(/not registered yet/) });
    const { rows } = await app.pool.query("SELECT outcome FROM processing_attempts WHERE inbox_id = $1 ORDER BY attempt", [id]);
    expect(rows.map((row) => row.outcome)).toEqual(["retry", "retry", "failed"]);
  });

  it("refetches disputes from the gateway and applies the gateway's state", async () => {
    const p = facts();
    // The gateway already knows the dispute was lost.
    const history = {
      provider: "stripe" as const,
      payment: p,
      steps: [{ kind: "dispute_lost" as const, amountRefunded: 0, occurredAtMs: 0 }],
      truth: { status: "charged_back" as const, amountRefunded: 0 },
    };
    gateway.add([history]);
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: Date.now() - 20_000 });
    const opened = await ingest(p, { kind: "dispute_opened", occurredAtMs: Date.now() - 10_000 });
    const deps = depsWith();
    await processEvent(deps, paid);
    expect(await processEvent(deps, opened)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "charged_back" });
    expect(gateway.requests.some((request) => request.path.startsWith(`/v1/charges/${p.chargeId}`))).toBe(true);
    const { rows } = await app.pool.query("SELECT source FROM payment_transitions WHERE inbox_id = $1", [opened]);
    expect(rows).toEqual([{ source: "refetch" }]);
  });

  it("defers events while the gateway's circuit is open, without failing them or spending attempts", async () => {
    const deps = depsWith({ REFETCH_BREAKER_FAILURES: "2", REFETCH_BREAKER_COOLDOWN_SECONDS: "60", WORKER_MAX_ATTEMPTS: "2" });
    gateway.setDown(true);
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const p = facts();
      ids.push(await ingest(p, { kind: "dispute_opened" }));
    }
    expect(await processEvent(deps, ids[0]!)).toBe("retry");
    expect(await processEvent(deps, ids[1]!)).toBe("retry");
    // Two failures opened the circuit: the third event is deferred, not attempted.
    expect(await processEvent(deps, ids[2]!)).toBe("deferred");
    const deferred = await inbox(ids[2]!);
    expect(deferred).toMatchObject({ status: "pending", attempts: 0, last_error: expect.stringMatching(/circuit .* open/) });
    expect(deferred.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    const jobs = await jobsFor(ids[2]!);
    expect(jobs.at(-1)!.start_after.getTime()).toBeGreaterThan(Date.now() + 50_000);
    // Even an event on its last attempt is deferred rather than failed while the circuit is open.
    await app.pool.query("UPDATE webhook_inbox SET attempts = 1, next_attempt_at = NULL WHERE id = $1", [ids[0]]);
    expect(await processEvent(deps, ids[0]!)).toBe("deferred");
    expect(await inbox(ids[0]!)).toMatchObject({ status: "pending", attempts: 1 });
  });

  it("replays failed events once the cause is fixed, and they are processed", async () => {
    const deps = depsWith({ WORKER_MAX_ATTEMPTS: "1", REFETCH_BREAKER_FAILURES: "100" });
    gateway.setDown(true);
    const p = facts();
    gateway.add([
      {
        provider: "stripe",
        payment: p,
        steps: [{ kind: "dispute_opened", amountRefunded: 0, occurredAtMs: 0 }],
        truth: { status: "disputed", amountRefunded: 0 },
      },
    ]);
    const id = await ingest(p, { kind: "dispute_opened" });
    expect(await processEvent(deps, id)).toBe("failed");
    expect(await inbox(id)).toMatchObject({ status: "failed", last_error: expect.stringMatching(/503/) });

    gateway.setDown(false);
    const preview = await replayEvents(deps, { statuses: ["failed"] }, { actor: "ops", dryRun: true });
    expect(preview).toMatchObject({ total: 1, byProvider: { stripe: 1 }, dryRun: true });
    expect((await inbox(id)).status).toBe("failed");
    expect((await replayEvents(deps, { statuses: ["failed"] }, { actor: "ops" })).total).toBe(1);
    expect(await processEvent(deps, id)).toBe("processed");
    expect(await payment(p.chargeId)).toMatchObject({ status: "disputed" });
  });

  it("gives up on a gateway that doesn't answer within the timeout, and retries", async () => {
    const deps = depsWith({ REFETCH_TIMEOUT_MS: "200" });
    gateway.setDelay(2000);
    const id = await ingest(facts(), { kind: "dispute_opened" });
    expect(await processEvent(deps, id)).toBe("retry");
    expect(await inbox(id)).toMatchObject({ status: "pending", attempts: 1, last_error: expect.stringMatching(/TimeoutError|aborted/i) });
  });

  it("keeps refetches under the configured rate", async () => {
    const deps = depsWith({ REFETCH_RATE_PER_SECOND: "5", REFETCH_STANDARD: "*" });
    const ids: number[] = [];
    const histories = [];
    for (let i = 0; i < 15; i++) {
      const p = facts(randomId("pay"));
      histories.push({ provider: "standard" as const, payment: p, steps: [], truth: { status: "paid" as const, amountRefunded: 0 } });
      ids.push(await ingest(p, { kind: "succeeded" }, "standard"));
    }
    gateway.add(histories);
    const before = gateway.requests.length;
    await Promise.all(ids.map((id) => processEvent(deps, id)));
    const times = gateway.requests.slice(before).map((request) => request.at);
    expect(times).toHaveLength(15);
    // A bucket of 5 refilled at 5/s: no one-second window holds more than 5 + 5 requests.
    for (const start of times) expect(times.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(10);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1500);
  });
});

describe("processEvents: a batch settles together, each event as it would alone", () => {
  async function attempts(ids: number[]) {
    const { rows } = await app.pool.query<{ inbox_id: number; outcome: string }>(
      "SELECT inbox_id, outcome FROM processing_attempts WHERE inbox_id = ANY($1) ORDER BY inbox_id, attempt",
      [ids],
    );
    return rows.map((row) => [row.inbox_id, row.outcome]);
  }

  it("creates, updates, ignores and fails in one batch, settled in one transaction", async () => {
    const deps = depsWith();
    const now = Date.now();
    const fresh = facts();
    const known = facts();
    const refunded = facts();
    expect(await processEvent(deps, await ingest(known, { kind: "succeeded", occurredAtMs: now - 50_000 }))).toBe("processed");
    expect(await processEvent(deps, await ingest(refunded, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 40_000 }))).toBe(
      "processed",
    );

    const created = await ingest(fresh, { kind: "succeeded", occurredAtMs: now - 30_000 });
    const updated = await ingest(known, { kind: "refund", amountRefunded: 250, occurredAtMs: now - 20_000 });
    const stale = await ingest(refunded, { kind: "succeeded", occurredAtMs: now - 45_000 });
    const { rows } = await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_id_derived, event_type, raw_body, headers, status, attempts)
       VALUES ('stripe', $1, true, 'unparseable', $2, '{}'::jsonb, 'pending', 0) RETURNING id`,
      [`raw:${randomId("x")}`, Buffer.from("not json")],
    );
    const unreadable = rows[0].id as number;

    const batch = [created, updated, stale, unreadable, created];
    expect(await processEvents(deps, batch)).toEqual(["processed", "processed", "ignored", "failed", "skipped"]);
    expect(await payment(fresh.chargeId)).toMatchObject({ status: "paid", amount: 1000 });
    expect(await payment(known.chargeId)).toMatchObject({ status: "partially_refunded", amount_refunded: 250 });
    expect(await payment(refunded.chargeId)).toMatchObject({ status: "refunded" });
    expect(await inbox(stale)).toMatchObject({ status: "ignored", ignored_reason: "stale" });
    expect(await inbox(unreadable)).toMatchObject({ status: "failed", last_error: expect.any(String) });
    const { rows: ledger } = await app.pool.query("SELECT inbox_id FROM payment_transitions WHERE inbox_id = ANY($1) ORDER BY inbox_id", [
      batch,
    ]);
    expect(ledger.map((row) => row.inbox_id)).toEqual([created, updated]);
    // One transaction: now() is its start, the same for every event it settled.
    const { rows: settledAt } = await app.pool.query("SELECT DISTINCT processed_at FROM webhook_inbox WHERE id = ANY($1)", [batch]);
    expect(settledAt).toHaveLength(1);
    // One attempt per event, each finished with its own outcome.
    expect(await attempts(batch)).toEqual([
      [created, "processed"],
      [updated, "processed"],
      [stale, "ignored"],
      [unreadable, "failed"],
    ]);
  });

  it("retries only the event whose payment is not registered; the rest of its batch settles", async () => {
    const config = testConfig(app.env, { PAYMENT_SOURCE_STANDARD: "host", WORKER_RETRY_DELAYS_SECONDS: "30" });
    const deps = { ...depsWith(), config };
    const fresh = facts();
    const created = await ingest(fresh, { kind: "succeeded" });
    const waiting = await ingest(facts(randomId("pay")), { kind: "succeeded" }, "standard", config);
    expect(await processEvents(deps, [created, waiting])).toEqual(["processed", "retry"]);
    expect(await payment(fresh.chargeId)).toMatchObject({ status: "paid" });
    expect(await inbox(waiting)).toMatchObject({ status: "pending", attempts: 1, last_error: expect.stringMatching(/not registered yet/) });
    expect(await attempts([created, waiting])).toEqual([
      [created, "processed"],
      [waiting, "retry"],
    ]);
  });

  it("leaves an event a newer attempt took over to that attempt, and settles the rest of the batch", async () => {
    const own = facts();
    const refetched = facts();
    gateway.add([
      {
        provider: "stripe",
        payment: refetched,
        steps: [{ kind: "dispute_opened", amountRefunded: 0, occurredAtMs: 0 }],
        truth: { status: "disputed", amountRefunded: 0 },
      },
    ]);
    const paid = await ingest(own, { kind: "succeeded" });
    const opened = await ingest(refetched, { kind: "dispute_opened" });
    gateway.setDelay(500);
    const batch = processEvents(depsWith(), [paid, opened]);
    // While the dispute's refetch is in flight, another worker starts a newer attempt on it (its
    // job expired): the running attempt is counted and closed.
    await waitFor(async () => (await attempts([opened])).length === 1);
    const [newer] = (await startAttempts(app.pool, "other", [opened])).values();
    expect(newer).toMatchObject({ id: opened, attempts: 2 });
    expect(await batch).toEqual(["processed", "skipped"]);
    expect(await payment(own.chargeId)).toMatchObject({ status: "paid" });
    expect(await payment(refetched.chargeId)).toBeUndefined();
    expect(await inbox(opened)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await attempts([paid, opened])).toEqual([
      [paid, "processed"],
      [opened, "abandoned"],
      [opened, "running"],
    ]);
  });

  it("gives each job its event's received_at, and starts it only in that time's partition", async () => {
    const id = await ingest(facts(), { kind: "succeeded" });
    const { rows: jobs } = await app.pool.query<{ data: { receivedAt: string } }>(
      "SELECT data FROM pgboss.job WHERE name = 'webhooks' AND data->>'inboxId' = $1",
      [String(id)],
    );
    const { rows: stored } = await app.pool.query(`SELECT to_jsonb(received_at) #>> '{}' AS at FROM webhook_inbox WHERE id = $1`, [id]);
    expect(jobs.map((job) => job.data.receivedAt)).toEqual([stored[0].at]);
    expect(await processEvents(depsWith(), [id], ["2001-01-01T00:00:00+00:00"])).toEqual(["skipped"]);
    expect(await processEvents(depsWith(), [id], [jobs[0]!.data.receivedAt])).toEqual(["processed"]);
  });

  it("starts an attempt by locking its event's row, not by writing a new version of it", async () => {
    const id = await ingest(facts(), { kind: "succeeded" });
    const version = async () => (await app.pool.query("SELECT xmin::text, ctid::text FROM webhook_inbox WHERE id = $1", [id])).rows[0];
    const before = await version();
    const [started] = (await startAttempts(app.pool, "test", [id])).values();
    expect(started).toMatchObject({ id, attempts: 1 });
    expect(await version()).toEqual(before);
    // Its worker dies: the next start counts that attempt, so a poison event still runs out of tries.
    const [again] = (await startAttempts(app.pool, "test", [id])).values();
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(await inbox(id)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await processEvent(depsWith(), id)).toBe("processed");
    expect(await inbox(id)).toMatchObject({ status: "processed", attempts: 3 });
  });

  it("counts a dead worker's attempt also when the start reads the jobs' partitions only", async () => {
    const id = await ingest(facts(), { kind: "succeeded" });
    const { rows } = await app.pool.query(`SELECT to_jsonb(received_at) #>> '{}' AS at FROM webhook_inbox WHERE id = $1`, [id]);
    const receivedAt = [rows[0].at as string];
    await startAttempts(app.pool, "test", [id], receivedAt);
    const [again] = (await startAttempts(app.pool, "test", [id], receivedAt)).values();
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(await inbox(id)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await attempts([id])).toEqual([
      [id, "abandoned"],
      [id, "running"],
    ]);
  });

  it("applies two events of one payment in one batch in batch order", async () => {
    const p = facts();
    const now = Date.now();
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: now - 20_000 });
    const refund = await ingest(p, { kind: "refund", amountRefunded: 300, occurredAtMs: now - 10_000 });
    expect(await processEvents(depsWith(), [paid, refund])).toEqual(["processed", "processed"]);
    expect(await payment(p.chargeId)).toMatchObject({ status: "partially_refunded", amount_refunded: 300 });
    const { rows } = await app.pool.query("SELECT from_status, to_status FROM payment_transitions WHERE inbox_id = ANY($1) ORDER BY id", [
      [paid, refund],
    ]);
    expect(rows).toEqual([
      { from_status: null, to_status: "paid" },
      { from_status: "paid", to_status: "partially_refunded" },
    ]);
  });

  it("decides against the row when another transaction creates the same payment first", async () => {
    const p = facts();
    const now = Date.now();
    const paid = await ingest(p, { kind: "succeeded", occurredAtMs: now - 20_000 });
    const refund = await ingest(p, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 10_000 });
    const update = (inboxId: number, snapshot: ChargeSnapshot, atMs: number): ChargeUpdate => ({
      provider: "stripe",
      chargeId: p.chargeId,
      snapshot,
      at: { micros: BigInt(atMs) * 1000n, precision: "second" },
      inboxId,
      cause: { eventId: `evt_${inboxId}`, eventType: "charge.updated", occurredAt: null },
      source: "event",
      createIfMissing: true,
    });
    const [first, second] = [await app.pool.connect(), await app.pool.connect()];
    try {
      await first.query("BEGIN");
      await second.query("BEGIN");
      expect(await applyChargeUpdates(first, [update(paid, { status: "paid", amount: 1000 }, now - 20_000)])).toEqual([
        { outcome: "processed" },
      ]);
      // The second finds no payment and inserts one: it waits on the first's uncommitted row...
      const { rows } = await second.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const racing = applyChargeUpdates(second, [update(refund, { status: "refunded", amountRefunded: 1000 }, now - 10_000)]);
      await waitFor(async () => {
        const { rows: waiting } = await app.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [
          rows[0]!.pid,
        ]);
        return waiting.length > 0;
      });
      await first.query("COMMIT");
      // ...then decides against the row the first created.
      expect(await racing).toEqual([{ outcome: "processed" }]);
      await second.query("COMMIT");
    } finally {
      first.release();
      second.release();
    }
    expect(await payment(p.chargeId)).toMatchObject({ status: "refunded", amount_refunded: 1000 });
    const { rows: ledger } = await app.pool.query(
      "SELECT from_status, to_status FROM payment_transitions WHERE inbox_id = ANY($1) ORDER BY id",
      [[paid, refund]],
    );
    expect(ledger).toEqual([
      { from_status: null, to_status: "paid" },
      { from_status: "paid", to_status: "refunded" },
    ]);
  });
});

describe("refetch authentication", () => {
  const asaasEnv = { WEBHOOK_SECRET_ASAAS: ASAAS_TOKEN, PAYMENT_SOURCE_ASAAS: "gateway" };

  it("refetches Asaas with its access_token header, and waits for a missing ASAAS_API_KEY instead of failing", async () => {
    const p = { ...facts(randomId("pay")), currency: "brl" };
    const step = { kind: "succeeded" as const, amountRefunded: 0, occurredAtMs: Date.now() - 60_000 };
    gateway.add([{ provider: "asaas", payment: p, steps: [step], truth: { status: "paid", amountRefunded: 0 } }]);
    const id = await ingest(p, step, "asaas", testConfig(app.env, asaasEnv));
    const withUrl = { ...asaasEnv, ASAAS_API_URL: `${gateway.url}/v3` };
    const before = gateway.requests.length;

    expect(await processEvent(depsWith({ ...withUrl, ASAAS_API_KEY: "" }), id)).toBe("deferred");
    const waiting = await inbox(id);
    expect(waiting).toMatchObject({ status: "pending", attempts: 0 });
    expect(waiting.last_error).toMatch(/ASAAS_API_KEY, which is not set/);
    expect(waiting.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect(gateway.requests.length).toBe(before);

    // The operator sets the key (and restarts the worker): the event goes through the gateway's auth check.
    await app.pool.query("UPDATE webhook_inbox SET next_attempt_at = now() WHERE id = $1", [id]);
    expect(await processEvent(depsWith(withUrl), id)).toBe("processed");
    expect(gateway.requests.slice(before)).toEqual([expect.objectContaining({ path: `/v3/payments/${p.chargeId}`, authorized: true })]);
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid" });
  });
});

describe("event types a driver does not list", () => {
  const asaasEnv = { WEBHOOK_SECRET_ASAAS: ASAAS_TOKEN, PAYMENT_SOURCE_ASAAS: "gateway" };

  async function ingestAsaas(type: string, p: PaymentFacts, config: AppConfig) {
    const body = JSON.stringify({
      id: randomId("evt"),
      event: type,
      dateCreated: "2026-11-05 10:00:00",
      payment: { object: "payment", id: p.chargeId, customer: p.customerId, value: p.amount / 100, billingType: "PIX", status: "RECEIVED" },
    });
    const outcome = await ingestEvent(
      { pool: app.pool, boss: app.boss, config },
      { provider: "asaas", rawBody: Buffer.from(body), headers: { "content-type": "application/json", "asaas-access-token": ASAAS_TOKEN } },
    );
    if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
    return outcome.inboxId;
  }

  it("refetches the charge of an unknown type where every event is refetched (Asaas) and applies its state", async () => {
    const p = { ...facts(randomId("pay")), currency: "brl" };
    gateway.add([
      {
        provider: "asaas",
        payment: p,
        steps: [{ kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 60_000 }],
        truth: { status: "paid", amountRefunded: 0 },
      },
    ]);
    const deps = depsWith({ ...asaasEnv, ASAAS_API_URL: `${gateway.url}/v3` });
    const id = await ingestAsaas("PAYMENT_SOMETHING_NEW", p, deps.config);
    expect(await processEvent(deps, id)).toBe("processed");
    expect(await inbox(id)).toMatchObject({ status: "processed", ignored_reason: null });
    expect(await payment(p.chargeId)).toMatchObject({ status: "paid" });
  });

  it("still settles an unknown type unseen where refetch is off for it", async () => {
    const p = { ...facts(randomId("pay")), currency: "brl" };
    const deps = depsWith({ ...asaasEnv, ASAAS_API_URL: `${gateway.url}/v3`, REFETCH_ASAAS: "PAYMENT_RECEIVED" });
    const before = gateway.requests.length;
    const id = await ingestAsaas("PAYMENT_SOMETHING_NEW", p, deps.config);
    expect(await processEvent(deps, id)).toBe("ignored");
    expect(await inbox(id)).toMatchObject({ status: "ignored", ignored_reason: "uninteresting_type" });
    expect(gateway.requests.length).toBe(before);
  });
});

describe("sweepPending", () => {
  it("re-dispatches a committed pending row whose job was deleted", async () => {
    const p = facts();
    const id = await ingest(p, { kind: "succeeded" });
    await app.pool.query("DELETE FROM pgboss.job WHERE name = 'webhooks'");
    await app.pool.query("UPDATE webhook_inbox SET received_at = now() - interval '10 minutes' WHERE id = $1", [id]);
    const deps = depsWith();
    expect(await sweepPending(deps)).toEqual({ dispatched: 1, skipped: false });
    expect(await jobsFor(id)).toHaveLength(1);
    // Touched: the next sweep waits a full staleness window before dispatching it again.
    expect(await sweepPending(deps)).toEqual({ dispatched: 0, skipped: false });
    expect(await processEvent(deps, id)).toBe("processed");
  });

  it("leaves recent, scheduled and finished rows alone, and never runs twice at once", async () => {
    const recent = await ingest(facts(), { kind: "succeeded" });
    const done = await ingest(facts(), { kind: "succeeded" });
    await processEvent(depsWith(), done);
    const scheduled = await ingest(facts(), { kind: "succeeded" });
    await app.pool.query(
      "UPDATE webhook_inbox SET received_at = now() - interval '1 hour', next_attempt_at = now() + interval '1 hour' WHERE id = ANY($1)",
      [[scheduled, done]],
    );
    const deps = depsWith();
    expect(await sweepPending(deps)).toEqual({ dispatched: 0, skipped: false });

    // A sweep in progress elsewhere holds the sweep lock: this one steps aside.
    const other = await app.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock(72310556)");
      expect(await sweepPending(deps, { staleSeconds: 0 })).toEqual({ dispatched: 0, skipped: true });
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
    expect(await sweepPending(deps, { staleSeconds: 0 })).toEqual({ dispatched: 1, skipped: false });
    expect(await jobsFor(recent)).toHaveLength(2);
  });
});
