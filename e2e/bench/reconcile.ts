import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/config/env";
import { createPool } from "@/lib/db/pool";
import { createGatewayClients } from "@/lib/http/gateway-clients";
import { ingestEvent } from "@/lib/inbox/ingest/ingest-event";
import { createProducer, createWorkerBoss } from "@/lib/queue/boss";
import { startAccountDirectory } from "@/lib/gateway-accounts/account-directory";
import { reconcileJob } from "@/lib/jobs/definitions/reconcile";
import { reconcileAccountJob } from "@/lib/jobs/definitions/reconcile-accounts";
import { runJob, workJob } from "@/lib/jobs/work-jobs";
import { seedStripeAccounts } from "./seed-accounts";
import { runReconciliation } from "@/lib/reconcile/run-reconciliation";
import { countCpu } from "./cpu-time";
import { sendAll, planWebhooks, stripeEventsOf } from "../simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway } from "../simulator/fake-gateway";
import { generateHistories } from "../simulator/history";
import { freshBenchDatabase } from "./bench-database";
import { startWorkers, stopWorkers, waitDrained } from "./run-workers";
import { plural } from "@/lib/text/words";

// `npm run bench:reconcile -- [--events N]`: what recovering N events the gateway never sent
// costs, beside what the same N events cost when received as webhooks, in the same run. Two fresh databases
// (TEST_DATABASE_URL's server) and one fake Stripe with N listed events:
//   received    N signed events ingested in-process (no HTTP), then one worker drains them;
//   reconciled  nothing sent: one reconciliation run lists all N (100 a page, over HTTP, rate
//               limit lifted) and ingests every one as missed, then one worker drains (repairs) them.
// Prints events/s for each phase and the database's CPU per event, and the ratios reconciled/received.
// `--accounts N` instead times the schedule over N accounts of one gateway: N Stripe accounts in the
// database (connected accounts, listed with the platform's key), each due, with nothing to find; one
// schedule pass enqueues a job per account and one worker's runs (RECONCILE_CONCURRENCY at a time)
// go through them all: the per-account cost of a scheduled run.

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { events: { type: "string", default: "100000" }, accounts: { type: "string" } },
});
const targetEvents = Number(values.events);
const secret = "whsec_bench_reconcile";

type Phase = { seconds: number; databaseMs: number; processMs: number };
type Measured = { name: string; events: number; first: Phase; drain: Phase };

function line(name: string, events: number, phase: Phase): string {
  return `${name}: ${plural(events, "event")} in ${phase.seconds.toFixed(1)}s = ${(events / phase.seconds).toFixed(0)} events/s · CPU per event: database ${(phase.databaseMs / events).toFixed(2)} ms + process ${(phase.processMs / events).toFixed(2)} ms`;
}

async function measure(work: () => Promise<void>, pids: () => number[] = () => []): Promise<Phase> {
  const started = Date.now();
  const ownBefore = process.cpuUsage();
  const cpu = countCpu(pids);
  await work();
  const { databaseMs, processesMs } = cpu();
  const own = process.cpuUsage(ownBefore);
  return { seconds: (Date.now() - started) / 1000, databaseMs, processMs: processesMs + (own.user + own.system) / 1000 };
}

