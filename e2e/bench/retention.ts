import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "@/lib/config/env";
import { createPool } from "@/lib/db/pool";
import { ingestEvent } from "@/lib/inbox/ingest/ingest-event";
import { createProducer } from "@/lib/queue/boss";
import { randomId, signedWebhook, stripeEvent } from "@/lib/testing/gateway-events";
import { freshBenchDatabase, loadWithoutRollupTrigger } from "./bench-database";
import { plural } from "@/lib/text/words";

// `npm run bench:retention -- [--rows N] [--seconds S] [--concurrency C]`: does a retention run
// slow ingest down? A fresh database (on TEST_DATABASE_URL's server) is seeded with N settled
// events older than RETENTION_DAYS; ingest (in-process, C concurrent webhooks, no HTTP) is
// measured alone for S seconds, then again while `npm run cli -- retention` (a process of its own,
// as the worker's scheduled job is in production) archives and purges all N rows.
// Prints ingest p50/p99 for both phases and the ratio with/without the purge.

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    rows: { type: "string", default: "200000" },
    seconds: { type: "string", default: "15" },
    concurrency: { type: "string", default: "8" },
  },
});
const rows = Number(values.rows);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const secret = "whsec_bench_stripe";

// A typical Stripe charge event body is ~1.5 KB; the seeded rows carry as much.
const SEED = `
  INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, payload, raw_body, headers, status,
                             attempts, received_at, processed_at)
  SELECT 'stripe', 'evt_seed_' || g, 'charge.succeeded', 'ch_seed_' || g, body::jsonb, convert_to(body, 'UTF8'),
         '{"stripe-signature": "t=1700000000,v1=00"}', 'processed', 1,
         now() - interval '100 days' - g * interval '10 milliseconds', now() - interval '100 days'
    FROM generate_series($1::int, $2::int) AS g,
         LATERAL (SELECT json_build_object('id', 'evt_seed_' || g, 'type', 'charge.succeeded',
                    'data', json_build_object('object', json_build_object('id', 'ch_seed_' || g, 'amount', 1000,
                    'description', repeat('x', 1200))))::text AS body) AS b`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const name = `webhook_inbox_bench_retention_${process.pid}`;
  const { url, drop } = await freshBenchDatabase(name);
  const archiveDir = await mkdtemp(join(tmpdir(), "bench-archive-"));
  const config = loadConfig({ DATABASE_URL: url, WEBHOOK_SECRET_STRIPE: secret, ARCHIVE_DIR: archiveDir });
  const pool = createPool(url, concurrency + 4, "bench");
  const boss = createProducer(url);
  await boss.start();
  try {
    const seeded = Date.now();
    await loadWithoutRollupTrigger(pool, async () => {
      for (let from = 1; from <= rows; from += 50_000) await pool.query(SEED, [from, Math.min(rows, from + 49_999)]);
    });
    await pool.query("VACUUM ANALYZE webhook_inbox");
    console.log(`seeded ${rows} settled events in ${((Date.now() - seeded) / 1000).toFixed(1)}s`);

    async function measureIngest(until: () => boolean): Promise<number[]> {
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (!until()) {
            const event = stripeEvent(
              { chargeId: randomId("ch"), amount: 1000, currency: "usd", customerId: "cus_b", customerEmail: "b@example.com" },
              { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() },
            );
            const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), secret);
            const started = performance.now();
            const outcome = await ingestEvent(
              { pool, boss, config },
              { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
            );
            latencies.push(performance.now() - started);
            if (outcome.kind !== "stored") throw new Error(`ingest answered ${outcome.kind}`);
          }
        }),
      );
      return latencies.sort((a, b) => a - b);
    }

    const baselineEnd = Date.now() + seconds * 1000;
    const baseline = await measureIngest(() => Date.now() > baselineEnd);

    let purgeDone = false;
    const purgeStarted = Date.now();
    const child = spawn(process.execPath, ["--import", "tsx", "worker/cli.ts", "retention"], {
      env: { ...process.env, DATABASE_URL: url, ARCHIVE_DIR: archiveDir },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const exited = once(child, "exit").finally(() => {
      purgeDone = true;
    });
    const during = await measureIngest(() => purgeDone);
    const [code] = await exited;
    if (code !== 0) throw new Error(`retention exited with ${code}`);
    const purgeSeconds = (Date.now() - purgeStarted) / 1000;
    const { rows: archived } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_inbox WHERE archived_at IS NOT NULL",
    );

    const line = (label: string, sorted: number[], span: number) =>
      `${label}: ${plural(sorted.length, "ingest")} in ${span.toFixed(1)}s (${(sorted.length / span).toFixed(0)}/s), ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`;
    console.log(line("ingest alone      ", baseline, seconds));
    console.log(line("ingest with purge ", during, purgeSeconds));
    console.log(
      `purge: ${plural(archived[0]!.n, "event")} archived and purged in ${purgeSeconds.toFixed(1)}s ` +
        `(${(archived[0]!.n / purgeSeconds).toFixed(0)}/s, batches of ${config.retention.batchSize}, process start included)`,
    );
    console.log(`ingest p99 with purge / without: ${(percentile(during, 99) / percentile(baseline, 99)).toFixed(2)}x (target <= 2x)`);
  } finally {
    await boss.stop({ graceful: false });
    await pool.end();
    await drop();
    await rm(archiveDir, { recursive: true, force: true });
  }
}

await main();
