import { parseArgs } from "node:util";
import { createPool, type Pool } from "@/lib/db/pool";
import { backlogSummary, hourlyVolume, providerStats } from "@/lib/inbox/queries/inbox-stats";
import { countEvents } from "@/lib/inbox/queries/count-events";
import { listEvents } from "@/lib/inbox/queries/list-events";
import { previewReplayEffects } from "@/lib/inbox/replay/preview-replay-effects";
import { previewReplay, replayable } from "@/lib/inbox/replay/replay-events";
import { loadConfig } from "@/lib/config/env";
import { customerSummary } from "@/lib/payments/customer-summary";
import { searchPayments } from "@/lib/payments/search-payments";
import { createUser } from "@/lib/auth/users";
import { AppError } from "@/lib/errors/app-error";
import { DEFAULT_WEB_HEAP_LIMIT_MB } from "@/lib/config/env";
import { migrateDatabase } from "@/lib/db/migrate";
import { createPrisma } from "@/lib/db/prisma";
import { installQueues } from "@/lib/jobs/install-queues";
import { startAppServer } from "../harness/app-server";
import { cookieHeader, httpSignIn } from "../harness/http-session";
import { startReplicatedPostgres, type ReplicatedPostgres } from "../harness/replicated-postgres";
import { groupRssMb } from "./group-rss";
import { freshBenchDatabase, keptBenchDatabase, loadWithoutRollupTrigger } from "./bench-database";
import { plural } from "@/lib/text/words";

// `npm run bench:explorer -- [--events 1000000] [--runs 20] [--keep] [--reuse]`: the console's server time at
// scale. Fills a fresh database (on TEST_DATABASE_URL's server) with N events spread over a week in
// SQL (generate_series; secondary indexes built after the load, the rollup counted once the way its
// migration does), then times the explorer's, the overview's and the replay preview's queries and
// prints each one's median and p95. --keep leaves the filled database; --reuse times a kept one again
// after migrating it (an index added since), instead of filling a new one. --replica fills a primary
// of its own instead, copies it to a streaming standby (pg_basebackup), and times the reads there.
// --export then downloads a CSV export of up to 1M payments from the running web (`npm start`'s
// server, signed in over HTTP) and reads the web's memory while it streams.

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    events: { type: "string", default: "1000000" },
    runs: { type: "string", default: "20" },
    keep: { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
    replica: { type: "boolean", default: false },
    export: { type: "boolean", default: false },
  },
});
const total = Number(values.events);
const runs = Number(values.runs);
const BATCH = 1_000_000;

