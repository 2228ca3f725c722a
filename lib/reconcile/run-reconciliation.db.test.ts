import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeGatewayEnv, mercadopagoPaymentOf, startFakeGateway, type FakeGateway } from "@/e2e/simulator/fake-gateway";
import { mercadopagoNotification, signedWebhook, stripeEvents, webhookFor, type HistoryStep } from "@/lib/testing/gateway-events";
import { generateHistories, type PaymentHistory } from "@/e2e/simulator/history";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { startTestWorker, testConfig, waitFor, type TestWorker } from "@/lib/testing/test-worker";
import { findAlerts } from "../alerts/check-alerts";
import { createGatewayClients } from "../http/gateway-clients";
import { ingestEvent } from "../inbox/ingest/ingest-event";
import { renderMetrics } from "../ops/render-metrics";
import { runReconciliation, type ReconcileRequest, type ReconcileResult } from "./run-reconciliation";
import { configAccounts } from "../gateway-accounts/account-directory";
import { dueReconciliations, reconcilableAccounts, reconcilableProviders } from "./run-due-reconciliations";
import { reconcileJob } from "../jobs/definitions/reconcile";
import { reconcileAccountJob } from "../jobs/definitions/reconcile-accounts";
import { runJob, workJob } from "../jobs/work-jobs";
import { createWorkerBoss } from "../queue/boss";

// Reconciliation against the fake gateway's list APIs and a real database, processed by a real
// pg-boss worker: missed events ingested under their own key, drift repaired through derived events,
// paging edges, a gateway failing mid-run, the dry run, the lock.

let app: TestApp;
let gateway: FakeGateway;
let worker: TestWorker;

const MP_SECRET = "mp_webhook_secret";

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("reconcile", {
    ...fakeGatewayEnv(gateway.url),
    WEBHOOK_SECRET_MERCADOPAGO: MP_SECRET,
    PAYMENT_SOURCE_MERCADOPAGO: "gateway",
    RECONCILE_PAGE_SIZE: "3",
    RECONCILE_LOOKBACK_HOURS: "4",
    RECONCILE_LAG_SECONDS: "0",
  });
  worker = await startTestWorker(app.db.url, app.config);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await gateway.close();
});
beforeEach(async () => {
  // The test worker keeps running between tests (sweeps, partition upkeep, heartbeats): a TRUNCATE of
  // these tables can deadlock with one of its statements, and PostgreSQL may pick the TRUNCATE to fail.
  for (let attempt = 1; ; attempt++) {
    try {
      await app.pool.query(
        "TRUNCATE webhook_inbox, payments, payment_transitions, processing_attempts, reconcile_runs, reconcile_cursors, audit_log CASCADE",
      );
      break;
    } catch (error) {
      if (attempt >= 5 || (error as { code?: string }).code !== "40P01") throw error;
    }
  }
  gateway.intercept(null);
  gateway.reset();
});

type StripeEvent = ReturnType<typeof stripeEvents>[number];

let seed = 100;
/** Stripe histories that began 1-3 h ago, and the events each step sent (ids fixed once, as Stripe's are). */
function stripeHistories(count: number): { histories: PaymentHistory[]; events: StripeEvent[] } {
  const histories = generateHistories(seed++, count, ["stripe"], {
    startMs: Date.now() - 3 * 3_600_000,
    spreadMs: 3_600_000,
    sameSecondRate: 0,
  });
  const events = histories.flatMap((history) => history.steps.flatMap((step) => stripeEvents(history.payment, step)));
  gateway.add(histories);
  gateway.addEvents(events);
  return { histories, events };
}

async function sendWebhook(event: StripeEvent & { account?: string }) {
  const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe);
  return ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
}

function reconcile(request: Partial<ReconcileRequest> = {}, overrides: Record<string, string> = {}) {
  const config = testConfig(app.env, overrides);
  return runReconciliation(
    { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config) },
    { provider: "stripe", trigger: "cli", actor: "ops@example.com", ...request },
  );
}

type Counted = Extract<ReconcileResult, { listed: number }>;
function counted(result: ReconcileResult): Counted {
  if (!("listed" in result)) throw new Error(`no run: ${JSON.stringify(result)}`);
  return result;
}

