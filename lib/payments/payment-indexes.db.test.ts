import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../db/pool";
import { paymentOrderSql } from "./search-payments";
import { createTestApp, type TestApp } from "../testing/test-app";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("payment_indexes");
});
afterAll(async () => app.close());

describe("payments' indexes", () => {
  it("has no two b-trees over the same columns, every payment write paying for both", async () => {
    const { rows } = await app.pool.query<{ columns: string; name: string }>(
      `SELECT array_to_string(array_agg(a.attname ORDER BY k.ord), ',') || coalesce(' WHERE ' || pg_get_expr(i.indpred, i.indrelid), '') AS columns,
              c.relname::text AS name
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_am am ON am.oid = c.relam AND am.amname = 'btree'
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = 'payments'::regclass
        GROUP BY i.indexrelid, i.indpred, i.indrelid, c.relname`,
    );
    const byColumns = new Map<string, string[]>();
    for (const { columns, name } of rows) byColumns.set(columns, [...(byColumns.get(columns) ?? []), name]);
    expect([...byColumns.values()].filter((indexes) => indexes.length > 1)).toEqual([]);
  });

  it("finds a payment by e-mail, customer id or charge id alone through the prefix b-trees", async () => {
    for (const column of ["customer_email", "customer_id", "gateway_charge_id"]) {
      const plan = await withTransaction(app.pool, async (client) => {
        await client.query("SET LOCAL enable_seqscan = off");
        const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN SELECT id FROM payments WHERE ${column} = $1`, ["x"]);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan).toContain(`payments_${column}_prefix_idx`);
    }
  });

  it("reads the payments sorted by amount within their currency from one index, backwards for the smallest first", async () => {
    for (const [sort, scan] of [
      ["amount_desc", "Index Scan using"],
      ["amount_asc", "Index Scan Backward using"],
    ] as const) {
      const plan = await withTransaction(app.pool, async (client) => {
        await client.query("SET LOCAL enable_seqscan = off");
        const order = paymentOrderSql({}, sort, () => "");
        const { rows } = await client.query<{ "QUERY PLAN": string }>(
          `EXPLAIN SELECT p.gateway_charge_id FROM payments p ORDER BY ${order} LIMIT 50`,
        );
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan, sort).toContain(`${scan} payments_currency_amount_idx`);
      expect(plan, sort).not.toContain("Sort");
    }
  });
});
