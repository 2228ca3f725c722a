import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { searchPayments, type PaymentSort } from "@/lib/payments/search-payments";
import { paymentsCsv } from "@/lib/console/export-csv";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The payments list against a real database: what a search resolves to, the e-mails it may match
// inside of, and the same order and totals whichever plan serves a filter.

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("search_payments");
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes CASCADE");
});

async function addPayment(chargeId: string, email: string | null, customerId: string | null = null) {
  await app.pool.query(
    `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, customer_id, customer_email)
     VALUES ('stripe', $1, 'paid', 1000, 'usd', $2, $3)`,
    [chargeId, customerId, email],
  );
}

const emailsFound = async (search: string, searchIdsOnly = false) =>
  (await searchPayments(app.pool, { search, searchIdsOnly })).rows.map((row) => row.customerEmail ?? row.chargeId);

describe("searchPayments", () => {
  it("finds payments by the start or a part of an e-mail, a customer id or a charge id, exact matches first", async () => {
    await addPayment("ch_1", "customer70@example.com");
    await addPayment("ch_2", "customer7@example.com");
    await addPayment("ch_3", "ana.customer7@shop.test");
    await addPayment("ch_4", "bob@example.com", "cus_77");
    await addPayment("ch_512", null);

    const found = await emailsFound("customer7");
    expect(found[0]).toBe("customer7@example.com");
    expect(found.sort()).toEqual(["ana.customer7@shop.test", "customer70@example.com", "customer7@example.com"]);
    expect((await emailsFound("omer7")).sort()).toEqual(["ana.customer7@shop.test", "customer70@example.com", "customer7@example.com"]);
    expect(await emailsFound("Customer7@Ex")).toEqual(["customer7@example.com"]);
    expect(await emailsFound("cus_77")).toEqual(["bob@example.com"]);
    expect(await emailsFound("ch_51")).toEqual(["ch_512"]);
    // Ids only (a role that may not search customers): charges by id, never a customer.
    expect(await emailsFound("ch_51", true)).toEqual(["ch_512"]);
    expect(await emailsFound("customer7", true)).toEqual([]);
    // Two characters are matched whole: "ch" is no charge's id.
    expect(await emailsFound("ch")).toEqual([]);
  });

  it("finds payments by the end or the middle of a charge or customer id, and by an amount exactly", async () => {
    await addPayment("ch_3PqRsC1jcW9aBc", "a@example.com", "cus_NwA8Kx31");
    await addPayment("pay_sim_1049", "b@example.com");
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency) VALUES
         ('pagarme', 'or_brl', 'paid', 65998, 'brl'), ('stripe', 'ch_yen', 'paid', 65998, 'jpy'), ('stripe', 'ch_kwd', 'paid', 659980, 'kwd')`,
    );
    expect(await emailsFound("c1jcw9")).toEqual(["a@example.com"]);
    expect(await emailsFound("C1JCW9", true)).toEqual(["a@example.com"]);
    expect(await emailsFound("sim_104")).toEqual(["b@example.com"]);
    // Asked of the index without its id word, a term still matches whole: no customer's id holds "cus_1049".
    expect(await emailsFound("cus_1049")).toEqual([]);
    expect(await emailsFound("Pay_Sim_1049")).toEqual(["b@example.com"]);
    expect(await emailsFound("8Kx31")).toEqual(["a@example.com"]);
    expect(await emailsFound("8Kx31", true)).toEqual([]);
    // 659.98 is R$659.98 and KWD 659.980, not ¥65,998; every addPayment is $10.00.
    expect((await emailsFound("659.98")).sort()).toEqual(["ch_kwd", "or_brl"]);
    expect((await emailsFound("659,98", true)).sort()).toEqual(["ch_kwd", "or_brl"]);
    expect(await emailsFound("65998")).toEqual(["ch_yen"]);
    expect((await emailsFound("10")).sort()).toEqual(["a@example.com", "b@example.com"]);
    expect(await emailsFound("10.01")).toEqual([]);
  });

  it("filters by when a payment was paid, refunded, disputed or last changed, and exports those dates", async () => {
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const paidAt = hoursAgo(100);
    await addPayment("ch_old_refund", "a@example.com");
    await addPayment("ch_new_refund", "b@example.com");
    await addPayment("ch_disputed", "c@example.com");
    await addPayment("ch_refund_first", "d@example.com");
    // Its refund was applied before its payment notice, which then came stale: no change into paid.
    await app.pool.query(
      `INSERT INTO payment_transitions (payment_id, from_status, to_status, to_amount_refunded, source, applied_at)
       SELECT id, 'pending', 'paid', 0, 'event', $1::timestamptz FROM payments WHERE gateway_charge_id <> 'ch_refund_first'
       UNION ALL SELECT id, 'pending', 'refunded', 1000, 'event', $4::timestamptz FROM payments WHERE gateway_charge_id = 'ch_refund_first'
       UNION ALL SELECT id, 'paid', 'refunded', 1000, 'event', $2::timestamptz FROM payments WHERE gateway_charge_id = 'ch_old_refund'
       UNION ALL SELECT id, 'paid', 'partially_refunded', 500, 'event', $3::timestamptz FROM payments WHERE gateway_charge_id = 'ch_new_refund'
       UNION ALL SELECT id, 'paid', 'disputed', 0, 'event', $3::timestamptz FROM payments WHERE gateway_charge_id = 'ch_disputed'
       UNION ALL SELECT id, 'disputed', 'paid', 0, 'event', $5::timestamptz FROM payments WHERE gateway_charge_id = 'ch_disputed'`,
      [paidAt, hoursAgo(50), hoursAgo(2), hoursAgo(3), hoursAgo(1)],
    );
    await app.pool.query("UPDATE payments SET updated_at = $1 WHERE gateway_charge_id = 'ch_old_refund'", [hoursAgo(50)]);
    const charges = async (dated: NonNullable<Parameters<typeof searchPayments>[1]["dated"]>) =>
      (await searchPayments(app.pool, { dated })).rows.map((row) => row.chargeId).sort();
    const lastDay = { from: hoursAgo(24) };
    expect(await charges({ on: "refunded", ...lastDay })).toEqual(["ch_new_refund", "ch_refund_first"]);
    expect(await charges({ on: "refunded", from: hoursAgo(60), to: hoursAgo(40) })).toEqual(["ch_old_refund"]);
    expect(await charges({ on: "disputed", ...lastDay })).toEqual(["ch_disputed"]);
    // Refunded means the money was taken: its capture is dated by the refund, the first the inbox knew
    // of it. A dispute won (back to paid) is no new payment.
    expect(await charges({ on: "paid", ...lastDay })).toEqual(["ch_refund_first"]);
    expect(await charges({ on: "paid", to: hoursAgo(99) })).toEqual(["ch_disputed", "ch_new_refund", "ch_old_refund"]);
    expect(await charges({ on: "updated", to: hoursAgo(24) })).toEqual(["ch_old_refund"]);
    const totals = await searchPayments(app.pool, { dated: { on: "refunded", ...lastDay } });
    expect(totals.totals.map((total) => total.payments)).toEqual([2]);
    const lines: string[] = [];
    for await (const line of paymentsCsv(app.pool, "support", { dated: { on: "refunded", ...lastDay } })) lines.push(line);
    const [header, ...rows] = lines.map((line) => line.trim().split(","));
    const cells = (charge: string) => {
      const row = rows.find((cells) => cells[header!.indexOf("charge_id")] === charge)!;
      return (name: string) => row[header!.indexOf(name)];
    };
    expect(cells("ch_refund_first")("paid_at")).toBe(cells("ch_refund_first")("refunded_at"));
    const cell = cells("ch_new_refund");
    expect(cell("paid_at")).toBe(paidAt.toISOString());
    expect(cell("refunded_at")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(cell("disputed_at")).toBe("");
    expect(cell("created_at")).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("keeps the e-mails a part is matched in exactly those the payments name", async () => {
    const emails = async () =>
      (await app.pool.query<{ email: string }>("SELECT email FROM customer_emails ORDER BY email")).rows.map((row) => row.email);
    await addPayment("ch_1", null);
    await addPayment("ch_2", "shared@example.com");
    await addPayment("ch_3", "shared@example.com");
    expect(await emails()).toEqual(["shared@example.com"]);
    // Facts arrive later: the e-mail becomes searchable by a part of it.
    await app.pool.query("UPDATE payments SET customer_email = 'late.buyer@example.com' WHERE gateway_charge_id = 'ch_1'");
    expect(await emailsFound("buyer")).toEqual(["late.buyer@example.com"]);
    // An e-mail stays while a payment names it, and leaves with the last one.
    await app.pool.query("DELETE FROM payments WHERE gateway_charge_id = 'ch_2'");
    expect(await emails()).toEqual(["late.buyer@example.com", "shared@example.com"]);
    await app.pool.query("DELETE FROM payments WHERE gateway_charge_id IN ('ch_1', 'ch_3')");
    expect(await emails()).toEqual([]);
    await addPayment("ch_4", "again@example.com");
    await app.pool.query("TRUNCATE payments CASCADE");
    expect(await emails()).toEqual([]);
  });

  it("sorts by amount within each currency, never a yen among cents, both ways, whichever plan serves the filter", async () => {
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency) VALUES
         ('pagarme', 'brl_99023', 'paid', 99023, 'brl'), ('stripe', 'jpy_98863', 'paid', 98863, 'jpy'),
         ('pagarme', 'brl_98743', 'paid', 98743, 'brl'), ('stripe', 'usd_98669', 'paid', 98669, 'usd'),
         ('stripe', 'jpy_500', 'paid', 500, 'jpy'), ('stripe', 'usd_100000', 'paid', 100000, 'usd'),
         ('pagarme', 'brl_unknown', 'pending', NULL, 'brl'), ('asaas', 'unknown', 'pending', NULL, NULL)`,
    );
    const largestFirst = ["brl_99023", "brl_98743", "brl_unknown", "jpy_98863", "jpy_500", "usd_100000", "usd_98669", "unknown"];
    // A filter of few payments is sorted after its own lookups; one by account walks the sort's index.
    for (const filter of [{}, { account: "default" }]) {
      const sorted = async (sort: PaymentSort) => (await searchPayments(app.pool, filter, { sort })).rows.map((row) => row.chargeId);
      expect(await sorted("amount_desc"), JSON.stringify(filter)).toEqual(largestFirst);
      expect(await sorted("amount_asc"), JSON.stringify(filter)).toEqual([...largestFirst].reverse());
    }
  });

  it("lists a filter in the same order, with its exact total, whether few or many payments match", async () => {
    // Statuses and providers independent of each other; times spread over ten days.
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, created_at, updated_at)
       SELECT (ARRAY['stripe','asaas','pagarme'])[1 + n % 3], 'ch_' || n, (ARRAY['paid','refunded','pending','disputed'])[1 + (n / 3) % 4],
              CASE WHEN n % 17 = 0 THEN NULL ELSE (n * 7919) % 100000 END,
              CASE WHEN n % 23 = 0 THEN NULL ELSE (ARRAY['brl','jpy','usd'])[1 + (n / 7) % 3] END,
              timestamptz '2026-11-20' + make_interval(secs => (n * 7) % 864000),
              timestamptz '2026-11-20' + make_interval(secs => (n * 13) % 864000 + 60)
         FROM generate_series(1, 30000) AS n`,
    );
    await app.pool.query("ANALYZE payments");
    const filters = [
      {},
      { statuses: ["paid" as const] },
      {
        statuses: ["disputed" as const],
        provider: "asaas",
        createdFrom: new Date("2026-11-25T10:30:00Z"),
        createdTo: new Date("2026-11-25T12:00:00Z"),
      },
    ];
    const sorts: PaymentSort[] = ["updated_desc", "updated_asc", "created_desc", "created_asc", "amount_desc", "amount_asc"];
    const ORDER: Record<PaymentSort, string> = {
      updated_desc: "updated_at DESC, id DESC",
      updated_asc: "updated_at ASC, id ASC",
      created_desc: "created_at DESC, id DESC",
      created_asc: "created_at ASC, id ASC",
      amount_desc: "currency ASC NULLS LAST, amount DESC NULLS LAST, id DESC",
      amount_asc: "currency DESC NULLS FIRST, amount ASC NULLS FIRST, id ASC",
    };
    for (const filter of filters) {
      const where = `($1::text[] IS NULL OR status = ANY($1)) AND ($2::text IS NULL OR provider = $2)
                     AND ($3::timestamptz IS NULL OR created_at >= $3) AND ($4::timestamptz IS NULL OR created_at < $4)`;
      const params = [filter.statuses ?? null, filter.provider ?? null, filter.createdFrom ?? null, filter.createdTo ?? null];
      const { rows: counted } = await app.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE ${where}`, params);
      for (const sort of sorts) {
        const { rows } = await app.pool.query<{ charge: string }>(
          `SELECT gateway_charge_id AS charge FROM payments WHERE ${where} ORDER BY ${ORDER[sort]} LIMIT 50 OFFSET 50`,
          params,
        );
        const page = await searchPayments(app.pool, filter, { sort, page: 2 });
        expect(
          page.rows.map((row) => row.chargeId),
          `${JSON.stringify(filter)} ${sort}`,
        ).toEqual(rows.map((row) => row.charge));
        expect(page).toMatchObject({ total: counted[0]!.n, totalCapped: false, totalsCapped: false });
        expect(page.totals.reduce((sum, total) => sum + total.payments, 0)).toBe(counted[0]!.n);
      }
    }
  });
});