async function settled() {
  return waitFor(
    async () => {
      const { rows } = await app.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'");
      return rows[0]!.n === 0;
    },
    30_000,
    "every event settled",
  );
}

async function paymentStates(histories: PaymentHistory[]) {
  const { rows } = await app.pool.query<{ gateway_charge_id: string; status: string; amount_refunded: number }>(
    "SELECT gateway_charge_id, status, amount_refunded FROM payments WHERE gateway_charge_id = ANY($1)",
    [histories.map((history) => history.payment.chargeId)],
  );
  const byCharge = new Map(rows.map((row) => [row.gateway_charge_id, `${row.status}/${row.amount_refunded}`]));
  return histories.map((history) => ({
    chargeId: history.payment.chargeId,
    app: byCharge.get(history.payment.chargeId) ?? "missing",
    truth: `${history.truth.status}/${history.truth.amountRefunded}`,
  }));
}

async function tableCounts() {
  const { rows } = await app.pool.query(
    `SELECT (SELECT count(*)::int FROM webhook_inbox) AS inbox, (SELECT count(*)::int FROM reconcile_runs) AS runs,
            (SELECT count(*)::int FROM reconcile_cursors) AS cursors, (SELECT count(*)::int FROM audit_log) AS audit,
            (SELECT count(*)::int FROM payments) AS payments, (SELECT count(*)::int FROM pgboss.job WHERE name = 'webhooks') AS jobs`,
  );
  return rows[0];
}

const window = () => ({ since: new Date(Date.now() - 4 * 3_600_000), until: new Date() });