async function fill(pool: Pool) {
  const started = Date.now();
  // Loading into a table with a dozen indexes row by row is far slower than building them once.
  const { rows: indexes } = await pool.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
      WHERE tablename = 'webhook_inbox' AND indexname NOT IN ('webhook_inbox_pkey', 'webhook_inbox_provider_event_id_key')`,
  );
  for (const index of indexes) await pool.query(`DROP INDEX ${index.name}`);
  await loadWithoutRollupTrigger(pool, async () => {
    for (let from = 1; from <= total; from += BATCH) {
      const to = Math.min(total, from + BATCH - 1);
      // Spread over 7 days, newest last; 4 providers; ~5% ignored, 0.1% failed, the last 200 pending;
      // 3 events per charge, 50k customers, an order id in the payload.
      await pool.query(
        `INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, customer_id, customer_email, payload,
                                    raw_body, occurred_at, occurred_at_precision, received_at, status, ignored_reason, attempts, processed_at)
         SELECT (ARRAY['stripe','standard','pagarme','asaas'])[1 + g % 4],
                'evt_' || g,
                (ARRAY['charge.succeeded','charge.refunded','charge.pending','charge.dispute.created'])[1 + (g / 7) % 4],
                'ch_' || (g / 3), 'cus_' || (g % 50000), 'customer' || (g % 50000) || '@example.com',
                jsonb_build_object('id', 'evt_' || g, 'type', 'charge.succeeded', 'data', jsonb_build_object('object',
                  jsonb_build_object('id', 'ch_' || (g / 3), 'amount', g % 10000, 'metadata', jsonb_build_object('order_id', 'ord_' || (g % 200000))))),
                convert_to('{"id":"evt_' || g || '"}', 'UTF8'),
                now() - make_interval(secs => ($3::int - g) * (604800.0 / $3::int)) - interval '2 seconds', 'second',
                now() - make_interval(secs => ($3::int - g) * (604800.0 / $3::int)),
                CASE WHEN g > $3::int - 200 THEN 'pending' WHEN g % 1000 = 0 THEN 'failed' WHEN g % 20 = 0 THEN 'ignored' ELSE 'processed' END,
                CASE WHEN g % 20 = 0 AND g % 1000 <> 0 THEN 'stale' END,
                1, now()
           FROM generate_series($1::int, $2::int) AS g`,
        [from, to, total],
      );
      process.stdout.write(`\rfilled ${to}/${total}`);
    }
    process.stdout.write(`\rbuilding ${plural(indexes.length, "index", "indexes")}…     `);
    await pool.query("SET maintenance_work_mem = '512MB'");
    // A partitioned table's index reads "ON ONLY" in pg_indexes; built that way it would cover no partition.
    for (const index of indexes) await pool.query(index.definition.replace(" ON ONLY ", " ON "));
  });
  await pool.query("VACUUM ANALYZE webhook_inbox");
  console.log(`\rfilled ${plural(total, "event")} in ${((Date.now() - started) / 1000).toFixed(0)}s (insert + index + vacuum analyze)`);
}

/** One payment per charge of the filled events (total / 3), for the customer-centred queries. */
async function fillPayments(pool: Pool) {
  const started = Date.now();
  await loadWithoutRollupTrigger(
    pool,
    async () => {
      await pool.query(
        `INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency, customer_id, customer_email, registered_by, created_at, updated_at)
     SELECT (ARRAY['stripe','standard','pagarme','asaas'])[1 + (c * 3) % 4], 'ch_' || c,
            (ARRAY['paid','refunded','partially_refunded','pending'])[1 + c % 4], 1000 + c % 9000, 0, 'usd',
            'cus_' || ((c * 3) % 50000), 'customer' || ((c * 3) % 50000) || '@example.com', 'gateway',
            now() - make_interval(secs => c % 604800) - interval '1 hour', now() - make_interval(secs => c % 604800)
       FROM generate_series(0, $1::int / 3) AS c`,
        [total],
      );
    },
    "payments",
  );
  await pool.query("VACUUM ANALYZE payments");
  console.log(`filled ${plural(Math.floor(total / 3) + 1, "payment")} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
}

/** The console's customer-centred queries: search, customer page, pager totals, replay dry run. */
async function timeCustomerQueries(pool: Pool) {
  const config = loadConfig({ DATABASE_URL: url });
  await time("customer search: e-mail prefix (customer4242@ex)", () => searchPayments(pool, { search: "customer4242@ex" }));
  await time("customer search: part of an e-mail (omer4242@)", () => searchPayments(pool, { search: "omer4242@" }));
  await time("customer search: customer id", () => searchPayments(pool, { search: "cus_4242" }));
  await time("customer search: charge id", () => searchPayments(pool, { search: `ch_${Math.floor(total / 6)}` }));
  await time("payments search: end of a charge id", () => searchPayments(pool, { search: String(Math.floor(total / 6)).slice(1) }));
  await time("payments search: middle of a customer id (s_424)", () => searchPayments(pool, { search: "s_424" }));
  await time("payments search: a part in no id (zq9xk)", () => searchPayments(pool, { search: "zq9xk" }));
  await time("payments search: an amount (12.34)", () => searchPayments(pool, { search: "12.34" }));
  await time("payments list: newest page with total", () => searchPayments(pool, {}));
  const lastDay = { createdFrom: new Date(Date.now() - 86_400_000) };
  await time("payments: status=refunded, stripe, last day, with totals", () =>
    searchPayments(pool, { statuses: ["refunded"], provider: "stripe", ...lastDay }),
  );
  await time("payments: status=paid sorted by amount, with totals", () =>
    searchPayments(pool, { statuses: ["paid"] }, { sort: "amount_desc" }),
  );
  await time("payments: search customer42, with totals", () => searchPayments(pool, { search: "customer42" }));
  await time("customer page: payments and totals", () => customerSummary(pool, "customer4242@example.com"));
  await time("customer page: events", () => listEvents(pool, { filter: { customer: "customer4242@example.com" }, limit: 50 }));
  await time(
    "bulk replay dry run: provider=stripe ignored+failed",
    () => previewReplayEffects(pool, config, replayable({ provider: "stripe" })),
    3,
  );
}

