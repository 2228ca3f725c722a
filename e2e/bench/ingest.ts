import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort } from "@/lib/db/embedded";
import { createPool, type Pool } from "@/lib/db/pool";
import { loadConfig } from "@/lib/config/env";
import { startAccountDirectory } from "@/lib/gateway-accounts/account-directory";
import { startAppServer, startWebServer, stopChild } from "../harness/app-server";
import { startOwnPostgres } from "../harness/own-postgres";
import { webhookFor, randomId, type PaymentFacts, type SignedWebhook } from "@/lib/testing/gateway-events";
import { seedStripeAccounts } from "./seed-accounts";
import { seedInbox } from "./seed-inbox";
import { plural } from "@/lib/text/words";
import { flattenInbox, freshBenchDatabase } from "./bench-database";
import { countCpu } from "./cpu-time";
import { findPgbench } from "./drain-ceiling";
import { groupPids, groupRssMb } from "./group-rss";

// `npm run bench:ingest -- [--connections 32] [--seconds 15] [--rate 500] [--soak-seconds 0]`
// Ingest throughput side by side, in ONE run, same generator (autocannon, in this process), same
// concurrency, same database server (a cluster of the bench's own), a fresh database, the app's worker
// draining throughout; each target is measured twice, in the order A B C ... C B A:
//   bare     e2e/bench/bare-ingest-server.ts: node:http + pg, the same signed insert, nothing else
//   seed     the same file as a seed-style server: one INSERT ... ON CONFLICT DO NOTHING of one row
//            (two indexes) per request, no ledger, no job
//   trivial  the app's Next.js server answering POST /api/webhooks/unknown (404 at once): its ceiling
//   route    the app's POST /api/webhooks/stripe (`npm start`'s web server)
//   ingest   `npm run ingest` (lean node:http, same lib/inbox/ingest/ingest-event.ts), group commit on
//   off      the same with INGEST_GROUP_COMMIT=off (each delivery its own statement and commit)
//   part     the same `npm run ingest` on a second, partitioned database no worker drains
//   web part the app's Next.js server alone (no worker) on that database: its trivial route and its
//            POST /api/webhooks/stripe, what taking webhooks costs with nothing processing them
//   flat     the same on a third database whose inbox is one plain table (the baseline for monthly
//            partitions: same code, same ledger, no partitions, no worker)
// then a lone request's latency (one connection) on `npm run ingest` with and without group commit,
//   accounts 1      the same `npm run ingest` on a database holding one gateway account, every
//                  request to its URL (/api/webhooks/stripe/<account>), signed with its secret
//   accounts N      the same on a database holding --accounts (10,000) accounts: every request to
//                  one of them (what holding them costs: the per-process cache), then each to a
//                  random one's URL with its own secret (the traffic spread over every account)
// the route at a fixed --rate for its latency, an optional soak at that rate, the database's own
// ceiling for the insert (pgbench, worker paused), where each request's CPU went, and each
// process's resident memory. Builds the app first when there is no .next build.
// `--accounts-only` measures the account targets alone (A B C C B A), with the time a process's
// cache takes to read and open the N accounts.
// `--seed-events N` adds two targets: `npm run ingest` on a database whose inbox already holds N
// settled events (e2e/bench/seed-inbox.ts) and on one with an empty inbox, no worker on either, and
// prints their ratio; `--seed-only` measures those two alone (A B B A).

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    connections: { type: "string", default: "32" },
    seconds: { type: "string", default: "15" },
    rate: { type: "string", default: "500" },
    "soak-seconds": { type: "string", default: "0" },
    accounts: { type: "string", default: "10000" },
    "accounts-only": { type: "boolean", default: false },
    "seed-events": { type: "string", default: "0" },
    "seed-only": { type: "boolean", default: false },
  },
});
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const accountCount = Number(values.accounts);
const seedEvents = Number(values["seed-events"]);
const secret = "whsec_bench_ingest";
const ACCOUNT_SECRETS_KEY = "bench-account-secrets-key-0123456789abcdef";

function signedEvent(signingSecret = secret) {
  const payment: PaymentFacts = {
    chargeId: randomId("ch"),
    amount: 1999,
    currency: "usd",
    customerId: "cus_bench",
    customerEmail: "bench@example.com",
  };
  return webhookFor("stripe", payment, { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() }, signingSecret);
}

/** What one request sends: its path and a freshly signed event. */
type Delivery = { path: string; webhook: SignedWebhook };