describe("Stripe: the events list", () => {
  it("ingests the events the gateway never sent under their own key; a second run finds nothing", async () => {
    const { histories, events } = stripeHistories(8);
    const withheld = events.filter((_, index) => index % 3 === 0);
    for (const event of events.filter((_, index) => index % 3 !== 0)) expect((await sendWebhook(event)).kind).toBe("stored");

    const first = counted(await reconcile(window()));
    expect(first).toMatchObject({
      outcome: "finished",
      complete: true,
      listed: events.length,
      missingIngested: withheld.length,
      errors: 0,
    });
    expect(first.pages).toBe(Math.ceil(events.length / 3));
    const { rows } = await app.pool.query<{ event_id: string }>(
      "SELECT event_id FROM webhook_inbox WHERE source = 'reconcile' ORDER BY event_id",
    );
    expect(rows.map((row) => row.event_id)).toEqual(withheld.map((event) => event.id).sort());
    await settled();
    for (const state of await paymentStates(histories)) expect(state.app, state.chargeId).toBe(state.truth);

    const second = counted(await reconcile(window()));
    expect(second).toMatchObject({ outcome: "finished", listed: events.length, missingIngested: 0, repaired: 0 });
    const runs = await app.pool.query("SELECT trigger, status, listed, missing_ingested, repaired FROM reconcile_runs ORDER BY id");
    expect(runs.rows).toEqual([
      { trigger: "cli", status: "finished", listed: events.length, missing_ingested: withheld.length, repaired: 0 },
      { trigger: "cli", status: "finished", listed: events.length, missing_ingested: 0, repaired: 0 },
    ]);
    const audit = await app.pool.query("SELECT actor, details->>'provider' AS provider FROM audit_log WHERE action = 'reconcile'");
    expect(audit.rows).toHaveLength(2);
  });

  it("answers a webhook that arrives after reconciliation ingested its event as a duplicate", async () => {
    const { events } = stripeHistories(1);
    counted(await reconcile(window()));
    expect(await sendWebhook(events[0]!)).toEqual({ kind: "duplicate", duplicate: true });
  });

  it("writes nothing on a dry run, and says what a run would ingest", async () => {
    const { events } = stripeHistories(3);
    await sendWebhook(events[0]!);
    await settled();
    const before = await tableCounts();
    const preview = counted(await reconcile({ ...window(), dryRun: true }));
    expect(preview).toMatchObject({ dryRun: true, runId: null, missingIngested: events.length - 1 });
    expect(preview.findings.map((finding) => finding.eventId).sort()).toEqual(
      events
        .slice(1)
        .map((event) => event.id)
        .sort(),
    );
    // Through the cursor too: a dry run neither starts nor moves it.
    counted(await reconcile({ dryRun: true }));
    expect(await tableCounts()).toEqual(before);
  });

  it("lists two events of one charge that fall on two pages, and the payment ends right", async () => {
    const histories = generateHistories(seed++, 30, ["stripe"], {
      startMs: Date.now() - 2 * 3_600_000,
      spreadMs: 600_000,
      sameSecondRate: 0,
    });
    const history = histories.find(
      (candidate) => !candidate.payment.integration && candidate.steps.length === 2 && candidate.steps[1]!.kind === "refund",
    )!;
    const events = history.steps.flatMap((step) => stripeEvents(history.payment, step));
    gateway.add([history]);
    gateway.addEvents(events);
    const result = counted(await reconcile(window(), { RECONCILE_PAGE_SIZE: "1" }));
    expect(result).toMatchObject({ missingIngested: 2, complete: true });
    expect(result.pages).toBeGreaterThanOrEqual(2);
    await settled();
    expect((await paymentStates([history]))[0]!.app).toBe(`${history.truth.status}/${history.truth.amountRefunded}`);
  });

  it("includes an event created at the window's start, and leaves one created at its end to the next window", async () => {
    const until = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    const since = new Date(until.getTime() - 600_000);
    const step = (occurredAtMs: number): HistoryStep => ({ kind: "succeeded", amountRefunded: 0, occurredAtMs });
    const [history] = generateHistories(seed++, 1, ["stripe"]);
    const atStart = stripeEvents({ ...history!.payment, integration: undefined }, step(since.getTime()))[0]!;
    const atEnd = stripeEvents(
      { ...history!.payment, chargeId: `${history!.payment.chargeId}_b`, integration: undefined },
      step(until.getTime()),
    )[0]!;
    gateway.addEvents([atStart, atEnd]);
    const first = counted(await reconcile({ since, until }));
    expect(first.findings.map((finding) => finding.eventId)).toEqual([atStart.id]);
    const next = counted(await reconcile({ since: until, until: new Date(until.getTime() + 600_000) }));
    expect(next.findings.map((finding) => finding.eventId)).toEqual([atEnd.id]);
  });

  it("stops on a 429 and on a 500 mid-run, and the next run resumes from the cursor", async () => {
    const { events } = stripeHistories(6);
    let failures = [429, 500];
    let failedAt: string[] = [];
    gateway.intercept((path) => {
      if (!path.startsWith("/v1/events") || !path.includes("starting_after") || failures.length === 0) return undefined;
      failedAt.push(path);
      return { status: failures.shift()!, body: { error: { message: "simulated" } } };
    });
    const first = counted(await reconcile());
    expect(first).toMatchObject({ outcome: "interrupted", complete: false, errors: 1 });
    expect(first.lastError).toContain("429");
    const cursor = await app.pool.query("SELECT page_token, complete FROM reconcile_cursors WHERE provider = 'stripe'");
    expect(cursor.rows[0]).toMatchObject({ complete: false, page_token: expect.stringMatching(/^evt_/) });
    expect(failedAt[0]).toContain(`starting_after=${cursor.rows[0].page_token}`);

    const listings = () => gateway.requests.filter((request) => request.path.startsWith("/v1/events"));
    const listedBefore = listings().length;
    const second = counted(await reconcile());
    expect(second).toMatchObject({ outcome: "interrupted", errors: 1 });
    expect(second.lastError).toContain("500");
    // It started where the first one stopped, not at the window's first page.
    expect(listings()[listedBefore]!.path).toContain(`starting_after=${cursor.rows[0].page_token}`);

    failedAt = [];
    failures = [];
    const third = counted(await reconcile());
    expect(third).toMatchObject({ outcome: "finished", complete: true, errors: 0 });
    expect(first.missingIngested + second.missingIngested + third.missingIngested).toBe(events.length);
    const { rows } = await app.pool.query<{ n: number }>(
      "SELECT count(DISTINCT event_id)::int AS n FROM webhook_inbox WHERE source = 'reconcile'",
    );
    expect(rows[0]!.n).toBe(events.length);
    expect((await app.pool.query("SELECT complete FROM reconcile_cursors")).rows).toEqual([{ complete: true }]);
  });

  it("does not loop on an empty page that says has_more; the next run asks again", async () => {
    const { events } = stripeHistories(2);
    gateway.intercept((path) =>
      path.startsWith("/v1/events") ? { status: 200, body: { object: "list", data: [], has_more: true } } : undefined,
    );
    const first = counted(await reconcile());
    expect(first).toMatchObject({ outcome: "interrupted", pages: 0, listed: 0, errors: 1 });
    expect(first.lastError).toContain("has_more");
    gateway.intercept(null);
    const second = counted(await reconcile());
    expect(second).toMatchObject({ outcome: "finished", missingIngested: events.length });
  });

  it("never runs twice at once for one gateway", async () => {
    const holder = await app.pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtextextended('reconcile:stripe', 0))");
      expect(await reconcile(window())).toEqual({ outcome: "busy", provider: "stripe", account: "default" });
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      holder.release();
    }
  });

  it("refetches a payment stuck in pending and repairs it through a derived event", async () => {
    const histories = generateHistories(seed++, 40, ["stripe"], { startMs: Date.now() - 3 * 3_600_000, spreadMs: 600_000 });
    const history = histories.find(
      (candidate) => !candidate.payment.integration && candidate.steps.map((step) => step.kind).join() === "pending,succeeded",
    )!;
    gateway.add([history]);
    const [pending] = stripeEvents(history.payment, history.steps[0]!);
    await sendWebhook(pending!);
    await settled();
    await app.pool.query("UPDATE payments SET updated_at = now() - interval '2 hours' WHERE gateway_charge_id = $1", [
      history.payment.chargeId,
    ]);
    // A window with nothing in it: only the stuck payment is looked at.
    const result = counted(await reconcile({ since: new Date(Date.now() - 60_000), until: new Date() }));
    expect(result).toMatchObject({ stuckRefetched: 1, repaired: 1 });
    expect(result.findings[0]).toMatchObject({ kind: "stuck", ours: "pending", theirs: "paid" });
    await settled();
    const ledger = await app.pool.query(
      `SELECT t.to_status, t.source, w.source AS inbox_source FROM payment_transitions t JOIN webhook_inbox w ON w.id = t.inbox_id
        JOIN payments p ON p.id = t.payment_id WHERE p.gateway_charge_id = $1 ORDER BY t.id`,
      [history.payment.chargeId],
    );
    expect(ledger.rows).toEqual([
      { to_status: "pending", source: "event", inbox_source: "delivery" },
      { to_status: "paid", source: "reconcile", inbox_source: "reconcile" },
    ]);
    expect(counted(await reconcile({ since: new Date(Date.now() - 60_000), until: new Date() }))).toMatchObject({
      stuckRefetched: 0,
      repaired: 0,
    });
  });

  it("refetches a connected account's stuck payment from that account (Stripe-Account, from its event's account)", async () => {
    const histories = generateHistories(seed++, 40, ["stripe"], { startMs: Date.now() - 3 * 3_600_000, spreadMs: 600_000 });
    const history = histories.find(
      (candidate) => !candidate.payment.integration && candidate.steps.map((step) => step.kind).join() === "pending,succeeded",
    )!;
    gateway.addConnected("acct_1Stuck", [history]);
    const [pending] = stripeEvents(history.payment, history.steps[0]!);
    await sendWebhook({ ...pending!, account: "acct_1Stuck" });
    await settled();
    await app.pool.query("UPDATE payments SET updated_at = now() - interval '2 hours' WHERE gateway_charge_id = $1", [
      history.payment.chargeId,
    ]);
    const before = gateway.requests.length;
    const result = counted(await reconcile({ since: new Date(Date.now() - 60_000), until: new Date() }));
    expect(result).toMatchObject({ stuckRefetched: 1, repaired: 1, errors: 0 });
    const reads = gateway.requests.slice(before).filter((request) => request.path.startsWith(`/v1/charges/${history.payment.chargeId}`));
    expect(reads.map((read) => read.stripeAccount)).toEqual(["acct_1Stuck"]);
  });
});

