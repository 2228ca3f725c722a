import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { freePort } from "@/lib/db/embedded";
import { migrateDatabase } from "@/lib/db/migrate";
import { installQueues } from "@/lib/jobs/install-queues";
import { createPool, type Pool } from "@/lib/db/pool";
import { createPrisma } from "@/lib/db/prisma";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { productionWebArgs } from "@/lib/runtime/launch-environment";
import { stopChild } from "./harness/app-server";
import { cookieHeader, httpSignIn } from "./harness/http-session";
import {
  startPgbouncer,
  startReplicatedPostgres,
  waitForReplay,
  type Pgbouncer,
  type ReplicatedPostgres,
} from "./harness/replicated-postgres";
import { checkFinalStates, sendAll, httpSender, planWebhooks, type Sender } from "./simulator/send-webhooks";
import { generateHistories } from "./simulator/history";

// Past one process, on clusters this file owns: a primary and a pg_basebackup standby, PgBouncer in
// front (transaction pooling for the web and ingest processes, session pooling for the workers),
// two `npm run ingest` processes, one web server reading its lists from the replica and three
// workers. Signed load goes to both ingest processes; mid-run one worker is killed with SIGKILL and
// the standby restarts. Every acknowledged event must settle exactly once, every payment end in its
// true state, and the console answer throughout. ~1-2 min.

const secrets = { stripe: TEST_SECRETS.stripe };
const ADMIN = { email: "scale-admin@example.com", password: "many-processes-password-1" };

let replicated: ReplicatedPostgres;
let bouncer: Pgbouncer;
let primary: Pool;
const children: { name: string; child: ChildProcess; logs: string[] }[] = [];

function start(name: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: "warn", ...env, NODE_ENV: "production" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const entry = { name, child, logs: [] as string[] };
  child.stdout?.on("data", (chunk) => entry.logs.push(String(chunk)));
  child.stderr?.on("data", (chunk) => entry.logs.push(String(chunk)));
  children.push(entry);
  return entry;
}

async function answers(url: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    return { status: response.status, body: await response.text() };
  } catch {
    return { status: 0, body: "" };
  }
}

let webUrl: string;
let ingestUrls: string[];

beforeAll(async () => {
  replicated = await startReplicatedPostgres("inbox");
  await migrateDatabase(replicated.primary.url("inbox"), installQueues);
  primary = createPool(replicated.primary.url("inbox"), 4, "test:many-processes");
  await createUser(createPrisma(primary), { email: ADMIN.email, role: "admin", password: ADMIN.password }, "test");
  await waitForReplay(replicated);
  bouncer = await startPgbouncer({
    inbox_tx: { port: replicated.primary.port, dbname: "inbox", poolMode: "transaction" },
    inbox_session: { port: replicated.primary.port, dbname: "inbox", poolMode: "session" },
    inbox_read: { port: replicated.standby.port, dbname: "inbox", poolMode: "transaction" },
  });
  const common = {
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    AUTH_SECRET: "many-processes-auth-secret-0123456789abcdef",
    REFETCH_STRIPE: "none",
    WORKER_RETRY_DELAYS_SECONDS: "2",
  };
  const transactionPooled = { ...common, DATABASE_URL: bouncer.url("inbox_tx"), DATABASE_POOLER: "transaction" };
  ingestUrls = [];
  for (const name of ["ingest-1", "ingest-2"]) {
    const port = await freePort();
    ingestUrls.push(`http://127.0.0.1:${port}`);
    start(name, ["--import", "tsx", "worker/ingest-server.ts"], { ...transactionPooled, INGEST_PORT: String(port) });
  }
  const webPort = await freePort();
  webUrl = `http://127.0.0.1:${webPort}`;
  start("web", [...productionWebArgs(512), "--hostname", "127.0.0.1"], {
    ...transactionPooled,
    DATABASE_READ_URL: bouncer.url("inbox_read"),
    DATABASE_READ_MAX_LAG_SECONDS: "5",
    PORT: String(webPort),
    NEXTAUTH_URL: webUrl,
  });
  for (const name of ["worker-1", "worker-2", "worker-3"]) {
    start(name, ["--import", "tsx", "worker/worker.ts"], {
      ...common,
      DATABASE_URL: bouncer.url("inbox_session"),
      DATABASE_POOLER: "session",
      WORKER_CONCURRENCY: "8",
      // "worker started" is an info line: how the test knows each one consumes.
      LOG_LEVEL: "info",
    });
  }
  await waitFor(async () => (await answers(`${webUrl}/api/health`)).status === 200 || null, 120_000, "the web server");
  for (const url of ingestUrls) {
    await waitFor(
      async () => (await answers(`${url}/api/webhooks/nobody`, { method: "POST", body: "{}" })).status === 404 || null,
      60_000,
      "an ingest process",
    );
  }
  const workersReady = () =>
    children.filter((entry) => entry.name.startsWith("worker") && entry.logs.join("").includes('"msg":"worker started"'));
  await waitFor(async () => workersReady().length === 3 || null, 120_000, "three workers started").catch((error: Error) => {
    throw new Error(`${error.message}\n${children.map((entry) => `--- ${entry.name}\n${entry.logs.join("").slice(-2000)}`).join("\n")}`);
  });
}, 300_000);

afterAll(async () => {
  await Promise.all(children.map((entry) => stopChild(entry.child)));
  await bouncer?.stop();
  await primary?.end();
  await replicated?.stop();
});

