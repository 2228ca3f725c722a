import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { listEvents } from "../inbox/queries/list-events";
import { searchPayments, type PaymentFilter, type PaymentSort } from "../payments/search-payments";
import { csvLine, eventsCsv, eventsExport, paymentsCsv, paymentsExport } from "./export-csv";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("export_csv");
  // More rows than one batch, so the export pages through them.
  await app.pool.query(
    `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, customer_email, customer_id)
     SELECT 'stripe', 'ch_' || g, CASE WHEN g % 2 = 0 THEN 'paid' ELSE 'refunded' END, 1000 + g, 'usd', 'buyer' || g || '@example.com', 'cus_' || g
       FROM generate_series(1, 2500) AS g`,
  );
  await app.pool.query(
    `INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, customer_email, status, raw_body)
     SELECT 'stripe', 'evt_' || g, 'charge.succeeded', 'ch_' || g, 'buyer' || g || '@example.com', 'processed', '\\x7b7d' FROM generate_series(1, 1500) AS g`,
  );
});
afterAll(async () => app.close());

async function collect(lines: AsyncGenerator<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

describe("CSV exports", () => {
  it("quotes what needs quoting and defuses spreadsheet formulas", () => {
    expect(csvLine(["a", 'say "hi"', "x,y", null, 3, "=cmd()", "-1"])).toBe(`a,"say ""hi""","x,y",,3,'=cmd(),'-1\r\n`);
    // Behind leading spaces (NBSP too), and after a ; or , a ;-separated locale splits the cell at.
    expect(csvLine([" =1+1", "\u00a0@SUM(A1)", "\t=x", "a;=1+1", "a; +1", "b,-2", "ok; fine", "e-mail"])).toBe(
      `' =1+1,'\u00a0@SUM(A1),'\t=x,a;'=1+1,a; '+1,"b,'-2",ok; fine,e-mail\r\n`,
    );
  });

  it("writes amounts as decimals in each currency's own unit, and an amount of unknown currency as stored", async () => {
    await app.pool.query(
      `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency)
       VALUES ('standard', 'fx_jpy', 'paid', 1234, 0, 'jpy'), ('standard', 'fx_kwd', 'partially_refunded', 12345, 5, 'kwd'),
              ('standard', 'fx_brl', 'paid', 65998, 0, 'brl'), ('standard', 'fx_none', 'pending', 700, 0, NULL)`,
    );
    const lines = await collect(paymentsCsv(app.pool, "support", { provider: "standard" }));
    const cells = Object.fromEntries(lines.slice(1).map((line) => [line.split(",")[1], line.split(",").slice(6, 9).join(",")]));
    expect(cells).toEqual({ fx_jpy: "1234,0,JPY", fx_kwd: "12.345,0.005,KWD", fx_brl: "659.98,0.00,BRL", fx_none: "700,0," });
  });

  it("exports every matching payment, past one batch, masked for a viewer and whole for support", async () => {
    const support = await collect(paymentsCsv(app.pool, "support", { statuses: ["paid"], provider: "stripe" }));
    expect(support).toHaveLength(1 + 1250);
    expect(support[0]).toMatch(
      /^provider,charge_id,account,status,decline_code,decline_message,amount,amount_refunded,currency,customer_email,customer_id,updated_at,created_at,paid_at,refunded_at,disputed_at,/,
    );
    expect(support[1]).toMatch(/^stripe,ch_2500,default,paid,,,35\.00,0\.00,USD,buyer2500@example\.com,cus_2500,/);
    const viewer = await collect(paymentsCsv(app.pool, "viewer", { statuses: ["paid"], provider: "stripe" }));
    expect(viewer).toHaveLength(1 + 1250);
    expect(viewer.join("")).not.toMatch(/buyer\d+@example\.com|cus_\d+/);
  });

  it("exports every matching event, masked for a viewer", async () => {
    const events = await collect(eventsCsv(app.pool, "viewer", {}));
    expect(events).toHaveLength(1 + 1500);
    expect(events.join("")).not.toMatch(/buyer\d+@example\.com/);
    expect(await collect(eventsCsv(app.pool, "support", { search: "buyer7@" }))).toHaveLength(2);
  });

  it("exports the gateway account, and only the account's rows when filtered by it", async () => {
    await app.pool.query("UPDATE payments SET gateway_account = 'acct_csv' WHERE gateway_charge_id IN ('ch_10', 'ch_12')");
    await app.pool.query("UPDATE webhook_inbox SET gateway_account = 'acct_csv' WHERE event_id = 'evt_10'");
    const payments = await collect(paymentsCsv(app.pool, "support", { account: "acct_csv" }));
    const account = payments[0]!.trimEnd().split(",").indexOf("account");
    expect(payments.slice(1).map((line) => [line.split(",")[1], line.trimEnd().split(",")[account]])).toEqual([
      ["ch_12", "acct_csv"],
      ["ch_10", "acct_csv"],
    ]);
    const events = await collect(eventsCsv(app.pool, "support", { account: "acct_csv" }));
    const eventAccount = events[0]!.trimEnd().split(",").indexOf("account");
    expect(events.slice(1).map((line) => line.split(",")[eventAccount])).toEqual(["acct_csv"]);
    expect((await collect(eventsCsv(app.pool, "support", { eventId: "evt_11" })))[1]!.split(",")[eventAccount]).toBe("default");
  });

  it("writes the payments in the list's order: the sort picked, ties by id, a search's exact matches first", async () => {
    // Equal amounts, so the tie-breaker shows; and a row changed while the file is read stays where it was.
    await app.pool.query("UPDATE payments SET amount = 5000 WHERE gateway_charge_id IN ('ch_3', 'ch_5', 'ch_7')");
    const chargeIds = (lines: string[]) => lines.slice(1).map((line) => line.split(",")[1]);
    for (const [filter, sort] of [
      [{ provider: "stripe" }, "amount_asc"],
      [{ provider: "stripe", statuses: ["refunded" as const] }, "amount_desc"],
      [{ search: "ch_25" }, "created_asc"],
    ] satisfies [PaymentFilter, PaymentSort][]) {
      const page = await searchPayments(app.pool, filter, { sort, pageSize: 200 });
      const exported = chargeIds(await collect(paymentsCsv(app.pool, "support", filter, sort)));
      expect(exported.slice(0, page.rows.length)).toEqual(page.rows.map((row) => row.chargeId));
    }
    const ascending = chargeIds(await collect(paymentsCsv(app.pool, "support", { provider: "stripe" }, "amount_asc")));
    expect(ascending.slice(-3)).toEqual(["ch_3", "ch_5", "ch_7"]);
    // The search's exact match leads, whatever the sort says.
    expect(chargeIds(await collect(paymentsCsv(app.pool, "support", { search: "ch_25" }, "created_asc")))[0]).toBe("ch_25");
  });

  it("writes the events in the explorer's order, with its columns in its order", async () => {
    await app.pool.query("UPDATE webhook_inbox SET occurred_at = now() - (id % 7) * interval '1 minute' WHERE event_id LIKE 'evt_1%'");
    const page = await listEvents(app.pool, { filter: {}, sort: "occurred_asc", limit: 200 });
    const lines = await collect(eventsCsv(app.pool, "support", {}, "occurred_asc"));
    const header = lines[0]!.trimEnd().split(",");
    expect(header.slice(0, 10)).toEqual([
      "received_at",
      "occurred_at",
      "provider",
      "event_type",
      "account",
      "status",
      "ignored_reason",
      "charge_id",
      "customer_email",
      "event_id",
    ]);
    const eventIds = lines.slice(1).map((line) => line.split(",")[header.indexOf("event_id")]);
    expect(eventIds.slice(0, page.rows.length)).toEqual(page.rows.map((row) => row.eventId));
  });

  it("refuses a viewer's e-mail search in words instead of exporting nothing", async () => {
    for (const exported of [
      eventsExport(app.pool, "viewer", { search: "buyer7@" }),
      paymentsExport(app.pool, "viewer", { search: "buyer7@" }),
    ]) {
      expect(exported).toEqual({ ok: false, message: expect.stringContaining("Viewers may not search by e-mail") });
    }
    const support = paymentsExport(app.pool, "support", { search: "buyer7@" });
    expect(support.ok && (await collect(support.lines))).toHaveLength(2);
  });
});