describe("gateways without an events API: Mercado Pago's payments search", () => {
  it("turns each payment whose state differs from ours into a derived event the worker applies; again, nothing", async () => {
    const histories = generateHistories(seed++, 7, ["mercadopago"], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 3_600_000 });
    gateway.add(histories);
    // One we know in a state the gateway has since left, one we know as the gateway shows it.
    const [behind, agreeing] = histories;
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency)
       VALUES ('mercadopago', $1, 'pending', $2, 0, 'brl'), ('mercadopago', $3, $4, $5, $6, 'brl')`,
      [
        behind!.payment.chargeId,
        behind!.payment.amount,
        agreeing!.payment.chargeId,
        agreeing!.truth.status,
        agreeing!.payment.amount,
        agreeing!.truth.amountRefunded,
      ],
    );
    const first = counted(await reconcile({ provider: "mercadopago", ...window() }));
    expect(first).toMatchObject({
      outcome: "finished",
      listed: 7,
      repaired: behind!.truth.status === "pending" ? 5 : 6,
      missingIngested: 0,
    });
    expect(first.findings.map((finding) => finding.resourceId)).not.toContain(agreeing!.payment.chargeId);
    await settled();
    for (const state of await paymentStates(histories)) expect(state.app, state.chargeId).toBe(state.truth);
    const derived = await app.pool.query(
      "SELECT DISTINCT event_id_derived, source, event_type LIKE 'reconcile.%' AS typed FROM webhook_inbox",
    );
    expect(derived.rows).toEqual([{ event_id_derived: true, source: "reconcile", typed: true }]);
    expect(counted(await reconcile({ provider: "mercadopago", ...window() }))).toMatchObject({ listed: 7, repaired: 0 });
  });

  it("stores a drift the state machine refuses once: running again finds nothing new", async () => {
    const history = generateHistories(seed++, 40, ["mercadopago"], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 3_600_000 }).find(
      (candidate) => candidate.truth.status === "paid",
    )!;
    gateway.add([history]);
    // Ours says failed (final); the gateway says paid: the worker can't move it, and says why.
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency) VALUES ('mercadopago', $1, 'failed', $2, 'brl')`,
      [history.payment.chargeId, history.payment.amount],
    );
    expect(counted(await reconcile({ provider: "mercadopago", ...window() }))).toMatchObject({ repaired: 1 });
    await settled();
    expect(counted(await reconcile({ provider: "mercadopago", ...window() }))).toMatchObject({ listed: 1, repaired: 0 });
    const { rows } = await app.pool.query("SELECT status, ignored_reason FROM webhook_inbox WHERE resource_id = $1", [
      history.payment.chargeId,
    ]);
    expect(rows).toEqual([{ status: "ignored", ignored_reason: expect.any(String) }]);
  });

  it("moves to the next offset past an empty page short of paging.total", async () => {
    const histories = generateHistories(seed++, 4, ["mercadopago"], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 3_600_000 });
    gateway.add(histories);
    gateway.intercept((path) =>
      path.startsWith("/v1/payments/search") && path.includes("offset=0&")
        ? { status: 200, body: { paging: { total: 4, offset: 0, limit: 3 }, results: [] } }
        : undefined,
    );
    const result = counted(await reconcile({ provider: "mercadopago", ...window() }));
    // The first page came back empty: the three payments on it are left to the next run; the fourth is listed.
    expect(result).toMatchObject({ outcome: "finished", pages: 2, listed: 1 });
  });
});