/** Streams the payments export of the newest ~1M payments through the real web, watching its memory. */
async function measureExport(pool: Pool, databaseUrl: string) {
  const email = "bench-export@example.com";
  const password = "bench export password 0123";
  // A kept database (--reuse) has the user from the run before.
  await createUser(createPrisma(pool), { email, role: "admin", password }, "bench").catch((error: unknown) => {
    if (!(error instanceof AppError && error.code === "CONFLICT")) throw error;
  });
  const app = await startAppServer({ DATABASE_URL: databaseUrl, AUTH_SECRET: "bench-auth-secret-0123456789abcdef0123456789" });
  let sampler: NodeJS.Timeout | undefined;
  try {
    const session = await httpSignIn(app.url, email, password);
    const payments = Math.floor(total / 3) + 1;
    const wanted = Math.min(1_000_000, payments);
    // Payments are spread evenly over the filled week: the newest `wanted` of them began this long ago.
    const from = new Date(Date.now() - 3_600_000 - (wanted / payments) * 604_800_000).toISOString();
    const before = groupRssMb(app.pids.web);
    let peak = before;
    sampler = setInterval(() => (peak = Math.max(peak, groupRssMb(app.pids.web))), 100);
    const started = performance.now();
    const response = await fetch(`${app.url}/api/exports/payments?from=${from}`, { headers: { cookie: cookieHeader(session.cookies) } });
    if (!response.ok || !response.body) throw new Error(`export answered ${response.status}`);
    let lines = 0;
    let bytes = 0;
    const reader = response.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.length;
      for (const byte of chunk.value) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `\nexport: ${plural(lines - 1, "payment")} (${(bytes / 1e6).toFixed(0)} MB of CSV) in ${seconds.toFixed(1)}s = ${((lines - 1) / seconds).toFixed(0)} rows/s; ` +
        `web resident memory ${before} MB before, ${peak} MB at most while streaming (heap limit ${DEFAULT_WEB_HEAP_LIMIT_MB} MB)`,
    );
  } finally {
    clearInterval(sampler);
    await app.stop();
  }
}

async function time(label: string, run: () => Promise<unknown>, repeat = runs) {
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!;
  const p95 = at(0.95);
  console.log(`| ${label} | ${at(0.5).toFixed(1)} | ${p95.toFixed(1)} | ${samples.at(-1)!.toFixed(1)} | ${p95 < 100 ? "yes" : "NO"} |`);
}