/** Deliveries to one of `accounts` accounts' URLs, picked at random, each signed with that account's secret. */
const toAccounts = (accounts: { name: string; secret: string }[]) => (): Delivery => {
  const account = accounts[Math.floor(Math.random() * accounts.length)]!;
  return { path: `/api/webhooks/stripe/${account.name}`, webhook: signedEvent(account.secret) };
};

type Result = { name: string; rps: number; p50: number; p99: number; mean: number; bad: number; total: number };
/** CPU ms per request, by who spent it, over one measured load. */
type CpuPerRequest = { server: number; database: number; worker: number; generator: number };
type CountedResult = Result & { cpu: CpuPerRequest };
/** The first thirteen measured targets, destructured by position in run(). */
type Thirteen<T> = [T, T, T, T, T, T, T, T, T, T, T, T, T];

/** `load`, with the CPU the server's process group, the database, the worker and this process spent. */
async function loadCounted(
  name: string,
  base: string,
  path: string,
  groups: { server: number; worker: number },
  deliver?: () => Delivery,
): Promise<CountedResult> {
  const server = countCpu(() => groupPids(groups.server));
  const worker = countCpu(() => groupPids(groups.worker));
  const generatorBefore = process.cpuUsage();
  const result = await load(name, base, path, { seconds, deliver });
  const generator = process.cpuUsage(generatorBefore);
  const { databaseMs, processesMs: serverMs } = server();
  const { processesMs: workerMs } = worker();
  const per = (ms: number) => ms / result.total;
  return {
    ...result,
    cpu: {
      server: per(serverMs),
      database: per(databaseMs),
      worker: per(workerMs),
      generator: per((generator.user + generator.system) / 1000),
    },
  };
}

async function load(
  name: string,
  base: string,
  path: string,
  options: { seconds: number; rate?: number; connections?: number; deliver?: () => Delivery },
): Promise<Result> {
  const deliver = options.deliver ?? (() => ({ path, webhook: signedEvent() }));
  const result = await autocannon({
    url: base,
    connections: options.connections ?? connections,
    duration: options.seconds,
    ...(options.rate ? { overallRate: options.rate } : {}),
    requests: [
      {
        method: "POST",
        path,
        setupRequest: (request) => {
          const { path: to, webhook } = deliver();
          return { ...request, path: to, body: webhook.body, headers: webhook.headers };
        },
      },
    ],
  });
  const expected404 = path.endsWith("/unknown");
  const bad = result.errors + result.timeouts + (expected404 ? result["2xx"] : result.non2xx);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    bad,
    total: result.requests.total,
  };
}

