import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processEvents } from "@/lib/inbox/process/process-event";
import { compactPaymentTotals } from "@/lib/payments/compact-payment-totals";
import { customerSummary } from "@/lib/payments/customer-summary";
import { NO_MONEY } from "@/lib/payments/payment-money";
import {
  hourSpans,
  paymentFilterSql,
  paymentTotals,
  totalsByCurrency,
  type PaymentFilter,
  type TotalsRow,
} from "@/lib/payments/search-payments";
import { ingestStripeStep, processDeps, stripePayment } from "@/lib/testing/payment-events";
import type { PoolClient } from "@/lib/db/pool";
import { seededRandom, stressRollup } from "@/lib/testing/rollup-stress";
import { sameSlotClients } from "@/lib/testing/same-slot-clients";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The payments list's totals: read from the hourly rollup the triggers keep plus the filter's partial
// edge hours, they must equal summing the matching payments themselves, after any writes.

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("payment_totals");
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes CASCADE");
});

const HOUR = 3_600_000;
const base = Date.UTC(2026, 10, 20, 0, 0, 0);
const STATUSES = ["pending", "paid", "refunded", "partially_refunded", "disputed"] as const;
const PROVIDERS = ["stripe", "asaas", "pagarme"];

/** The sums straight from payments, the way the totals were computed before the rollup. */
async function summedDirectly(filter: PaymentFilter) {
  const { where, params } = paymentFilterSql(filter);
  const { rows } = await app.pool.query<TotalsRow>(
    `SELECT currency, status, count(*)::int AS payments, COALESCE(sum(amount), 0)::text AS amount, sum(amount_refunded)::text AS refunded
       FROM payments p WHERE ${where} GROUP BY 1, 2 ORDER BY currency NULLS LAST, status`,
    params,
  );
  return totalsByCurrency(rows);
}