const name = `webhook_inbox_bench_explorer_${total}`;
// Building the payload GIN index over 10M rows takes many minutes: no statement timeout here.
const openPool = (url: string) => createPool(url, 4, "bench-explorer", { connectMs: 5_000, statementMs: 6 * 3600_000 });
let replica: ReplicatedPostgres | null = null;
let url: string;
let drop = async () => {};
if (values.replica) {
  // A primary and a standby this run owns: the primary is filled, then copied with pg_basebackup.
  replica = await startReplicatedPostgres(name, async (primaryUrl) => {
    await migrateDatabase(primaryUrl, installQueues);
    const loading = openPool(primaryUrl);
    try {
      await fill(loading);
      await fillPayments(loading);
    } finally {
      await loading.end();
    }
  });
  url = replica.primary.url(name);
} else {
  ({ url, drop } = values.reuse ? await keptBenchDatabase(name) : await freshBenchDatabase(name));
}
const pool = openPool(url);
const reads = replica ? openPool(replica.standby.url(name)) : pool;
try {
  const { rows: recovery } = await reads.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby");
  if (recovery[0]!.standby !== Boolean(replica)) throw new Error("the timed reads are not on the server they should be");
  // The payments first: an events search also looks up the customers and charges they name.
  if (!values.reuse && !replica) {
    await fill(pool);
    await fillPayments(pool);
  }
  const deep = await (async () => {
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) cursor = (await listEvents(reads, { filter: {}, cursor, limit: 50 })).nextCursor ?? undefined;
    return cursor;
  })();
  console.log(
    `\nexplorer and overview at ${plural(total, "event")} (page size 50), ${plural(runs, "run")} each, read from ${replica ? "the standby" : "the primary"}\n`,
  );
  console.log("| query | median ms | p95 ms | max ms | p95 < 100 ms |\n|---|---|---|---|---|");
  await time("explorer: newest events", () => listEvents(reads, { filter: {}, limit: 50 }));
  await time("explorer: page 21 (keyset cursor)", () => listEvents(reads, { filter: {}, cursor: deep, limit: 50 }));
  await time("explorer: provider=stripe, status=failed", () =>
    listEvents(reads, { filter: { provider: "stripe", statuses: ["failed"] }, limit: 50 }),
  );
  await time("explorer: status=ignored, sorted by occurred", () =>
    listEvents(reads, { filter: { statuses: ["ignored"] }, sort: "occurred_desc", limit: 50 }),
  );
  await time("explorer: search customer e-mail", () => listEvents(reads, { filter: { search: "customer4242@example.com" }, limit: 50 }));
  await time("explorer: search charge id", () => listEvents(reads, { filter: { search: `ch_${Math.floor(total / 6)}` }, limit: 50 }));
  await time("explorer: search event id", () => listEvents(reads, { filter: { search: `evt_${Math.floor(total / 2)}` }, limit: 50 }));
  // Fragments: each resolves to at most a few dozen values, exact first, then their events.
  for (const fragment of [
    "customer7@",
    "customer7",
    "customer7@example",
    `evt_${Math.floor(total / 2)}`.slice(0, -2),
    `ch_${Math.floor(total / 6)}`.slice(0, -1),
    "cus_424",
  ]) {
    await time(`explorer: search fragment ${fragment} with count`, () =>
      Promise.all([listEvents(reads, { filter: { search: fragment }, limit: 50 }), countEvents(reads, { search: fragment }, 10_000)]),
    );
  }
  // Any part of an id (trigram indexes, a bounded number of rows read): a suffix, a middle, a part
  // in millions of ids ("104"), and one in none.
  const middle = String(Math.floor(total / 2));
  for (const part of [middle, `t_${middle.slice(0, -1)}`, "_4242", "104", "zq9xk"]) {
    await time(`explorer: search infix ${part} with count`, () =>
      Promise.all([listEvents(reads, { filter: { search: part }, limit: 50 }), countEvents(reads, { search: part }, 10_000)]),
    );
  }
  await time("explorer: JSON path data.object.metadata.order_id", () =>
    listEvents(reads, { filter: { jsonPath: "data.object.metadata.order_id", jsonValue: "ord_777" }, limit: 50 }),
  );
  await time("explorer: type + received in the last day", () =>
    listEvents(reads, { filter: { type: "charge.refunded", receivedFrom: new Date(Date.now() - 86_400_000) }, limit: 50 }),
  );
  await time("explorer: count, no filter (rollup)", () => countEvents(reads, {}, 10_000));
  await time("explorer: count, type filter (capped at 10,000)", () => countEvents(reads, { type: "charge.refunded" }, 10_000));
  await time("bulk replay preview: all ignored + failed (rollup)", () => previewReplay(reads, {}));
  await time("bulk replay preview: type + last day (capped at 100,000)", () =>
    previewReplay(reads, { type: "charge.refunded", receivedFrom: new Date(Date.now() - 86_400_000) }),
  );
  await time("overview: per-provider stats (hour/day/week)", () => providerStats(reads));
  await time("overview: hourly volume, 24h", () => hourlyVolume(reads, 24));
  await time("overview: backlog summary", () => backlogSummary(reads));
  await timeCustomerQueries(reads);
  if (values.export) await measureExport(pool, url);
} finally {
  await pool.end();
  if (replica) {
    await reads.end();
    await replica.stop();
  } else if (!values.keep) await drop();
}
