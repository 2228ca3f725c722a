import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
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
    const cells = Object.fromEntries(lines.slice(1).map((line) => [line.split(",")[1], line.split(",").slice(3, 6).join(",")]));
    expect(cells).toEqual({ fx_jpy: "1234,0,JPY", fx_kwd: "12.345,0.005,KWD", fx_brl: "659.98,0.00,BRL", fx_none: "700,0," });
  });

  it("exports every matching payment, past one batch, masked for a viewer and whole for support", async () => {
    const support = await collect(paymentsCsv(app.pool, "support", { statuses: ["paid"], provider: "stripe" }));
    expect(support).toHaveLength(1 + 1250);
    expect(support[0]).toMatch(
      /^provider,charge_id,status,amount,amount_refunded,currency,customer_email,customer_id,updated_at,created_at,paid_at,refunded_at,disputed_at,/,
    );
    expect(support[1]).toMatch(/^stripe,ch_2500,paid,35\.00,0\.00,USD,buyer2500@example\.com,cus_2500,/);
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
    expect(events.map((line) => line.trimEnd().split(",").at(-1))).toEqual(["account", "acct_csv"]);
    expect((await collect(eventsCsv(app.pool, "support", { eventId: "evt_11" })))[1]!.trimEnd().split(",").at(-1)).toBe("default");
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
