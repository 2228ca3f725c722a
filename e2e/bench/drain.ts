import type { ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/config/env";
import { createPool } from "@/lib/db/pool";
import { createProducer } from "@/lib/queue/boss";
import { sendAll, planWebhooks } from "../simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway } from "../simulator/fake-gateway";
import { generateHistories } from "../simulator/history";
import { inProcessSender } from "./ingest-sender";
import { copyBenchDatabase, flattenInbox, freshBenchDatabase } from "./bench-database";
import { seedInbox } from "./seed-inbox";
import { countCpu } from "./cpu-time";
import { describeDelivered, startDestinationHost, waitAllDelivered } from "./destination-host";
import { findPgbench, measureDrainCeiling } from "./drain-ceiling";
import { processRssMb } from "./group-rss";
import { pendingCount, startWorkers, stopWorkers, waitDrained } from "./run-workers";
import { printStatementProfile, resetStatementProfile } from "./statement-profile";
import { startOwnPostgres } from "../harness/own-postgres";
import { plural } from "@/lib/text/words";

// `npm run bench:drain -- [--events N] [--workers 1,2] [--concurrency C] [--rollup-cost]
// [--ceiling-batches 1,8] [--no-destination] [--seed-events N]`: how fast worker processes drain a
// backlog. For each worker count: a fresh database (on TEST_DATABASE_URL's server), N events
// ingested with no worker running, then that many `npm run worker` processes started and timed until
// nothing is pending. Prints events/s, the attempts' p50/p95 duration, each event's CPU and the
// workers' resident memory at the end.
// Then, unless --no-destination, the same backlog (a copy made before the first drain) drained again
// by as many workers with one destination configured (DESTINATION_URL), pushing every change to a
// local host that verifies each with standardwebhooks: its rate, the ratio with / without, and
// whether every change was delivered and verified.
// Then the database's own ceiling on another copy of the same backlog, with pgbench and no worker,
// for each batch size (events per transaction): see drain-ceiling.sql; an empty list skips it.
// --rollup-cost drains the same backlog a second time with the overview rollup's settle trigger
// off, and prints the ratio: what the rollup costs.
// Some events are always refetched (Stripe disputes, Standard refunds): a fake gateway that knows
// every history answers them, with the refetch rate limit lifted so the figure is the engine's.
// Unless --no-baseline, each worker count runs again on an unpartitioned inbox (flattenInbox) and
// the ingest and drain rates print as ratios: partitioned / unpartitioned.
// Everything runs on a PostgreSQL cluster of the bench's own (embedded binaries, pg_stat_statements
// preloaded): after each drain, its statements with calls, time, rows and WAL bytes per event.
// --seed-events N runs each worker count again on an inbox already holding N settled events (and
// their ledger keys), written in SQL, and prints the ingest and drain rates as ratios: seeded / empty.

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    events: { type: "string", default: "100000" },
    workers: { type: "string", default: "1,2" },
    concurrency: { type: "string" },
    "rollup-cost": { type: "boolean", default: false },
    "ceiling-batches": { type: "string", default: "1,8" },
    "no-baseline": { type: "boolean", default: false },
    "no-destination": { type: "boolean", default: false },
    "seed-events": { type: "string", default: "0" },
  },
});
const targetEvents = Number(values.events);
const seedEvents = Number(values["seed-events"]);
const ceilingBatches = values["ceiling-batches"].split(",").filter(Boolean).map(Number);
// pgbench's clients for the ceiling: fixed, so ceilings compare across runs and worker settings.
const CEILING_CLIENTS = 8;
const workerCounts = values.workers.split(",").map(Number);
const pgbench = findPgbench();
const secrets = { stripe: "whsec_bench_stripe", standard: "whsec_YmVuY2gtc3RhbmRhcmQtc2VjcmV0LTMyYnl0ZXM=" };

type Schema = "partitioned" | "unpartitioned";
type Figures = { ingestPerSecond: number; drainPerSecond: number };

/**
 * `workers` worker processes drain the backlog copy at `url` with one destination configured,
 * pushing to a local host; the drain rate, and once every change is delivered, what the host verified.
 */
async function drainWithDestination(url: string, workers: number, env: Record<string, string>, backlog: number) {
  const { host, env: destinationEnv } = await startDestinationHost();
  const pool = createPool(url, 2, "bench");
  const children: ChildProcess[] = [];
  try {
    const started = Date.now();
    children.push(...startWorkers(workers, { ...env, DATABASE_URL: url, ...destinationEnv }));
    await waitDrained(pool);
    const perSecond = backlog / ((Date.now() - started) / 1000);
    return { perSecond, delivered: await waitAllDelivered(pool, host) };
  } finally {
    await stopWorkers(children);
    await pool.end();
    await host.close();
  }
}