describe("accounts: each listed with its own credentials from its own cursor", () => {
  it("files the default run's repairs under the seller the payment's notifications name, as a delivery to the default URL is", async () => {
    const [listed, stuck] = generateHistories(seed++, 40, ["mercadopago"], {
      startMs: Date.now() - 2 * 3_600_000,
      spreadMs: 3_600_000,
    }).filter((candidate) => candidate.truth.status === "paid");
    gateway.add([listed!, stuck!]);
    // Delivered to the default URL: each notification names the seller (user_id), and its payment is that seller's.
    for (const history of [listed!, stuck!]) {
      const webhook = webhookFor("mercadopago", history.payment, history.steps[0]!, MP_SECRET);
      const outcome = await ingestEvent(
        { pool: app.pool, boss: app.boss, config: app.config },
        {
          provider: "mercadopago",
          rawBody: Buffer.from(webhook.body),
          headers: webhook.headers,
          query: new URLSearchParams(webhook.query),
        },
      );
      expect(outcome.kind).toBe("stored");
    }
    await settled();
    const seller = String(mercadopagoNotification(listed!.payment, listed!.steps[0]!).user_id);
    const charges = [listed!.payment.chargeId, stuck!.payment.chargeId];
    // The listed one drifts in the window; the stuck one is found after it (the window lists only the first).
    gateway.intercept((path) =>
      path.startsWith("/v1/payments/search")
        ? { status: 200, body: { paging: { total: 1, offset: 0, limit: 3 }, results: [mercadopagoPaymentOf(listed!)] } }
        : undefined,
    );
    // Twice: the second time a repair is the payment's latest event, and its body names no account.
    for (const behind of ["pending", "authorized"]) {
      await app.pool.query("UPDATE payments SET status = $2, amount_refunded = 0 WHERE gateway_charge_id = ANY($1)", [charges, behind]);
      await app.pool.query(
        "UPDATE payments SET updated_at = now() - interval '2 hours', last_gateway_event_at = now() - interval '2 hours' WHERE gateway_charge_id = $1",
        [stuck!.payment.chargeId],
      );
      expect(counted(await reconcile({ provider: "mercadopago", ...window() }))).toMatchObject({
        account: "default",
        repaired: 2,
        errors: 0,
      });
      await settled();
    }
    const filed = await app.pool.query(
      `SELECT w.gateway_account AS event, p.gateway_account AS payment, count(*)::int AS repairs FROM webhook_inbox w
         JOIN payments p ON p.provider = w.provider AND p.gateway_charge_id = w.resource_id
        WHERE w.source = 'reconcile' AND p.gateway_charge_id = ANY($1) GROUP BY 1, 2`,
      [charges],
    );
    expect(filed.rows).toEqual([{ event: seller, payment: seller, repairs: 4 }]);
  });

  it("lists a Stripe Connect account's events with Stripe-Account, ingests the missed dispute under that account, and refetches it from there", async () => {
    const connected = "acct_1Listed";
    const overrides = { STRIPE_ACCOUNTS: connected };
    const history = generateHistories(seed++, 60, ["stripe"], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 600_000, sameSecondRate: 0 })
      .map((candidate) => ({ ...candidate, payment: { ...candidate.payment, account: connected } }))
      .find(
        (candidate) =>
          !candidate.payment.integration && candidate.steps.map((step) => step.kind).join() === "succeeded,dispute_opened,dispute_lost",
      )!;
    const events = history.steps.flatMap((step) => stripeEvents(history.payment, step));
    gateway.addConnected(connected, [history]);
    gateway.addEvents(events, connected);
    const before = gateway.requests.length;
    // The platform's own run lists none of them: they are the connected account's.
    expect(counted(await reconcile(window(), overrides))).toMatchObject({ account: "default", listed: 0 });
    const result = counted(await reconcile({ ...window(), account: connected }, overrides));
    expect(result).toMatchObject({ outcome: "finished", account: connected, listed: events.length, missingIngested: events.length });
    const lists = gateway.requests.slice(before).filter((request) => request.path.startsWith("/v1/events"));
    expect(lists.map((request) => request.stripeAccount)).toEqual([null, connected]);
    await settled();
    expect(await paymentStates([history])).toEqual([
      { chargeId: history.payment.chargeId, app: "charged_back/0", truth: "charged_back/0" },
    ]);
    // The dispute's refetch read the connected account (without the header the fake Stripe answers 404).
    const reads = gateway.requests.slice(before).filter((request) => request.path.startsWith(`/v1/charges/${history.payment.chargeId}`));
    expect(reads.length).toBeGreaterThan(0);
    expect(new Set(reads.map((read) => read.stripeAccount))).toEqual(new Set([connected]));
    const stored = await app.pool.query("SELECT DISTINCT gateway_account FROM webhook_inbox WHERE resource_id = $1", [
      history.payment.chargeId,
    ]);
    expect(stored.rows).toEqual([{ gateway_account: connected }]);
  });

  it("fans the schedule out, one job per due account, a bounded few of one gateway at a time, each Asaas subaccount read with its own key", async () => {
    const overrides = {
      ASAAS_ACCOUNTS: "loja-a,loja-b,loja-c,loja-d,loja-e",
      ASAAS_API_KEY_LOJA_A: "$aact_reconcile_loja_a",
      ASAAS_API_KEY_LOJA_B: "$aact_reconcile_loja_b",
      ASAAS_API_KEY_LOJA_C: "$aact_reconcile_loja_c",
      ASAAS_API_KEY_LOJA_D: "$aact_reconcile_loja_d",
      ASAAS_API_KEY_LOJA_E: "$aact_reconcile_loja_e",
      RECONCILE_CONCURRENCY: "2",
      // Only the subaccounts are due: the other gateways' schedules are off here.
      RECONCILE_INTERVAL_MINUTES_STRIPE: "0",
      RECONCILE_INTERVAL_MINUTES_MERCADOPAGO: "0",
      RECONCILE_INTERVAL_MINUTES_STANDARD: "0",
    };
    const keyOf = (name: string) => overrides[`ASAAS_API_KEY_${name.toUpperCase().replace("-", "_")}` as keyof typeof overrides];
    const paid = (count: number) =>
      generateHistories(seed++, 40, ["asaas"], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 3_600_000 })
        .filter((history) => history.truth.status === "paid" && history.truth.amountRefunded === 0)
        .slice(0, count);
    const lojas: Record<string, PaymentHistory[]> = {
      "loja-a": paid(2),
      "loja-b": paid(3),
      "loja-c": paid(1),
      "loja-d": paid(1),
      "loja-e": paid(1),
    };
    for (const [name, histories] of Object.entries(lojas)) {
      gateway.addAccount({ apiKey: keyOf(name) }, histories);
      // Ours say pending: each payment drifted.
      for (const { payment } of histories)
        await app.pool.query(
          `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, registered_by, gateway_account)
           VALUES ('asaas', $1, 'pending', $2, 'brl', 'host', $3)`,
          [payment.chargeId, payment.amount, name],
        );
    }
    const config = testConfig(app.env, overrides);
    const before = gateway.requests.length;
    const boss = createWorkerBoss(app.db.url, 1);
    await boss.start();
    const deps = {
      pool: app.pool,
      boss,
      config,
      gateways: createGatewayClients(config),
      accounts: configAccounts(config),
      workerId: "test",
    };
    try {
      // The schedule's pass: one job per due account, grouped by gateway, and nothing run yet.
      expect(await runJob(reconcileJob, deps, {})).toEqual({ runs: [], enqueued: 5 });
      const queued = await app.pool.query(
        "SELECT singleton_key AS key, group_id AS gateway FROM pgboss.job WHERE name = 'reconcile-account' ORDER BY singleton_key",
      );
      expect(queued.rows).toEqual(Object.keys(lojas).map((name) => ({ key: `asaas/${name}`, gateway: "asaas" })));
      // A second pass while they wait adds none: one per account queued or running.
      expect(await runJob(reconcileJob, deps, {})).toEqual({ runs: [], enqueued: 0 });
      expect((await app.pool.query("SELECT 1 FROM pgboss.job WHERE name = 'reconcile-account'")).rowCount).toBe(5);

      await workJob(boss, reconcileAccountJob, deps);
      await waitFor(
        async () =>
          (await app.pool.query("SELECT 1 FROM pgboss.job WHERE name = 'reconcile-account' AND state = 'completed'")).rowCount === 5,
        60_000,
        "every account's run",
      );
    } finally {
      await boss.stop({ graceful: false });
    }
    // How many ran at once: the most runs in progress when one started.
    const { rows: overlap } = await app.pool.query<{ most: number }>(
      `SELECT max((SELECT count(*) FROM reconcile_runs o WHERE o.started_at <= r.started_at AND o.finished_at > r.started_at))::int AS most
         FROM reconcile_runs r`,
    );
    expect(overlap[0]!.most).toBeGreaterThan(0);
    expect(overlap[0]!.most).toBeLessThanOrEqual(2);
    const runs = await app.pool.query(
      "SELECT gateway_account AS account, trigger, status, listed, repaired, errors FROM reconcile_runs ORDER BY gateway_account",
    );
    expect(runs.rows).toEqual(
      Object.entries(lojas).map(([account, histories]) => ({
        account,
        trigger: "schedule",
        status: "finished",
        listed: histories.length,
        repaired: histories.length,
        errors: 0,
      })),
    );
    const lists = gateway.requests.slice(before).filter((request) => request.path.startsWith("/v3/payments?"));
    expect(new Set(lists.map((request) => request.as))).toEqual(new Set(Object.keys(lojas).map((name) => `key:${keyOf(name)}`)));
    const cursors = await app.pool.query("SELECT provider, gateway_account, complete FROM reconcile_cursors ORDER BY gateway_account");
    expect(cursors.rows).toEqual(Object.keys(lojas).map((name) => ({ provider: "asaas", gateway_account: name, complete: true })));
    await settled();
    for (const [name, histories] of Object.entries(lojas)) {
      expect((await paymentStates(histories)).map(({ app: ours }) => ours)).toEqual(histories.map(() => "paid/0"));
      const repairs = await app.pool.query(
        "SELECT DISTINCT gateway_account FROM webhook_inbox WHERE source = 'reconcile' AND resource_id = ANY($1)",
        [histories.map((history) => history.payment.chargeId)],
      );
      expect(repairs.rows).toEqual([{ gateway_account: name }]);
    }
    // The alert names the accounts whose webhooks to look at.
    const alerts = await findAlerts({ pool: app.pool, config });
    expect(alerts.find((alert) => alert.kind === "reconcile_missed" && alert.provider === "asaas")?.text).toContain(
      "8 payments (accounts: loja-a, loja-b, loja-c, loja-d, loja-e)",
    );
    // Each account's interval runs from its own last run: none is due again yet.
    expect(await dueReconciliations(deps)).toEqual([]);
  });
});

