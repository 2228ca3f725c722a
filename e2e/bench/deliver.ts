import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/config/env";
import { createPool, type Pool } from "@/lib/db/pool";
import { changeFeedQuerySchema, createChangeFeed, readChangeFeed } from "@/lib/outbox/read-change-feed";
import { createProducer } from "@/lib/queue/boss";
import { sendAll, planWebhooks } from "../simulator/send-webhooks";
import { generateHistories } from "../simulator/history";
import { inProcessSender } from "./ingest-sender";
import { freshBenchDatabase } from "./bench-database";
import { countRows as count, describeDelivered, startDestinationHost, waitAllDelivered, type DestinationHost } from "./destination-host";
import { startWorkers, stopWorkers } from "./run-workers";
import { processRssMb } from "./group-rss";
import { plural } from "@/lib/text/words";

// `npm run bench:deliver -- [--events N]`: telling the host, as ratios measured in one run on
// TEST_DATABASE_URL's server.
//   1. drain: one worker drains a backlog of N events with no destination (the baseline);
//   2. deliver: a destination added at the start of the feed (every change of step 1 to push), one
//      worker pushes them to a local receiver that verifies each with standardwebhooks;
//   3. feed: one reader follows the feed from the start, 1,000 changes a page (in-process, no HTTP);
//   4. drain with a destination: the same backlog on another database with DESTINATION_URL set.
// The drains without and with a destination run in the order A B B A on four copies of the backlog;
// prints each rate, the ratios, and the worker's resident memory.

const { values } = parseArgs({ args: process.argv.slice(2), options: { events: { type: "string", default: "10000" } } });
const targetEvents = Number(values.events);
const secrets = { stripe: "whsec_bench_stripe" };

// One worker, quiet but for warnings (its log would interleave with the bench's table).
const startWorker = (env: Record<string, string>): ChildProcess => startWorkers(1, { ...env, LOG_LEVEL: "warn" })[0]!;

/** Seconds until `sql` counts zero, polled. */
async function until(pool: Pool, sql: string, check: (n: number) => boolean): Promise<number> {
  const started = Date.now();
  while (!check(await count(pool, sql))) await new Promise((done) => setTimeout(done, 200));
  return (Date.now() - started) / 1000;
}

/** A fresh database holding a backlog of N pending events (ingested in-process, no worker running). */
async function backlog(name: string, env: Record<string, string>) {
  const database = await freshBenchDatabase(name);
  const config = loadConfig({ ...env, DATABASE_URL: database.url });
  const pool = createPool(database.url, 20, "bench:deliver");
  const boss = createProducer(database.url);
  await boss.start();
  const histories = generateHistories(7, Math.ceil(targetEvents / 2), ["stripe"], { sameSecondRate: 0 });
  const plan = planWebhooks(histories, { secrets, duplicateRate: 0, shuffle: "payment", seed: 7 }).slice(0, targetEvents);
  await sendAll(plan, inProcessSender({ pool, boss, config }), { concurrency: 16, secrets });
  await boss.stop({ graceful: false });
  await pool.query("ANALYZE");
  const events = await count(pool, "SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'");
  return { ...database, pool, events };
}

const PENDING = "SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'";
// A host per pushing phase: the copies of the backlog number their changes alike, and a host dedupes
// on the change id and checks each payment's versions.
const hosts: DestinationHost[] = [];
async function newHost() {
  const host = await startDestinationHost();
  hosts.push(host);
  return host;
}
const baseEnv = { WEBHOOK_SECRET_STRIPE: secrets.stripe, REFETCH_STRIPE: "none", SWEEPER_STALE_MINUTES: "60" };
// Four copies of the backlog: the drains without and with a destination run in the order A B B A,
// so both see the same share of whatever else the machine does during the run.
type Backlog = Awaited<ReturnType<typeof backlog>>;
const databases: Backlog[] = [];
for (const name of ["a", "b", "c", "d"]) databases.push(await backlog(`webhook_inbox_bench_deliver_${process.pid}_${name}`, baseEnv));
const [first, second, third, fourth] = databases as [Backlog, Backlog, Backlog, Backlog];
const workers: ChildProcess[] = [];