describe("[SCALE] two ingest processes, a web server and three workers behind PgBouncer, a primary and a standby", () => {
  it("settles every acknowledged event once and every payment true through a worker kill and a standby restart, the console answering throughout", async () => {
    const list = generateHistories(2424, 450, ["stripe"], { sameSecondRate: 0 })
      .filter((history) => !history.payment.integration && history.steps.every((step) => !step.kind.startsWith("dispute")))
      .slice(0, 150);
    const plan = planWebhooks(list, { secrets, duplicateRate: 0.2, shuffle: "payment", seed: 2424 });
    const acknowledged = new Set<string>();
    const perIngest = [0, 0];
    let turn = 0;
    const senders = ingestUrls.map((url) => httpSender(url));
    const sender: Sender = async (webhook) => {
      const index = turn++ % senders.length;
      const result = await senders[index]!(webhook);
      if (result.status >= 200 && result.status < 300) {
        acknowledged.add(webhook.eventId);
        perIngest[index]! += 1;
      }
      return result;
    };

    const session = await httpSignIn(webUrl, ADMIN.email, ADMIN.password);
    const cookie = cookieHeader(session.cookies);
    const pages: { status: number; readTarget: string | null; note: string | null }[] = [];
    let loadDone = false;
    const probe = (async () => {
      while (!loadDone) {
        for (const page of ["/events", "/", "/payments"]) {
          const answer = await answers(`${webUrl}${page}`, { headers: { cookie } });
          const note = /data-read-target="(\w+)"[^>]*>([^<]*)</.exec(answer.body);
          pages.push({ status: answer.status, readTarget: note?.[1] ?? null, note: note?.[2] ?? null });
        }
      }
    })();

    // Paced so the load spans the kill and the restart (~30-60 s), not a burst that ends first.
    const load = sendAll(plan, sender, { concurrency: 4, maxDelayMs: 300, maxTries: 100, secrets }).finally(() => (loadDone = true));
    await waitFor(async () => acknowledged.size >= plan.length / 4 || null, 120_000, "a quarter of the load acknowledged");
    const victim = children.find((entry) => entry.name === "worker-1")!;
    process.kill(-victim.child.pid!, "SIGKILL");
    await waitFor(async () => acknowledged.size >= plan.length / 2 || null, 120_000, "half of the load acknowledged");
    await replicated.standby.restart();
    const report = await load;
    await probe;

    const eventIds = [...acknowledged];
    const settled = await waitFor(
      async () => {
        const { rows } = await primary.query<{ stored: number; settled: number; doubleSettled: number; doubleApplied: number }>(
          `WITH events AS (SELECT id, status FROM webhook_inbox WHERE provider = 'stripe' AND event_id = ANY($1))
         SELECT (SELECT count(*)::int FROM events) AS stored,
                (SELECT count(*)::int FROM events WHERE status IN ('processed', 'ignored')) AS settled,
                (SELECT count(*)::int FROM (SELECT inbox_id FROM processing_attempts WHERE inbox_id IN (SELECT id FROM events)
                   AND outcome IN ('processed', 'ignored') GROUP BY inbox_id HAVING count(*) > 1) twice) AS "doubleSettled",
                (SELECT count(*)::int FROM (SELECT inbox_id FROM payment_transitions WHERE inbox_id IN (SELECT id FROM events)
                   GROUP BY inbox_id HAVING count(*) > 1) twice) AS "doubleApplied"`,
          [eventIds],
        );
        return rows[0]!.settled === eventIds.length ? rows[0]! : null;
      },
      90_000,
      "every acknowledged event settled",
    );
    const truth = await checkFinalStates(list, async (history) => {
      const { rows } = await primary.query<{ status: string; amountRefunded: number }>(
        `SELECT status, amount_refunded AS "amountRefunded" FROM payments WHERE provider = 'stripe' AND gateway_charge_id = $1`,
        [history.payment.chargeId],
      );
      return rows[0] ?? null;
    });
    const { rows: workers } = await primary.query<{ worker: string }>("SELECT DISTINCT worker FROM processing_attempts");
    const targets = pages.reduce<Record<string, number>>(
      (counts, sample) => ({ ...counts, [String(sample.readTarget)]: (counts[String(sample.readTarget)] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `[scale] ${report.sent} sent, ${acknowledged.size} acknowledged (${perIngest.join(" + ")} by the two ingest processes), ` +
        `${settled.settled} settled by ${workers.length} workers; payments ${truth.matched}/${truth.payments} true; ` +
        `console: ${pages.length} pages, statuses ${JSON.stringify(pages.reduce<Record<number, number>>((counts, sample) => ({ ...counts, [sample.status]: (counts[sample.status] ?? 0) + 1 }), {}))}, read targets ${JSON.stringify(targets)}; notes ${JSON.stringify([...new Set(pages.map((sample) => sample.note))])}\n`,
    );

    expect(report.failed).toBe(0);
    expect(acknowledged.size).toBe(new Set(plan.map((webhook) => webhook.eventId)).size);
    expect(perIngest.every((count) => count > 0)).toBe(true);
    expect(settled).toMatchObject({ stored: acknowledged.size, doubleSettled: 0, doubleApplied: 0 });
    expect(truth.mismatches).toEqual([]);
    expect(workers.length).toBeGreaterThanOrEqual(3);
    expect(pages.filter((sample) => sample.status !== 200)).toEqual([]);
    expect(targets.replica ?? 0).toBeGreaterThan(0);
  });
});
