import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomId, type PaymentFacts } from "@/lib/testing/gateway-events";
import { ingestStripeStep, processDeps } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { retentionJob } from "../../jobs/definitions/retention";
import { runJob } from "../../jobs/work-jobs";
import { processEvents } from "../process/process-event";

// Financial retention through the retention job: payments untouched for FINANCIAL_RETENTION_YEARS
// go with their history, feed changes and events; recent ones stay whole; unset, nothing goes.

let app: TestApp;
let archiveDir: string;

beforeAll(async () => {
  app = await createTestApp("financial_retention");
  archiveDir = await mkdtemp(join(tmpdir(), "financial-retention-"));
});
afterAll(async () => {
  await app.close();
  await rm(archiveDir, { recursive: true, force: true });
});

const configWith = (overrides: Record<string, string> = {}) =>
  testConfig(app.env, { ARCHIVE_DIR: archiveDir, RETENTION_BATCH_SIZE: "1", ...overrides });

/** A paid then partly refunded Stripe payment: two events, two transitions, two changes. */
async function paidAndRefunded(): Promise<{ chargeId: string; inboxIds: number[] }> {
  const payment: PaymentFacts = {
    chargeId: randomId("ch"),
    amount: 9900,
    currency: "brl",
    customerId: randomId("cus"),
    customerEmail: "old@example.com",
  };
  const config = configWith();
  const inboxIds: number[] = [];
  for (const step of [
    { kind: "succeeded" as const },
    { kind: "refund" as const, amountRefunded: 900, occurredAtMs: Date.now() - 30_000 },
  ]) {
    const { inboxId } = await ingestStripeStep(app, payment, step, config);
    expect(await processEvents(processDeps(app, config), [inboxId])).toEqual(["processed"]);
    inboxIds.push(inboxId);
  }
  return { chargeId: payment.chargeId, inboxIds };
}

/** What is stored of these charges: payments, transitions, changes, events, dedupe keys, attempts. */
async function stored(payments: { chargeId: string; inboxIds: number[] }[]) {
  const { rows } = await app.pool.query(
    `SELECT (SELECT count(*)::int FROM payments WHERE gateway_charge_id = ANY($1)) AS payments,
            (SELECT count(*)::int FROM payment_transitions t JOIN payments p ON p.id = t.payment_id WHERE p.gateway_charge_id = ANY($1)) AS transitions,
            (SELECT count(*)::int FROM payment_changes WHERE gateway_charge_id = ANY($1)) AS changes,
            (SELECT count(*)::int FROM webhook_inbox WHERE resource_id = ANY($1)) AS events,
            (SELECT count(*)::int FROM inbox_event_keys WHERE inbox_id = ANY($2)) AS keys,
            (SELECT count(*)::int FROM processing_attempts WHERE inbox_id = ANY($2)) AS attempts`,
    [payments.map((payment) => payment.chargeId), payments.flatMap((payment) => payment.inboxIds)],
  );
  return rows[0];
}

describe("financial retention", () => {
  it("purges payments untouched for FINANCIAL_RETENTION_YEARS with their whole trail, audited, and only when on", async () => {
    const old = [await paidAndRefunded(), await paidAndRefunded()];
    const recent = await paidAndRefunded();
    const oldCharges = old.map((payment) => payment.chargeId);
    // Seven years ago: the old payments' last change and all their events, and the recent one's first event.
    await app.pool.query("UPDATE payments SET updated_at = now() - interval '7 years' WHERE gateway_charge_id = ANY($1)", [oldCharges]);
    await app.pool.query("UPDATE webhook_inbox SET received_at = now() - interval '7 years' WHERE id = ANY($1)", [
      [...old.flatMap((payment) => payment.inboxIds), recent.inboxIds[0]],
    ]);
    const whole = { payments: 1, transitions: 2, changes: 2, events: 2, keys: 2, attempts: 2 };
    expect(await stored([recent])).toEqual(whole);
    const unset = configWith();
    expect(unset.retention.financialYears).toBeNull();

    // Off (the default): the job archives old payloads as ever, and no payment goes.
    const off = await runJob(retentionJob, { ...processDeps(app, unset) }, {});
    expect(off.events).toBe(5);
    expect(off.financial).toBeNull();
    expect(await stored(old)).toEqual({ payments: 2, transitions: 4, changes: 4, events: 4, keys: 4, attempts: 4 });

    // On, its period defaults to 6 years (Brazil's prescription, counted from the year after).
    const config = configWith({ FINANCIAL_RETENTION: "on" });
    expect(config.retention.financialYears).toBe(6);
    const on = await runJob(retentionJob, processDeps(app, config), {});
    expect(on.financial).toMatchObject({ payments: 2, transitions: 4, changes: 4, events: 4 });
    expect(await stored(old)).toEqual({ payments: 0, transitions: 0, changes: 0, events: 0, keys: 0, attempts: 0 });
    // A recent payment stays whole, its seven-year-old first event too: its trail goes with it, later.
    expect(await stored([recent])).toEqual(whole);
    // One audit row per batch (RETENTION_BATCH_SIZE=1 here: one payment each), with its counts.
    const { rows: audit } = await app.pool.query("SELECT actor, details FROM audit_log WHERE action = 'financial_retention' ORDER BY id");
    const cutoff = on.financial!.cutoff.toISOString();
    expect(audit).toEqual(
      [1, 2].map((batch) => ({
        actor: "retention",
        details: { years: 6, cutoff, batch, payments: 1, transitions: 2, changes: 2, events: 2 },
      })),
    );

    // Nothing left to purge: nothing changes, no further audit row.
    expect((await runJob(retentionJob, processDeps(app, config), {})).financial).toMatchObject({ payments: 0 });
    expect((await app.pool.query("SELECT count(*)::int AS n FROM audit_log WHERE action = 'financial_retention'")).rows[0].n).toBe(2);
  });

  it("refuses a period shorter than Brazil's five-year tax prescription, and a period with the purge off", () => {
    expect(() => configWith({ FINANCIAL_RETENTION: "on", FINANCIAL_RETENTION_YEARS: "4" })).toThrow(/FINANCIAL_RETENTION_YEARS/);
    expect(configWith({ FINANCIAL_RETENTION: "on", FINANCIAL_RETENTION_YEARS: "10" }).retention.financialYears).toBe(10);
    expect(() => configWith({ FINANCIAL_RETENTION_YEARS: "6" })).toThrow(/FINANCIAL_RETENTION=on/);
  });
});