/** One worker drains a backlog (pushing to a new host receiver when `destination`); its events/s and changes. */
async function drain(database: Backlog, destination: boolean) {
  const receiver = await newHost();
  const worker = startWorker({ ...baseEnv, DATABASE_URL: database.url, ...(destination ? receiver.env : {}) });
  workers.push(worker);
  const seconds = await until(database.pool, PENDING, (n) => n === 0);
  const changes = await count(database.pool, "SELECT count(*)::int AS n FROM payment_changes");
  const delivered = destination ? await waitAllDelivered(database.pool, receiver.host) : null;
  const rss = processRssMb(worker.pid!);
  await stopWorkers([worker]);
  const rate = database.events / seconds;
  console.log(
    `drain, ${destination ? "one destination" : "no destination"}: ${plural(database.events, "event")} in ${seconds.toFixed(1)}s = ${rate.toFixed(0)} events/s ` +
      `(${plural(changes, "change")})` +
      (delivered ? ` · last change delivered ${delivered.seconds.toFixed(1)}s after the drain, ${describeDelivered(delivered)}` : "") +
      ` · worker RSS ${rss} MB`,
  );
  return { rate, changes };
}

try {
  // 1. The baseline, and the same backlog drained with a destination configured (A B).
  const base1 = await drain(first, false);
  const with1 = await drain(second, true);
  const drainRate = base1.rate;
  const changes = base1.changes;

  // 2. Push every change of the first drain to one destination, one worker.
  const receiver = await newHost();
  await first.pool.query("INSERT INTO destinations (name, url, secret) VALUES ('bench', $1, $2)", [receiver.host.url, receiver.secret]);
  const pusher = startWorker({ ...baseEnv, DATABASE_URL: first.url });
  workers.push(pusher);
  const delivered = await waitAllDelivered(first.pool, receiver.host);
  const rss = processRssMb(pusher.pid!);
  await stopWorkers([pusher]);
  const deliverRate = changes / delivered.seconds;
  console.log(
    `deliver: ${plural(changes, "change")} to one destination in ${delivered.seconds.toFixed(1)}s = ${deliverRate.toFixed(0)} changes/s ` +
      `(${(deliverRate / drainRate).toFixed(2)}x the drain) · ${describeDelivered(delivered)} · worker RSS ${rss} MB`,
  );

  // 3. One reader follows the feed from the start.
  const feedStarted = Date.now();
  let read = 0;
  let cursor: string | undefined;
  const feed = createChangeFeed(first.pool);
  for (;;) {
    const page = await readChangeFeed(feed, changeFeedQuerySchema.parse({ limit: "1000", ...(cursor ? { after: cursor } : {}) }));
    if (page.data.length === 0) break;
    read += page.data.length;
    cursor = page.cursor;
  }
  const feedRate = read / ((Date.now() - feedStarted) / 1000);
  console.log(
    `feed: ${plural(read, "change")} to one reader at ${feedRate.toFixed(0)} changes/s (${(feedRate / drainRate).toFixed(1)}x the drain)`,
  );

  // 4. The other half (B A), and the ratio over both halves.
  const with2 = await drain(third, true);
  const base2 = await drain(fourth, false);
  const ratio = (with1.rate + with2.rate) / (base1.rate + base2.rate);
  console.log(
    `drain with a destination / without, A B B A: ${((with1.rate + with2.rate) / 2).toFixed(0)} / ${((base1.rate + base2.rate) / 2).toFixed(0)} events/s = ${ratio.toFixed(2)}x`,
  );
} finally {
  await stopWorkers(workers);
  for (const { host } of hosts) await host.close();
  for (const database of databases) {
    await database.pool.end();
    await database.drop();
  }
}