async function waitListening(base: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${base}/api/webhooks/unknown`, { method: "POST", body: "{}" }).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${base} did not start`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

function startScript(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/**
 * PostgreSQL's own rate for the insert every target does (an inbox row and its job in one
 * statement, synchronous commit), and its CPU per insert, measured by pgbench on the same database.
 */
async function databaseCeiling(
  db: Pool,
  databaseUrl: string,
  clients: number,
  duration: number,
): Promise<{ tps: string; databaseMsPerInsert: number | null }> {
  const { rows } = await db.query<{ table_name: string }>("SELECT table_name FROM pgboss.queue WHERE name = 'webhooks'");
  // Base64, so no ":name" in the JSON reads as a pgbench variable.
  const body = Buffer.from(signedEvent().body).toString("base64");
  const script = join(mkdtempSync(join(tmpdir(), "bench-ingest-")), "insert.sql");
  writeFileSync(
    script,
    `\\set n random(1, 2000000000)
WITH key AS (
  INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at)
  VALUES ('stripe', 'evt_pgbench_' || :n::text || '_' || :client_id::text, nextval('webhook_inbox_id_seq'), now())
  ON CONFLICT (provider, event_id) DO NOTHING RETURNING inbox_id, received_at
), ins AS (
  INSERT INTO webhook_inbox (id, received_at, provider, event_id, event_type, resource_id, customer_email, payload, raw_body, headers, occurred_at, occurred_at_precision)
  SELECT key.inbox_id, key.received_at, 'stripe', 'evt_pgbench_' || :n::text || '_' || :client_id::text, 'charge.succeeded', 'ch_pgbench_' || :n::text,
         'bench@example.com', convert_from(decode('${body}', 'base64'), 'UTF8')::jsonb, decode('${body}', 'base64'), '{}', now(), 'second'
    FROM key RETURNING id
)
INSERT INTO pgboss.${rows[0]!.table_name} (name, data, singleton_key, policy, retry_limit, expire_seconds)
SELECT 'webhooks', jsonb_build_object('inboxId', id), 'stripe:' || 'ch_pgbench_' || :n::text, 'singleton', 5, 120 FROM ins;
`,
  );
  const pgbench = findPgbench();
  if (!pgbench) return { tps: "skipped, pgbench not found (set PGBENCH to its path)", databaseMsPerInsert: null };
  const cpu = countCpu(() => []);
  const result = spawnSync(
    pgbench,
    ["-n", "-M", "prepared", "-c", String(clients), "-j", "2", "-T", String(duration), "-f", script, databaseUrl],
    {
      encoding: "utf8",
      // Well past its own -T: a pgbench that hangs (a lock, a server gone) must not hold the benchmark.
      timeout: (duration + 60) * 1000,
    },
  );
  const tps = /tps = ([\d.]+)/.exec(result.stdout ?? "")?.[1]?.replace(/\..*/, "");
  const inserts = Number(/number of transactions actually processed: (\d+)/.exec(result.stdout ?? "")?.[1]);
  if (!tps || !(inserts > 0)) return { tps: `pgbench failed: ${whyFailed(result)}`, databaseMsPerInsert: null };
  return { tps, databaseMsPerInsert: cpu().databaseMs / inserts };
}

/** Why a child run failed, in one line: its spawn error, its exit, and the last of what it printed. */
function whyFailed(result: ReturnType<typeof spawnSync>): string {
  const output = `${String(result.stderr ?? "")}\n${String(result.stdout ?? "")}`
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-3)
    .join(" / ");
  const exit = result.error ? result.error.message : result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`;
  // The database URL carries a password: never in the message.
  return `${exit}${output ? `: ${output.replace(/postgres(ql)?:\/\/\S+/g, "<database url>").slice(0, 400)}` : " (no output)"}`;
}

/** Two measured runs of one target as one: requests summed, the mean weighted by requests, the worse percentiles. */
function combineResults(runs: Result[]): Result {
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  return {
    name: runs[0]!.name,
    rps: runs.reduce((sum, run) => sum + run.rps, 0) / runs.length,
    p50: Math.max(...runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    mean: runs.reduce((sum, run) => sum + run.mean * run.total, 0) / total,
    bad: runs.reduce((sum, run) => sum + run.bad, 0),
    total,
  };
}

/** combineResults, with the CPU per request averaged over both runs' requests. */
function combineRuns(runs: CountedResult[]): CountedResult {
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  const cpuOf = (key: keyof CpuPerRequest) => runs.reduce((sum, run) => sum + run.cpu[key] * run.total, 0) / total;
  return {
    ...combineResults(runs),
    cpu: { server: cpuOf("server"), database: cpuOf("database"), worker: cpuOf("worker"), generator: cpuOf("generator") },
  };
}

/**
 * Where each request's CPU went (the database and worker columns include the worker draining the
 * backlog earlier targets left), and what that means for the route's ratio. With both cores busy,
 * req/s is the cores' time over the CPU each request costs; a route whose own code cost nothing
 * would still cost the trivial route's server and load-generator CPU plus the database's CPU to
 * store the event, so the ratio can't pass their quotient here. Two such bounds: an event stored in
 * its own transaction (pgbench's, with no Node at all), and one stored by group commit (the
 * database CPU per request of `npm run ingest` with no worker), beside the trivial route of the web
 * server that has no worker.
 */
function printCpuPerRequest(
  counted: CountedResult[],
  pairs: { trivial: CountedResult; trivialAlone: CountedResult; groupCommitted: CountedResult },
  databaseMsPerInsert: number | null,
): void {
  const ms = (value: number) => value.toFixed(2);
  console.log("\n| target | server ms/req | database ms/req | worker ms/req | load generator ms/req |\n|---|---|---|---|---|");
  for (const r of counted)
    console.log(`| ${r.name} | ${ms(r.cpu.server)} | ${ms(r.cpu.database)} | ${ms(r.cpu.worker)} | ${ms(r.cpu.generator)} |`);
  const bound = (trivial: CountedResult, databaseMs: number) => {
    const framework = trivial.cpu.server + trivial.cpu.generator;
    return `${(framework / (framework + databaseMs)).toFixed(2)}x (the trivial route's ${ms(framework)} ms per request, plus ${ms(databaseMs)} ms of database CPU to store each event)`;
  };
  const groupCommitted = `with group commit and no worker at most ${bound(pairs.trivialAlone, pairs.groupCommitted.cpu.database)}`;
  console.log(
    `route / trivial route if the route's own code cost nothing, on this machine: ` +
      (databaseMsPerInsert === null
        ? groupCommitted
        : `each event in its own transaction at most ${bound(pairs.trivial, databaseMsPerInsert)}; ${groupCommitted}`),
  );
}

if (!existsSync(".next/BUILD_ID")) {
  console.log("no production build: running npm run build");
  if (spawnSync("npm", ["run", "build"], { stdio: "inherit" }).status !== 0) throw new Error("npm run build failed");
}

// Everything started is stopped on every path: success, a failed step, Ctrl-C. Cleanups run last
// started first; one that fails is reported and the rest still run.
const cleanups: { what: string; run: () => Promise<unknown> }[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const { what, run } of cleanups.reverse()) {
      await run().catch((error: unknown) =>
        console.error(`cleanup: ${what} failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping what the benchmark started`);
    const exit = () => process.exit(130);
    cleanUp().then(exit, exit);
  });
}