async function benchmark(workers: number, rollup = true, schema: Schema = "partitioned", seed = 0): Promise<Figures> {
  const name = `webhook_inbox_bench_${process.pid}_${workers}_${schema}${seed > 0 ? "_seeded" : ""}`;
  const { url, drop } = await freshBenchDatabase(name);
  if (schema === "unpartitioned") {
    const flat = createPool(url, 1, "bench");
    await flattenInbox(flat).finally(() => flat.end());
  }
  if (seed > 0) await seedInbox(url, seed);
  // At least two events per payment on average; the plan is cut at exactly N.
  const histories = generateHistories(workers, Math.ceil(targetEvents / 2), ["stripe", "standard"]);
  const gateway = await startFakeGateway(histories);
  const env = {
    DATABASE_URL: url,
    WEBHOOK_SECRET_STRIPE: secrets.stripe,
    WEBHOOK_SECRET_STANDARD: secrets.standard,
    // The worker's default unless --concurrency says otherwise.
    ...(values.concurrency ? { WORKER_CONCURRENCY: values.concurrency } : {}),
    ...fakeGatewayEnv(gateway.url),
    REFETCH_STRIPE: "none",
    REFETCH_STANDARD: "none",
    REFETCH_RATE_PER_SECOND: "100000",
    SWEEPER_STALE_MINUTES: "60",
  };
  const config = loadConfig(env);
  let pool = createPool(url, 20, "bench");
  const boss = createProducer(url);
  await boss.start();
  const children: ChildProcess[] = [];
  let producing = true;
  const ceilingCopies: { batch: number; pgbench: string; url: string; drop: () => Promise<void> }[] = [];
  let destinationCopy: { url: string; drop: () => Promise<void> } | undefined;
  try {
    const plan = planWebhooks(histories, { secrets, duplicateRate: 0, shuffle: "full", seed: workers }).slice(0, targetEvents);
    const ingest = await sendAll(plan, inProcessSender({ pool, boss, config }), { concurrency: 16, secrets });
    const backlog = await pendingCount(pool);
    const label = seed > 0 ? "seeded" : schema;
    const ingestPerSecond = backlog / (ingest.ms / 1000);
    console.log(
      `[${label}] backlog: ${backlog} events ingested in ${(ingest.ms / 1000).toFixed(1)}s (${ingestPerSecond.toFixed(0)}/s, in-process, no HTTP)`,
    );

    // The statistics a database with autovacuum would have by now (the job fetch plans on them).
    await pool.query("ANALYZE");
    const main = rollup && schema === "partitioned" && seed === 0;
    const ceilings = main && pgbench && ceilingBatches.length > 0 ? ceilingBatches : [];
    if (ceilings.length > 0 || (main && !values["no-destination"])) {
      // The same backlog for the database's own ceilings and the drain with a destination, measured
      // once the worker is done (a copy needs its source without sessions).
      await boss.stop({ graceful: false });
      producing = false;
      await pool.end();
      for (const batch of ceilings) {
        ceilingCopies.push({ batch, pgbench: pgbench!, ...(await copyBenchDatabase(name, `${name}_ceiling_${batch}`)) });
      }
      if (!values["no-destination"]) destinationCopy = await copyBenchDatabase(name, `${name}_destination`);
      pool = createPool(url, 20, "bench");
    }
    if (!rollup) await pool.query("ALTER TABLE webhook_inbox DISABLE TRIGGER inbox_hourly_counts_update");
    await resetStatementProfile(pool);
    const started = Date.now();
    const cpu = countCpu(() => children.map((child) => child.pid!));
    children.push(...startWorkers(workers, env));
    await waitDrained(pool);
    const seconds = (Date.now() - started) / 1000;
    const { databaseMs, processesMs } = cpu();
    const rss = children.map((child) => processRssMb(child.pid!));
    const { rows } = await pool.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM webhook_inbox GROUP BY status ORDER BY status",
    );
    const { rows: durations } = await pool.query<{ p50: number; p95: number }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
         FROM processing_attempts`,
    );
    console.log(
      `[${label}] drain with ${plural(workers, "worker")} x concurrency ${config.worker.concurrency}${rollup ? "" : ", rollup trigger OFF"}: ${plural(backlog, "event")} in ` +
        `${seconds.toFixed(1)}s = ${(backlog / seconds).toFixed(0)} events/s (start-up included) · attempt p50 ${durations[0]!.p50} ms, ` +
        `p95 ${durations[0]!.p95} ms · ${gateway.requests.length} refetch requests · worker RSS ${rss.join(", ")} MB · ` +
        rows.map((row) => `${row.status} ${row.n}`).join(", "),
    );
    await printStatementProfile(pool, backlog);
    // What each event costs in CPU, and so the most two cores could drain doing the same work.
    const perEvent = { database: databaseMs / backlog, worker: processesMs / backlog };
    console.log(
      `CPU per event: database ${perEvent.database.toFixed(2)} ms + worker ${perEvent.worker.toFixed(2)} ms ` +
        `(${((databaseMs + processesMs) / 1000 / seconds).toFixed(2)} of ${availableParallelism()} cores busy on average) = ` +
        `at most ${((availableParallelism() * 1000) / (perEvent.database + perEvent.worker)).toFixed(0)} events/s on this machine`,
    );
    await stopWorkers(children);
    if (destinationCopy) {
      const withDestination = await drainWithDestination(destinationCopy.url, workers, env, backlog);
      console.log(
        `drain with one destination (DESTINATION_URL, a local host verifying each push), same backlog, ${plural(workers, "worker")}: ` +
          `${withDestination.perSecond.toFixed(0)} events/s vs ${(backlog / seconds).toFixed(0)} without = ` +
          `${(withDestination.perSecond / (backlog / seconds)).toFixed(2)}x · last change delivered ` +
          `${withDestination.delivered.seconds.toFixed(1)}s after the drain · ${describeDelivered(withDestination.delivered)}`,
      );
    }
    const { rows: applied } = await pool.query<{ inbox_id: string }>("SELECT inbox_id FROM payment_transitions WHERE inbox_id IS NOT NULL");
    for (const copy of ceilingCopies) {
      const ceiling = await measureDrainCeiling(
        copy.pgbench,
        copy.url,
        applied.map((row) => row.inbox_id),
        { clients: CEILING_CLIENTS, batch: copy.batch },
      );
      console.log(
        `database ceiling (pgbench, ${CEILING_CLIENTS} clients, ${plural(copy.batch, "event")} per transaction, no worker, the least work per event: ` +
          `e2e/bench/drain-ceiling.sql): ${ceiling.events} events at ${ceiling.perSecond.toFixed(0)} events/s · CPU per event: database ` +
          `${ceiling.databaseMsPerEvent.toFixed(2)} ms + pgbench ${ceiling.pgbenchMsPerEvent.toFixed(2)} ms · the drain above = ` +
          `${(backlog / seconds / ceiling.perSecond).toFixed(2)}x of it${copy.batch === 8 ? " (goal >= 0.5)" : ""}`,
      );
    }
    if (!pgbench && schema === "partitioned" && seed === 0)
      console.log("database ceiling: skipped, pgbench not found (set PGBENCH to its path)");
    return { ingestPerSecond, drainPerSecond: backlog / seconds };
  } finally {
    await stopWorkers(children);
    if (producing) await boss.stop({ graceful: false });
    await pool.end();
    await gateway.close();
    for (const copy of ceilingCopies) await copy.drop();
    await destinationCopy?.drop();
    await drop();
  }
}

const cluster = await startOwnPostgres("bench-drain", {
  flags: ["-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track_planning=on"],
});
// Every database below (the backlogs, their copies for the ceiling) is created on it.
process.env.TEST_DATABASE_URL = cluster.url;
try {
  for (const workers of workerCounts) {
    const withRollup = await benchmark(workers);
    if (values["rollup-cost"]) {
      const without = await benchmark(workers, false);
      console.log(
        `rollup cost on drain: ${withRollup.drainPerSecond.toFixed(0)} vs ${without.drainPerSecond.toFixed(0)} events/s without it = ` +
          `${(withRollup.drainPerSecond / without.drainPerSecond).toFixed(2)}x`,
      );
    }
    if (seedEvents > 0) {
      const seeded = await benchmark(workers, true, "partitioned", seedEvents);
      console.log(
        `${seedEvents} events in the inbox vs empty, ${plural(workers, "worker")}: ingest ${seeded.ingestPerSecond.toFixed(0)} vs ` +
          `${withRollup.ingestPerSecond.toFixed(0)} events/s = ${(seeded.ingestPerSecond / withRollup.ingestPerSecond).toFixed(2)}x · drain ` +
          `${seeded.drainPerSecond.toFixed(0)} vs ${withRollup.drainPerSecond.toFixed(0)} events/s = ` +
          `${(seeded.drainPerSecond / withRollup.drainPerSecond).toFixed(2)}x (goal >= 0.8)`,
      );
    }
    if (!values["no-baseline"]) {
      // The same backlog and workers on one plain inbox table: what monthly partitions cost.
      const flat = await benchmark(workers, true, "unpartitioned");
      console.log(
        `partitioned vs unpartitioned, ${plural(workers, "worker")}: ingest ${withRollup.ingestPerSecond.toFixed(0)} vs ${flat.ingestPerSecond.toFixed(0)} events/s = ` +
          `${(withRollup.ingestPerSecond / flat.ingestPerSecond).toFixed(2)}x · drain ${withRollup.drainPerSecond.toFixed(0)} vs ` +
          `${flat.drainPerSecond.toFixed(0)} events/s = ${(withRollup.drainPerSecond / flat.drainPerSecond).toFixed(2)}x`,
      );
    }
  }
} finally {
  await cluster.stop();
}
