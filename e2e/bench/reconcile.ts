import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/config/env";
import { createPool } from "@/lib/db/pool";
import { createGatewayClients } from "@/lib/http/gateway-clients";
import { ingestEvent } from "@/lib/inbox/ingest/ingest-event";
import { createProducer } from "@/lib/queue/boss";
import { runReconciliation } from "@/lib/reconcile/run-reconciliation";
import { countCpu } from "./cpu-time";
import { sendAll, planWebhooks, stripeEventsOf } from "../simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway } from "../simulator/fake-gateway";
import { generateHistories } from "../simulator/history";
import { freshBenchDatabase } from "./bench-database";
import { startWorkers, stopWorkers, waitDrained } from "./run-workers";

// `npm run bench:reconcile -- [--events N]`: what recovering N events the gateway never sent
// costs, beside what the same N events cost when received as webhooks, in the same run. Two fresh databases
// (TEST_DATABASE_URL's server) and one fake Stripe with N listed events:
//   received    N signed events ingested in-process (no HTTP), then one worker drains them;
//   reconciled  nothing sent: one reconciliation run lists all N (100 a page, over HTTP, rate
//               limit lifted) and ingests every one as missed, then one worker drains (repairs) them.
// Prints events/s for each phase and the database's CPU per event, and the ratios reconciled/received.

const { values } = parseArgs({ args: process.argv.slice(2), options: { events: { type: "string", default: "100000" } } });
const targetEvents = Number(values.events);
const secret = "whsec_bench_reconcile";

type Phase = { seconds: number; databaseMs: number; processMs: number };
type Measured = { name: string; events: number; first: Phase; drain: Phase };

function line(name: string, events: number, phase: Phase): string {
  return `${name}: ${events} events in ${phase.seconds.toFixed(1)}s = ${(events / phase.seconds).toFixed(0)} events/s · CPU per event: database ${(phase.databaseMs / events).toFixed(2)} ms + process ${(phase.processMs / events).toFixed(2)} ms`;
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