// A cluster of the bench's own (embedded binaries, PostgreSQL's defaults), not the shared server:
// every database below is created on it, and nothing else runs there.
const cluster = await startOwnPostgres("bench-ingest");
process.env.TEST_DATABASE_URL = cluster.url;
cleanups.push({ what: "stopping the bench's PostgreSQL", run: () => cluster.stop() });

let exitCode = 0;
try {
  await run();
} catch (error) {
  exitCode = 1;
  console.error(`bench:ingest failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await cleanUp();
}
// Whatever a library left open (sockets, timers), the benchmark is over.
process.exit(exitCode);

type Target = [title: string, base: string, path: string, serverPid: number, deliver?: () => Delivery];

/**
 * The account targets: `npm run ingest` on a database holding one account (every delivery to it),
 * and on one holding `accountCount`, twice: every delivery to one of them (what holding them costs:
 * the cache, the lookup) and each to a random one (the same traffic spread over every account, as a
 * marketplace's is: its rows then land all over the inbox's account index). No worker on either
 * (their databases are their own). And how long a process takes to load the many into its cache.
 */
async function accountTargets(name: string, env: Record<string, string>): Promise<{ targets: Target[]; loadMs: number }> {
  const started: Target[] = [];
  let loadMs = 0;
  for (const [suffix, count] of [
    ["acc1", 1],
    ["accn", accountCount],
  ] as const) {
    const database = await freshBenchDatabase(`${name}_${suffix}`);
    cleanups.push({ what: `dropping database ${name}_${suffix}`, run: database.drop });
    const seedPool = createPool(database.url, 2, "bench");
    try {
      const accounts = await seedStripeAccounts(seedPool, count, ACCOUNT_SECRETS_KEY);
      if (count === accountCount) loadMs = await cacheLoadMs(seedPool, database.url);
      const port = await freePort();
      const server = startScript("worker/ingest-server.ts", {
        ...env,
        DATABASE_URL: database.url,
        INGEST_PORT: String(port),
        ACCOUNT_SECRETS_KEY,
      });
      cleanups.push({ what: `stopping the ingest of ${plural(count, "account")}`, run: () => stopChild(server) });
      const url = `http://127.0.0.1:${port}`;
      await waitListening(url);
      const held = `npm run ingest, ${count.toLocaleString("en-US")} account${count === 1 ? "" : "s"} in the database`;
      started.push([`${held}, all deliveries to one`, url, "/api/webhooks/stripe", server.pid!, toAccounts(accounts.slice(0, 1))]);
      if (count > 1)
        started.push([`${held}, each delivery to a random one`, url, "/api/webhooks/stripe", server.pid!, toAccounts(accounts)]);
    } finally {
      await seedPool.end();
    }
  }
  return { targets: started, loadMs };
}

/** How long one process's cache takes to read and open every account of the database (a process's start). */
async function cacheLoadMs(pool: Pool, url: string): Promise<number> {
  const config = loadConfig({ DATABASE_URL: url, ACCOUNT_SECRETS_KEY });
  const started = performance.now();
  const directory = startAccountDirectory(config, pool, { databaseUrl: url, applicationName: "bench", watch: false });
  await directory.ready();
  const ms = performance.now() - started;
  if (directory.databaseCount() !== accountCount) throw new Error(`the cache holds ${directory.databaseCount()} accounts`);
  await directory.close();
  return Math.round(ms);
}