describe("the worker's schedule", () => {
  it("runs a gateway once its API credentials are set, on its own interval, and not again before it", async () => {
    const deps = (overrides: Record<string, string>) => {
      const config = testConfig(app.env, overrides);
      return { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config) };
    };
    const stripeOnly = { RECONCILE_INTERVAL_MINUTES_MERCADOPAGO: "0", RECONCILE_INTERVAL_MINUTES_STANDARD: "0" };
    const scheduled = (config: ReturnType<typeof testConfig>) =>
      reconcilableAccounts(config, configAccounts(config), { scheduled: true }).map(({ provider }) => provider);
    expect(scheduled(testConfig(app.env, { STRIPE_API_KEY: "" }))).not.toContain("stripe");
    expect(scheduled(testConfig(app.env, { RECONCILE_INTERVAL_MINUTES_STRIPE: "0" }))).not.toContain("stripe");
    expect(reconcilableProviders(testConfig(app.env, { RECONCILE_INTERVAL_MINUTES_STRIPE: "0" }))).toContain("stripe");
    const first = await dueReconciliations(deps(stripeOnly));
    expect(first).toEqual([{ provider: "stripe", account: "default" }]);
    counted(await runReconciliation(deps(stripeOnly), { ...first[0]!, trigger: "schedule" }));
    expect(await dueReconciliations(deps(stripeOnly))).toEqual([]);
    const runs = await app.pool.query("SELECT provider, trigger FROM reconcile_runs");
    expect(runs.rows).toEqual([{ provider: "stripe", trigger: "schedule" }]);
  });
});

describe("what a run found, told", () => {
  it("alerts when a run found missed events, and exports what it recovered per provider", async () => {
    const { events } = stripeHistories(2);
    counted(await reconcile(window()));
    const alerts = await findAlerts({ pool: app.pool, config: app.config });
    const missed = alerts.filter((alert) => alert.kind === "reconcile_missed");
    expect(missed).toEqual([
      {
        kind: "reconcile_missed",
        provider: "stripe",
        text: expect.stringContaining(`found ${events.length} events the gateway never sent`),
      },
    ]);
    const text = await renderMetrics(app.pool, async () => app.boss);
    expect(text).toContain(`webhook_inbox_reconcile_recovered_events{provider="stripe",kind="missed"} ${events.length}`);
  });
});
