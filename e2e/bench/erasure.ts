import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { executeErasure, startErasure } from "@/lib/erasure/erasures";
import { createPool } from "@/lib/db/pool";
import { freshBenchDatabase, loadWithoutRollupTrigger } from "./bench-database";
import { plural } from "@/lib/text/words";

// `npm run bench:erasure -- [--rows N]`: erasing one data subject among N stored events (default
// 1M events of 100k customers, each with a payment and ten events), by e-mail (found through the
// indexes), then another by document (a CPF is only in bodies: every stored payload is read). The
// baseline is the same erasures on a database of N/100 events, measured in the same run; prints
// both and the ratios.

const { values } = parseArgs({ args: process.argv.slice(2), options: { rows: { type: "string", default: "1000000" } } });
const rows = Number(values.rows);
const HASH_KEY = "bench-erasure-hash-key-0123456789abcdef";

// Stripe-shaped bodies (~600 B) with a customer each: customer n owns events g with g % customers = n.
const SEED = `
  INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, customer_id, customer_email, payload, raw_body, headers,
                             status, attempts, received_at, processed_at)
  SELECT 'stripe', 'evt_seed_' || g, 'charge.succeeded', 'ch_seed_' || (g % $3), 'cus_' || (g % $3), 'c' || (g % $3) || '@example.com',
         body::jsonb, convert_to(body, 'UTF8'), '{}', 'processed', 1, now() - g * interval '10 milliseconds', now()
    FROM generate_series($1::int, $2::int) AS g,
         LATERAL (SELECT json_build_object('id', 'evt_seed_' || g, 'type', 'charge.succeeded',
                    'data', json_build_object('object', json_build_object('id', 'ch_seed_' || (g % $3), 'amount', 1000,
                    'customer', 'cus_' || (g % $3), 'billing_details', json_build_object('email', 'c' || (g % $3) || '@example.com',
                    'name', 'Customer ' || (g % $3), 'phone', '+55119' || lpad((g % $3)::text, 8, '0'),
                    'tax_id', lpad((g % $3)::text, 11, '0')),
                    'description', repeat('x', 300))))::text AS body) AS b`;
const PAYMENTS = `
  INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, customer_id, customer_email)
  SELECT 'stripe', 'ch_seed_' || n, 'paid', 1000, 'brl', 'cus_' || n, 'c' || n || '@example.com' FROM generate_series($1::int, $2::int) AS n`;

type Measured = { email: number; document: number };

async function measure(events: number): Promise<Measured> {
  const { url, drop } = await freshBenchDatabase(`webhook_inbox_bench_erasure_${process.pid}_${events}`);
  const pool = createPool(url, 4, "bench");
  const customers = Math.max(10, Math.floor(events / 10));
  try {
    const seeded = Date.now();
    await loadWithoutRollupTrigger(pool, async () => {
      for (let from = 1; from <= events; from += 50_000) await pool.query(SEED, [from, Math.min(events, from + 49_999), customers]);
      for (let from = 0; from < customers; from += 10_000) await pool.query(PAYMENTS, [from, Math.min(customers, from + 10_000) - 1]);
    });
    await pool.query("VACUUM ANALYZE");
    console.log(`seeded ${plural(events, "event")} of ${plural(customers, "customer")} in ${((Date.now() - seeded) / 1000).toFixed(1)}s`);
    const deps = { pool, archiveDir: await mkdtemp(join(tmpdir(), "bench-erasure-")), hashKey: HASH_KEY };
    const erase = async (subject: { email: string } | { document: string }, by: string) => {
      const started = performance.now();
      const erasure = await executeErasure(deps, await startErasure(deps, subject, { name: "bench" }));
      const ms = performance.now() - started;
      console.log(
        `erased one subject by ${by} among ${plural(events, "event")} in ${(ms / 1000).toFixed(2)}s: ${JSON.stringify(erasure?.counts)}`,
      );
      return ms;
    };
    return { email: await erase({ email: "c7@example.com" }, "e-mail"), document: await erase({ document: "00000000008" }, "document") };
  } finally {
    await pool.end();
    await drop();
  }
}

const baselineRows = Math.max(1000, Math.floor(rows / 100));
const baseline = await measure(baselineRows);
const full = await measure(rows);
for (const by of ["email", "document"] as const) {
  console.log(
    `erasure by ${by}: ${(full[by] / 1000).toFixed(2)}s among ${plural(rows, "event")}, ${(baseline[by] / 1000).toFixed(2)}s among ${plural(baselineRows, "event")}: ratio ${(full[by] / baseline[by]).toFixed(2)}`,
  );
}
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(", ")}`,
);