/** `--accounts-only`: the account targets alone, A B C C B A, and their ratios. */
async function runAccounts(): Promise<void> {
  const name = `webhook_inbox_bench_accounts_${process.pid}`;
  const env = { WEBHOOK_SECRET_STRIPE: secret, SWEEPER_STALE_MINUTES: "60" };
  const { targets, loadMs } = await accountTargets(name, env);
  console.log(
    `accounts benchmark: ${connections} connections, 2 x ${seconds}s per target (A B C C B A, after a 3s warm-up each), no worker`,
  );
  const runs = new Map<string, Result[]>();
  // The ingest process's own CPU per request: on a shared machine a steadier figure than req/s.
  const serverMs = new Map<string, number>();
  for (const [title, base, path, server, deliver] of [...targets, ...[...targets].reverse()]) {
    await load(title, base, path, { seconds: 3, deliver });
    const cpu = countCpu(() => groupPids(server));
    const measured = await load(title, base, path, { seconds, deliver });
    serverMs.set(title, (serverMs.get(title) ?? 0) + cpu().processesMs);
    console.log(`  ${title}: ${measured.rps.toFixed(0)} req/s, p99 ${measured.p99} ms`);
    runs.set(title, [...(runs.get(title) ?? []), measured]);
  }
  const [one, held, spread] = targets.map(([title]) => combineResults(runs.get(title)!)) as [Result, Result, Result];
  console.log("\n| target | req/s | p50 ms | p99 ms | requests | non-2xx/errors | ingest process ms/req |\n|---|---|---|---|---|---|---|");
  for (const r of [one, held, spread])
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.total} | ${r.bad} | ${(serverMs.get(r.name)! / r.total).toFixed(2)} |`,
    );
  printAccountsRatio(one, held, spread, loadMs);
  console.log(
    `resident memory now: ingest with 1 account ${groupRssMb(targets[0]![3])} MB, with ${accountCount.toLocaleString("en-US")} ${groupRssMb(targets[1]![3])} MB`,
  );
}

function printAccountsRatio(one: Result, held: Result, spread: Result, loadMs: number): void {
  const many = accountCount.toLocaleString("en-US");
  console.log(
    `accounts: ingest with ${many} accounts in the database / with 1 account = ${(held.rps / one.rps).toFixed(2)}x (goal >= 0.95)` +
      ` · the same traffic spread over the ${many} accounts / 1 account = ${(spread.rps / one.rps).toFixed(2)}x` +
      ` · p99 ${one.p99} / ${held.p99} / ${spread.p99} ms · a process's cache read and opened the ${many} accounts in ${loadMs} ms`,
  );
}

/**
 * The seeded targets: `npm run ingest` on a database whose inbox is empty, and on one holding
 * `seedEvents` settled events with their ledger keys (what a long-lived inbox holds: the inserts
 * go through every index and the ledger's unique key at that size). No worker on either.
 */
async function seededTargets(name: string, env: Record<string, string>): Promise<Target[]> {
  const started: Target[] = [];
  for (const [suffix, count] of [
    ["empty", 0],
    ["seeded", seedEvents],
  ] as const) {
    const database = await freshBenchDatabase(`${name}_${suffix}`);
    cleanups.push({ what: `dropping database ${name}_${suffix}`, run: database.drop });
    if (count > 0) await seedInbox(database.url, count);
    const port = await freePort();
    const server = startScript("worker/ingest-server.ts", { ...env, DATABASE_URL: database.url, INGEST_PORT: String(port) });
    cleanups.push({ what: `stopping the ingest on the ${suffix} inbox`, run: () => stopChild(server) });
    const url = `http://127.0.0.1:${port}`;
    await waitListening(url);
    const title = `npm run ingest, ${count > 0 ? `${count.toLocaleString("en-US")} settled events` : "an empty inbox"}, no worker`;
    started.push([title, url, "/api/webhooks/stripe", server.pid!]);
  }
  return started;
}