async function phase(mode: "received" | "reconciled"): Promise<Measured> {
  const { url, drop } = await freshBenchDatabase(`webhook_inbox_bench_reconcile_${process.pid}_${mode}`);
  const histories = generateHistories(7, Math.ceil(targetEvents / 2), ["stripe"]);
  const plan = planWebhooks(histories, { secrets: { stripe: secret }, duplicateRate: 0, shuffle: "full", seed: 7 }).slice(0, targetEvents);
  const gateway = await startFakeGateway(histories);
  gateway.addEvents(stripeEventsOf(plan));
  const env = {
    DATABASE_URL: url,
    WEBHOOK_SECRET_STRIPE: secret,
    ...fakeGatewayEnv(gateway.url),
    REFETCH_STRIPE: "none",
    REFETCH_RATE_PER_SECOND: "100000",
    RECONCILE_INTERVAL_MINUTES_STRIPE: "0",
    RECONCILE_MAX_PAGES: String(Math.ceil(targetEvents / 100) + 1),
    SWEEPER_STALE_MINUTES: "60",
  };
  const config = loadConfig(env);
  const pool = createPool(url, 20, "bench");
  const boss = createProducer(url);
  await boss.start();
  const children: ChildProcess[] = [];
  try {
    const first =
      mode === "received"
        ? await measure(async () => {
            await sendAll(
              plan,
              async (webhook) => {
                const outcome = await ingestEvent(
                  { pool, boss, config },
                  { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
                );
                return { status: outcome.kind === "stored" ? 200 : 500 };
              },
              { concurrency: 16, secrets: { stripe: secret } },
            );
          })
        : await measure(async () => {
            const result = await runReconciliation(
              { pool, boss, config, gateways: createGatewayClients(config) },
              { provider: "stripe", since: new Date(0), until: new Date(), trigger: "cli", actor: "bench" },
            );
            if (!("missingIngested" in result) || result.missingIngested !== plan.length)
              throw new Error(`the run did not recover every event: ${JSON.stringify(result).slice(0, 300)}`);
          });
    await pool.query("ANALYZE");
    const drain = await measure(
      async () => {
        children.push(...startWorkers(1, env));
        await waitDrained(pool);
      },
      () => children.map((child) => child.pid!),
    );
    return { name: mode, events: plan.length, first, drain };
  } finally {
    await stopWorkers(children);
    await boss.stop({ graceful: false });
    await pool.end();
    await gateway.close();
    await drop();
  }
}

/** `--accounts N`: one schedule pass over N due accounts of one gateway, worked by this process as a worker would. */
async function accountsPass(count: number): Promise<void> {
  const { url, drop } = await freshBenchDatabase(`webhook_inbox_bench_reconcile_${process.pid}_accounts`);
  const gateway = await startFakeGateway([]);
  const secretKey = "bench-account-secrets-key-0123456789abcdef";
  const env = {
    DATABASE_URL: url,
    WEBHOOK_SECRET_STRIPE: secret,
    ACCOUNT_SECRETS_KEY: secretKey,
    ...fakeGatewayEnv(gateway.url),
    REFETCH_RATE_PER_SECOND: "100000",
  };
  const config = loadConfig(env);
  const pool = createPool(url, 10, "bench");
  const boss = createWorkerBoss(url, 1);
  await boss.start();
  await seedStripeAccounts(pool, count, secretKey);
  // Started once they are in: it loads them as a worker starting now would.
  const accounts = startAccountDirectory(config, pool, { databaseUrl: url, applicationName: "bench", watch: false });
  try {
    await accounts.ready();
    const deps = { pool, boss, config, gateways: createGatewayClients(config), accounts, workerId: "bench" };
    const phase = await measure(async () => {
      const { enqueued } = await runJob(reconcileJob, deps, {});
      await workJob(boss, reconcileAccountJob, deps);
      for (;;) {
        const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM reconcile_runs WHERE finished_at IS NOT NULL");
        if (rows[0]!.n >= enqueued) break;
        await new Promise((tick) => setTimeout(tick, 200));
      }
    });
    const { rows } = await pool.query<{ runs: number; errors: number }>(
      "SELECT count(*)::int AS runs, sum(errors)::int AS errors FROM reconcile_runs",
    );
    console.log(
      `reconcile --accounts: ${plural(rows[0]!.runs, "scheduled run")} (${plural(count, "stripe account")} + the default; ${plural(rows[0]!.errors, "error")}) in ${phase.seconds.toFixed(1)}s = ` +
        `${(rows[0]!.runs / phase.seconds).toFixed(1)} runs/s, ${config.reconcile.concurrency} at a time · CPU per run: database ${(phase.databaseMs / rows[0]!.runs).toFixed(1)} ms + process ${(phase.processMs / rows[0]!.runs).toFixed(1)} ms`,
    );
  } finally {
    await boss.stop({ graceful: false });
    await accounts.close();
    await pool.end();
    await gateway.close();
    await drop();
  }
}

if (values.accounts !== undefined) {
  await accountsPass(Number(values.accounts));
  process.exit(0);
}

const received = await phase("received");
const reconciled = await phase("reconciled");
console.log(line("received: ingest (in-process, signed)", received.events, received.first));
console.log(line("received: drain (1 worker)", received.events, received.drain));
console.log(
  line("reconciled: list + ingest as missed (one run; this process includes the fake gateway)", reconciled.events, reconciled.first),
);
console.log(line("reconciled: drain (1 worker)", reconciled.events, reconciled.drain));
const total = (measured: Measured) => measured.first.seconds + measured.drain.seconds;
const dbPerEvent = (measured: Measured) => (measured.first.databaseMs + measured.drain.databaseMs) / measured.events;
console.log(
  `reconciled vs received, end to end: ${(reconciled.events / total(reconciled)).toFixed(0)} vs ${(received.events / total(received)).toFixed(0)} events/s = ` +
    `${(total(received) / total(reconciled)).toFixed(2)}x · database CPU per event ${dbPerEvent(reconciled).toFixed(2)} vs ${dbPerEvent(received).toFixed(2)} ms = ` +
    `${(dbPerEvent(reconciled) / dbPerEvent(received)).toFixed(2)}x · drains alone ${(reconciled.events / reconciled.drain.seconds).toFixed(0)} vs ${(received.events / received.drain.seconds).toFixed(0)} events/s`,
);