describe("payment totals", () => {
  it("splits a filter into whole UTC hours and the partial hours at its edges", () => {
    const at = (minutes: number) => new Date(base + minutes * 60_000);
    expect(hourSpans({})).toEqual({ start: null, end: null });
    expect(hourSpans({ createdFrom: at(30), createdTo: at(150) })).toEqual({ start: at(60), end: at(120) });
    expect(hourSpans({ createdFrom: at(60) })).toEqual({ start: at(60), end: null });
    expect(hourSpans({ createdTo: at(59) })).toEqual({ start: null, end: at(0) });
    // Inside one hour, or across one boundary only: nothing whole to read from the rollup.
    expect(hourSpans({ createdFrom: at(10), createdTo: at(50) })).toEqual({ start: null, end: null });
    expect(hourSpans({ createdFrom: at(50), createdTo: at(70) })).toEqual({ start: null, end: null });
  });

  it("equals the payments' own sums for every filter, after inserts, updates, refunds and deletes", async () => {
    const next = seededRandom(7);
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency, created_at)
       SELECT provider, 'ch_' || n, status, amount, 0, currency, created_at
         FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::text[], $6::timestamptz[])
           AS t(provider, n, status, amount, currency, created_at)`,
      [
        Array.from({ length: 400 }, () => pick(PROVIDERS)),
        Array.from({ length: 400 }, (_, n) => n),
        Array.from({ length: 400 }, () => pick(STATUSES)),
        Array.from({ length: 400 }, () => (next() < 0.1 ? null : 100 + Math.floor(next() * 100_000))),
        Array.from({ length: 400 }, () => (next() < 0.05 ? null : pick(["usd", "brl"]))),
        Array.from({ length: 400 }, () => new Date(base + Math.floor(next() * 30 * HOUR))),
      ],
    );
    // Writes the triggers must follow: a status change, a refund, facts filled later, a delete.
    await app.pool.query("UPDATE payments SET status = 'paid' WHERE id % 7 = 0");
    await app.pool.query(
      "UPDATE payments SET amount_refunded = amount / 2, status = 'partially_refunded' WHERE id % 11 = 0 AND amount IS NOT NULL",
    );
    await app.pool.query("UPDATE payments SET amount = 555, currency = 'usd' WHERE amount IS NULL AND id % 2 = 0");
    await app.pool.query("DELETE FROM payments WHERE id % 13 = 0");

    const filters: PaymentFilter[] = [{}, { statuses: ["paid"] }, { provider: "asaas", statuses: ["paid", "partially_refunded"] }];
    for (let i = 0; i < 40; i++) {
      const from = base + Math.floor(next() * 32 * HOUR) - HOUR;
      const filter: PaymentFilter = {
        statuses: next() < 0.5 ? [pick(STATUSES)] : undefined,
        provider: next() < 0.5 ? pick(PROVIDERS) : undefined,
        createdFrom: next() < 0.8 ? new Date(from) : undefined,
        createdTo: next() < 0.8 ? new Date(from + Math.floor(next() * 12 * HOUR)) : undefined,
      };
      filters.push(filter);
    }
    for (const filter of filters) {
      const totals = await paymentTotals(app.pool, filter);
      expect(totals.capped).toBe(false);
      expect(totals.totals, JSON.stringify(filter)).toEqual(await summedDirectly(filter));
    }
  });

  it("counts only captured money, and what became of it, per currency, on every path the totals take", async () => {
    // One customer's payments in every status, in reais and in yen; the sums below are worked by hand.
    const created = new Date(Date.now() - 5 * HOUR);
    const statuses: [status: string, amount: number | null, refunded: number][] = [
      ["paid", 1000, 0],
      ["partially_refunded", 2000, 500],
      ["refunded", 3000, 3000],
      ["disputed", 4000, 0],
      ["charged_back", 5000, 1000],
      ["failed", 92756, 0],
      ["canceled", 700, 0],
      ["pending", 800, 0],
      ["authorized", 900, 0],
    ];
    for (const currency of ["brl", "jpy"]) {
      for (const [index, [status, amount, refunded]] of statuses.entries()) {
        await app.pool.query(
          `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency, customer_email, created_at)
           VALUES ('stripe', $1, $2, $3, $4, $5, 'ana@example.com', $6)`,
          [`ch_${currency}_${index}`, status, amount, refunded, currency, new Date(created.getTime() + index * 60_000)],
        );
      }
    }
    const expected = (currency: string) => ({
      currency,
      payments: 9,
      captured: 1000 + 2000 + 3000 + 4000 + 5000,
      refunded: 500 + 3000 + 1000,
      disputed: 4000,
      chargedBack: 5000 - 1000,
      net: 15000 - 4500 - 4000,
      byStatus: Object.fromEntries(statuses.map(([status]) => [status, 1])),
    });
    const both = [expected("brl"), expected("jpy")];
    // The rollup alone, the rollup with partial edge hours, a search over the payments, a customer.
    expect((await paymentTotals(app.pool, {})).totals).toEqual(both);
    expect((await paymentTotals(app.pool, { createdFrom: new Date(created.getTime() - 30 * 60_000) })).totals).toEqual(both);
    expect((await paymentTotals(app.pool, { search: "ana@example.com" })).totals).toEqual(both);
    expect((await customerSummary(app.pool, "ana@example.com"))?.totals).toEqual(both);
    // Failed, canceled and waiting payments are counted, but add no money.
    expect((await paymentTotals(app.pool, { statuses: ["failed", "canceled", "pending", "authorized"] })).totals).toEqual([
      { currency: "brl", payments: 4, ...NO_MONEY, byStatus: { authorized: 1, canceled: 1, failed: 1, pending: 1 } },
      { currency: "jpy", payments: 4, ...NO_MONEY, byStatus: { authorized: 1, canceled: 1, failed: 1, pending: 1 } },
    ]);
  });

  it("follows the processing path's writes: a payment created paid, then refunded in full", async () => {
    const payment = stripePayment();
    const now = Date.now();
    const paid = await ingestStripeStep(app, payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
    const refund = await ingestStripeStep(app, payment, { kind: "refund", amountRefunded: payment.amount, occurredAtMs: now - 20_000 });
    const deps = processDeps(app);
    expect(await processEvents(deps, [paid.inboxId])).toEqual(["processed"]);
    expect((await paymentTotals(app.pool, {})).totals).toEqual([
      {
        currency: "usd",
        payments: 1,
        captured: payment.amount,
        refunded: 0,
        disputed: 0,
        chargedBack: 0,
        net: payment.amount,
        byStatus: { paid: 1 },
      },
    ]);
    expect(await processEvents(deps, [refund.inboxId])).toEqual(["processed"]);
    expect((await paymentTotals(app.pool, { statuses: ["refunded"] })).totals).toEqual([
      {
        currency: "usd",
        payments: 1,
        captured: payment.amount,
        refunded: payment.amount,
        disputed: 0,
        chargedBack: 0,
        net: 0,
        byStatus: { refunded: 1 },
      },
    ]);
    expect((await paymentTotals(app.pool, { statuses: ["paid"] })).totals).toEqual([]);
  });

  it("folds every hour's deltas into one row per key, the totals unchanged", async () => {
    const old = new Date(Date.now() - 3 * 86_400_000);
    // Written by several connections, then moved between statuses: a delta per statement and key.
    const clients = await Promise.all([app.pool.connect(), app.pool.connect(), app.pool.connect()]);
    try {
      for (const [index, client] of clients.entries()) {
        await client.query(
          `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, created_at)
           SELECT 'stripe', 'ch_${index}_' || n, 'paid', 100 * n, 'usd', $1 FROM generate_series(1, 5) AS n
           UNION ALL SELECT 'stripe', 'ch_${index}_now', 'paid', 700, 'usd', now()`,
          [old],
        );
        await client.query(`UPDATE payments SET status = 'refunded', amount_refunded = amount WHERE gateway_charge_id = 'ch_${index}_1'`);
      }
      await clients[0]!.query("UPDATE payments SET status = 'disputed' WHERE gateway_charge_id IN ('ch_0_2', 'ch_1_2', 'ch_2_2')");
      await clients[1]!.query("UPDATE payments SET status = 'paid' WHERE gateway_charge_id IN ('ch_0_2', 'ch_1_2', 'ch_2_2')");
    } finally {
      for (const client of clients) client.release();
    }
    const before = (await paymentTotals(app.pool, {})).totals;
    await compactPaymentTotals(app.pool);
    expect((await paymentTotals(app.pool, {})).totals).toEqual(before);
    expect((await paymentTotals(app.pool, {})).totals).toEqual(await summedDirectly({}));
    const { rows } = await app.pool.query<{ hour: Date; status: string; slots: number[] }>(
      `SELECT hour, status, array_agg(slot ORDER BY slot)::int[] AS slots FROM payment_hourly_totals GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    // One row per group, in slot 0, this hour's too; the emptied disputed group is gone.
    expect(rows.map((row) => [row.hour.getTime() < Date.now() - 2 * HOUR ? "old" : "now", row.status, row.slots])).toEqual([
      ["old", "paid", [0]],
      ["old", "refunded", [0]],
      ["now", "paid", [0]],
    ]);
  });

  it("never makes a writer wait on another's open transaction, on the same hour, provider, status and currency", async () => {
    // One hour for every write, so a test run across an hour's end still writes the same keys.
    const hour = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR + 60_000);
    const insert = `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, created_at)
                    VALUES ('stripe', $1, 'paid', 1000, 'usd', $2) RETURNING id`;
    const [seeded, refunded] = await Promise.all(
      ["ch_seed_1", "ch_seed_2"].map(async (id) => (await app.pool.query<{ id: string }>(insert, [id, hour])).rows[0]!.id),
    );
    const [holder, other] = await sameSlotClients(app.db.url);
    try {
      // A wait for a lock fails the statement instead of hanging the test until the holder commits.
      await other.query("SET lock_timeout = '2s'");
      await holder.query("BEGIN");
      await holder.query(insert, ["ch_held", hour]);
      await holder.query("UPDATE payments SET status = 'refunded', amount_refunded = amount WHERE id = $1", [seeded]);
      // A payment written, refunded and deleted on the same keys while the holder's sums are uncommitted.
      const { rows } = await other.query<{ id: string }>(insert, ["ch_other", hour]);
      await other.query("UPDATE payments SET status = 'refunded', amount_refunded = amount WHERE id = $1", [refunded]);
      await other.query("DELETE FROM payments WHERE id = $1", [rows[0]!.id]);
      await compactPaymentTotals(app.pool);
      await holder.query("COMMIT");
    } finally {
      await Promise.all([holder.end(), other.end()]);
    }
    expect((await paymentTotals(app.pool, {})).totals).toEqual(await summedDirectly({}));
    expect((await paymentTotals(app.pool, {})).totals).toMatchObject([
      { currency: "usd", payments: 3, byStatus: { paid: 1, refunded: 2 } },
    ]);
  });

  it("stay exact at every moment under concurrent writes, refunds, moves and deletes, folded concurrently", async () => {
    const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
    const hours = [0, 1, 2, 5].map((back) => new Date(thisHour - back * HOUR + 60_000));
    const mine = (writer: number) => `stress${writer}_%`;
    // A random few of the writer's own payments.
    const some = (limit: number) => `SELECT id FROM payments WHERE gateway_charge_id LIKE $1 ORDER BY random() LIMIT ${limit}`;
    async function write(client: PoolClient, writer: number, next: () => number) {
      const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
      const amount = () => (next() < 0.1 ? null : 100 + Math.floor(next() * 10_000));
      const currency = () => (next() < 0.1 ? null : pick(["usd", "brl"]));
      const choice = next();
      if (choice < 0.35) {
        const rows = Array.from({ length: 1 + Math.floor(next() * 3) }, () => [
          pick(PROVIDERS),
          pick(STATUSES),
          amount(),
          currency(),
          pick(hours),
        ]);
        await client.query(
          `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency, created_at)
           SELECT provider, $1 || gen_random_uuid(), status, amount, 0, currency, created_at
             FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::timestamptz[]) AS t(provider, status, amount, currency, created_at)`,
          [mine(writer).slice(0, -1), ...[0, 1, 2, 3, 4].map((column) => rows.map((row) => row[column]))],
        );
      } else if (choice < 0.55) {
        await client.query(`UPDATE payments SET status = $2 WHERE id IN (${some(3)})`, [mine(writer), pick(STATUSES)]);
      } else if (choice < 0.7) {
        await client.query(
          `UPDATE payments SET status = 'partially_refunded', amount_refunded = amount / 2 WHERE id IN (${some(2)}) AND amount IS NOT NULL`,
          [mine(writer)],
        );
      } else if (choice < 0.8) {
        await client.query(`UPDATE payments SET amount = $2, currency = $3, created_at = $4 WHERE id IN (${some(1)})`, [
          mine(writer),
          amount(),
          currency(),
          pick(hours),
        ]);
      } else if (choice < 0.9) {
        await client.query(`DELETE FROM payments WHERE id IN (${some(2)})`, [mine(writer)]);
      } else {
        // Holds a transaction's sums uncommitted a little longer.
        await client.query("SELECT pg_sleep(0.02)");
      }
    }
    async function read(client: PoolClient) {
      const rollup = await client.query(
        `SELECT hour, provider, status, currency, sum(payments)::int AS payments, sum(amount)::text AS amount, sum(refunded)::text AS refunded
           FROM payment_hourly_totals GROUP BY 1, 2, 3, 4
         HAVING sum(payments) <> 0 OR sum(amount) <> 0 OR sum(refunded) <> 0 ORDER BY 1, 2, 3, 4`,
      );
      const truth = await client.query(
        `SELECT date_trunc('hour', created_at, 'UTC') AS hour, provider, status, COALESCE(currency, '') AS currency, count(*)::int AS payments,
                COALESCE(sum(amount), 0)::text AS amount, sum(amount_refunded)::text AS refunded
           FROM payments GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      );
      return { rollup: rollup.rows, truth: truth.rows };
    }
    const fold = () => compactPaymentTotals(app.pool);
    const { differed, folds, reads } = await stressRollup(app.pool, { writers: 6, steps: 40, write, fold, folders: 2, read });
    expect(differed[0]?.rollup).toEqual(differed[0]?.truth);
    expect(differed).toHaveLength(0);
    expect(folds).toBeGreaterThan(1);
    expect(reads).toBeGreaterThan(1);
    expect((await app.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM payments")).rows[0]!.n).toBeGreaterThan(0);
    // Folded twice at rest: one total per key, every delta gone, no total left at nothing.
    await fold();
    await fold();
    const { rows } = await app.pool.query(
      `SELECT hour, provider, status, currency FROM payment_hourly_totals GROUP BY 1, 2, 3, 4
       HAVING count(*) > 1 OR bool_or(slot <> 0) OR bool_or(payments = 0 AND amount = 0 AND refunded = 0)`,
    );
    expect(rows).toEqual([]);
    expect((await paymentTotals(app.pool, {})).totals).toEqual(await summedDirectly({}));
  });

  it("is emptied with the payments", async () => {
    await app.pool.query(
      "INSERT INTO payments (provider, gateway_charge_id, status, amount, currency) VALUES ('stripe', 'ch_gone', 'paid', 100, 'usd')",
    );
    await app.pool.query("TRUNCATE payments CASCADE");
    expect((await paymentTotals(app.pool, {})).totals).toEqual([]);
  });
});