function printSeededRatio(empty: Result, seeded: Result): void {
  console.log(
    `seeded inbox: ingest on ${seedEvents.toLocaleString("en-US")} settled events / on an empty inbox = ` +
      `${(seeded.rps / empty.rps).toFixed(2)}x (goal >= 0.8) · ${seeded.rps.toFixed(0)} vs ${empty.rps.toFixed(0)} req/s · ` +
      `p99 ${seeded.p99} / ${empty.p99} ms`,
  );
}

/** `--seed-only`: the seeded targets alone, A B B A, and their ratio. */
async function runSeeded(): Promise<void> {
  const targets = await seededTargets(`webhook_inbox_bench_seeded_${process.pid}`, {
    WEBHOOK_SECRET_STRIPE: secret,
    SWEEPER_STALE_MINUTES: "60",
  });
  console.log(
    `seeded-inbox benchmark: ${connections} connections, 2 x ${seconds}s per target (A B B A, after a 3s warm-up each), no worker`,
  );
  const runs = new Map<string, Result[]>();
  for (const [title, base, path] of [...targets, ...[...targets].reverse()]) {
    await load(title, base, path, { seconds: 3 });
    const measured = await load(title, base, path, { seconds });
    console.log(`  ${title}: ${measured.rps.toFixed(0)} req/s, p99 ${measured.p99} ms`);
    runs.set(title, [...(runs.get(title) ?? []), measured]);
  }
  const [empty, seeded] = targets.map(([title]) => combineResults(runs.get(title)!)) as [Result, Result];
  console.log("\n| target | req/s | p50 ms | p99 ms | requests | non-2xx/errors |\n|---|---|---|---|---|---|");
  for (const r of [empty, seeded]) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.total} | ${r.bad} |`);
  printSeededRatio(empty, seeded);
}

async function run(): Promise<void> {
  if (values["accounts-only"]) return runAccounts();
  if (values["seed-only"]) {
    if (!(seedEvents > 0)) throw new Error("--seed-only needs --seed-events N");
    return runSeeded();
  }
  const name = `webhook_inbox_bench_ingest_${process.pid}`;
  const { url, drop } = await freshBenchDatabase(name);
  cleanups.push({ what: `dropping database ${name}`, run: drop });
  const env = {
    DATABASE_URL: url,
    WEBHOOK_SECRET_STRIPE: secret,
    AUTH_SECRET: "bench-auth-secret-0123456789abcdef0123456789",
    SWEEPER_STALE_MINUTES: "60",
  };
  const app = await startAppServer(env);
  cleanups.push({ what: "stopping the app (web + worker)", run: app.stop });
  const barePort = await freePort();
  const ingestPort = await freePort();
  const seedPort = await freePort();
  const offPort = await freePort();
  const bare = startScript("e2e/bench/bare-ingest-server.ts", { ...env, PORT: String(barePort) });
  cleanups.push({ what: "stopping the bare server", run: () => stopChild(bare) });
  const seed = startScript("e2e/bench/bare-ingest-server.ts", { ...env, PORT: String(seedPort), BARE_STYLE: "seed" });
  cleanups.push({ what: "stopping the seed-style server", run: () => stopChild(seed) });
  const ingest = startScript("worker/ingest-server.ts", { ...env, INGEST_PORT: String(ingestPort) });
  cleanups.push({ what: "stopping npm run ingest", run: () => stopChild(ingest) });
  const off = startScript("worker/ingest-server.ts", { ...env, INGEST_PORT: String(offPort), INGEST_GROUP_COMMIT: "off" });
  cleanups.push({ what: "stopping npm run ingest without group commit", run: () => stopChild(off) });
  const bareUrl = `http://127.0.0.1:${barePort}`;
  const seedUrl = `http://127.0.0.1:${seedPort}`;
  const ingestUrl = `http://127.0.0.1:${ingestPort}`;
  const offUrl = `http://127.0.0.1:${offPort}`;
  const pool = createPool(url, 2, "bench");
  cleanups.push({ what: "closing the pool", run: () => pool.end() });
  // Monthly partitions against their baseline: the same ingest process on two more databases with no
  // worker, one partitioned, one whose inbox is a plain table; and the database's own ceiling on each.
  const part = await freshBenchDatabase(`${name}_part`);
  cleanups.push({ what: `dropping database ${name}_part`, run: part.drop });
  const flat = await freshBenchDatabase(`${name}_flat`);
  cleanups.push({ what: `dropping database ${name}_flat`, run: flat.drop });
  const partPool = createPool(part.url, 2, "bench");
  cleanups.push({ what: "closing the partitioned pool", run: () => partPool.end() });
  const flatPool = createPool(flat.url, 2, "bench");
  cleanups.push({ what: "closing the unpartitioned pool", run: () => flatPool.end() });
  await flattenInbox(flatPool);
  const partIngestPort = await freePort();
  const flatIngestPort = await freePort();
  const partIngest = startScript("worker/ingest-server.ts", { ...env, DATABASE_URL: part.url, INGEST_PORT: String(partIngestPort) });
  cleanups.push({ what: "stopping the partitioned ingest", run: () => stopChild(partIngest) });
  const flatIngest = startScript("worker/ingest-server.ts", { ...env, DATABASE_URL: flat.url, INGEST_PORT: String(flatIngestPort) });
  cleanups.push({ what: "stopping the unpartitioned ingest", run: () => stopChild(flatIngest) });
  const partIngestUrl = `http://127.0.0.1:${partIngestPort}`;
  const partWeb = await startWebServer({ ...env, DATABASE_URL: part.url });
  cleanups.push({ what: "stopping the web server without a worker", run: partWeb.stop });
  const flatIngestUrl = `http://127.0.0.1:${flatIngestPort}`;
  const accounts = await accountTargets(name, env);
  const seeded = seedEvents > 0 ? await seededTargets(name, env) : [];
  await Promise.all([bareUrl, seedUrl, ingestUrl, offUrl, partIngestUrl, flatIngestUrl].map((serverUrl) => waitListening(serverUrl)));
  console.log(
    `ingest benchmark: ${connections} connections, 2 x ${seconds}s per target (A B C ... C B A, after a 3s warm-up each), worker draining throughout`,
  );
  const targets: Target[] = [
    ["bare node:http + pg (reference)", bareUrl, "/api/webhooks/stripe", bare.pid!],
    ["Next.js trivial route (404)", app.url, "/api/webhooks/unknown", app.pids.web],
    ["Next.js POST /api/webhooks/stripe", app.url, "/api/webhooks/stripe", app.pids.web],
    ["npm run ingest (lean server)", ingestUrl, "/api/webhooks/stripe", ingest.pid!],
    ["seed-style one-row server (one INSERT ... ON CONFLICT per request)", seedUrl, "/api/webhooks/stripe", seed.pid!],
    ["npm run ingest, group commit off", offUrl, "/api/webhooks/stripe", off.pid!],
    ["npm run ingest, partitioned inbox, no worker", partIngestUrl, "/api/webhooks/stripe", partIngest.pid!],
    ["npm run ingest, unpartitioned inbox, no worker (baseline)", flatIngestUrl, "/api/webhooks/stripe", flatIngest.pid!],
    ["Next.js trivial route (404), no worker", partWeb.url, "/api/webhooks/unknown", partWeb.pids.web],
    ["Next.js POST /api/webhooks/stripe, no worker", partWeb.url, "/api/webhooks/stripe", partWeb.pids.web],
    ...accounts.targets,
    ...seeded,
  ];
  // Measured in the order A B C ... C B A: the worker's backlog grows through the run, and each
  // target's two halves then see, between them, the same background as every other target's.
  const runs = new Map<string, CountedResult[]>();
  for (const [title, base, path, server, deliver] of [...targets, ...[...targets].reverse()]) {
    await load(title, base, path, { seconds: 3, deliver });
    const run = await loadCounted(title, base, path, { server, worker: app.pids.worker }, deliver);
    runs.set(title, [...(runs.get(title) ?? []), run]);
  }
  const counted = targets.map(([title]) => combineRuns(runs.get(title)!));
  const results: Result[] = [...counted];
  // A lone request, one connection, nothing else in flight: group commit must not make it wait.
  const lone = new Map<string, Result[]>();
  for (const [title, base] of [
    ["lone request, npm run ingest", ingestUrl],
    ["lone request, npm run ingest, group commit off", offUrl],
    ["lone request, npm run ingest, group commit off", offUrl],
    ["lone request, npm run ingest", ingestUrl],
  ] as const) {
    lone.set(title, [...(lone.get(title) ?? []), await load(title, base, "/api/webhooks/stripe", { seconds: 5, connections: 1 })]);
  }
  const [loneOn, loneOff] = [...lone.values()].map((pair) => combineResults(pair));
  const fixed = await load(`Next.js route at ${rate} req/s`, app.url, "/api/webhooks/stripe", { seconds, rate });
  const soakSeconds = Number(values["soak-seconds"]);
  if (soakSeconds > 0) {
    const soak = await load(`soak: Next.js route at ${rate} req/s for ${soakSeconds}s`, app.url, "/api/webhooks/stripe", {
      seconds: soakSeconds,
      rate,
    });
    results.push(soak);
  }
  results.push(fixed);
  // On the databases no worker drains, so the database's CPU is the inserts' own (pausing a worker
  // could freeze it inside a transaction whose row locks the inserts then wait for).
  const ceiling = await databaseCeiling(partPool, part.url, connections, seconds);
  const flatCeiling = await databaseCeiling(flatPool, flat.url, connections, seconds);

  console.log("\n| target | req/s | p50 ms | p99 ms | requests | non-2xx/errors |\n|---|---|---|---|---|---|");
  for (const r of results) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.total} | ${r.bad} |`);
  const [
    bareResult,
    trivial,
    route,
    lean,
    seedResult,
    leanOff,
    partLean,
    flatLean,
    trivialAlone,
    routeAlone,
    oneAccount,
    heldAccounts,
    spreadAccounts,
  ] = counted as Thirteen<CountedResult>;
  for (const r of [loneOn!, loneOff!])
    console.log(`| ${r.name} (1 connection) | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.total} | ${r.bad} |`);
  console.log(
    `\nratios: route / trivial route = ${(route.rps / trivial.rps).toFixed(2)}x (goal >= 0.75)` +
      `; with no worker on the route's database ${(routeAlone.rps / trivialAlone.rps).toFixed(2)}x` +
      ` · ingest / seed-style one-row server = ${(lean.rps / seedResult.rps).toFixed(2)}x (goal >= 1.0, ingest p99 ${lean.p99} ms, goal < 50)` +
      `; with no worker on the ingest's database ${(partLean.rps / seedResult.rps).toFixed(2)}x (p99 ${partLean.p99} ms)` +
      ` · ingest / ingest with group commit off = ${(lean.rps / leanOff.rps).toFixed(2)}x (goal >= 1.5)` +
      ` · lone request mean with - without group commit = ${(loneOn!.mean - loneOff!.mean).toFixed(2)} ms (goal <= 1)` +
      ` · ingest / bare = ${(lean.rps / bareResult.rps).toFixed(2)}x` +
      ` · route / bare = ${(route.rps / bareResult.rps).toFixed(2)}x` +
      ` · route p99 at ${rate} req/s = ${fixed.p99} ms (goal < 50)` +
      ` · ingest partitioned / unpartitioned (no worker) = ${(partLean.rps / flatLean.rps).toFixed(2)}x (goal >= 0.9)`,
  );
  console.log(
    `database ceiling (pgbench, the same row + job insert, ${connections} clients, no HTTP, no Node): ` +
      (ceiling.databaseMsPerInsert === null || flatCeiling.databaseMsPerInsert === null
        ? `partitioned ${ceiling.tps}; unpartitioned ${flatCeiling.tps}`
        : `${ceiling.tps} tx/s, database CPU ${ceiling.databaseMsPerInsert.toFixed(2)} ms per insert (no worker); on the unpartitioned inbox ` +
          `${flatCeiling.tps} tx/s, ${flatCeiling.databaseMsPerInsert.toFixed(2)} ms per insert = ` +
          `${(Number(ceiling.tps) / Number(flatCeiling.tps)).toFixed(2)}x partitioned / unpartitioned`),
  );
  printAccountsRatio(oneAccount, heldAccounts, spreadAccounts, accounts.loadMs);
  if (seeded.length > 0) {
    const result = (title: string) => counted.find((entry) => entry.name === title)!;
    printSeededRatio(result(seeded[0]![0]), result(seeded[1]![0]));
  }
  printCpuPerRequest(counted, { trivial, trivialAlone, groupCommitted: partLean }, ceiling.databaseMsPerInsert);
  const { rows } = await pool.query("SELECT status, count(*)::int AS n FROM webhook_inbox GROUP BY status ORDER BY status");
  console.log(`inbox: ${rows.map((row) => `${row.status} ${row.n}`).join(", ")}`);
  console.log(
    `resident memory now: web ${groupRssMb(app.pids.web)} MB, worker ${groupRssMb(app.pids.worker)} MB, ingest ${groupRssMb(ingest.pid!)} MB`,
  );
}
