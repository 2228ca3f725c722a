import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processEvents } from "../inbox/process/process-event";
import { REDACTED } from "../providers/personal-data";
import { runCli } from "../testing/cli-process";
import { randomId, signedWebhook, stripeEvent } from "../testing/gateway-events";
import { processDeps } from "../testing/payment-events";
import { createTestApp, ingestWebhook, TEST_SECRETS, type TestApp } from "../testing/test-app";
import { waitFor } from "../testing/test-worker";

// An erasure killed halfway, as an operator's `privacy:erase` dies (SIGKILL: no handler runs, its
// transaction in flight is rolled back), then run again: it finishes, and a third run changes
// nothing. The subject has thousands of events, so the inbox step takes many committed batches; the
// kill comes when the erasure's own counts say some of them are redacted and some are not.

const CARLA = {
  name: "Carla Mendes Vasconcelos",
  email: "carla.vasconcelos@exemplo.com.br",
  cpf: "529.982.247-25",
  customer: "cus_CarlaV77",
};
const OTHER = { email: "someone.else@example.org", customer: "cus_Other01" };
const HASH_KEY = "privacy-killed-hash-key-0123456789abcdef";
const PAYMENTS = 12;
const COPIES_PER_EVENT = 400;
const identifiers = [CARLA.name, CARLA.email, CARLA.cpf, CARLA.cpf.replace(/\D/g, ""), CARLA.customer];

let app: TestApp;
let archiveDir: string;

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), "privacy-killed-"));
  app = await createTestApp("privacy_killed", { PRIVACY_HASH_KEY: HASH_KEY, ARCHIVE_DIR: archiveDir });
});
afterAll(async () => {
  await app?.close();
});

async function ingestCharge(who: { email: string; customer: string; name?: string; cpf?: string }, amount: number): Promise<string> {
  const chargeId = randomId("ch");
  const event = stripeEvent(
    { chargeId, amount, currency: "brl", customerId: who.customer, customerEmail: who.email },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
  );
  Object.assign(event.data.object, {
    billing_details: { email: who.email, name: who.name ?? null, tax_id: who.cpf ?? null, phone: null },
    description: `Pedido de ${who.email}`,
  });
  expect((await ingestWebhook(app, signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe))).status).toBe(200);
  return chargeId;
}

/** The erasure's tables as text: what a leak check and a "changed nothing" check read. */
const dump = () =>
  execFileSync(
    "pg_dump",
    [
      "--data-only",
      ...["webhook_inbox*", "payments", "payment_changes", "customer_emails", "privacy_erasures"].flatMap((t) => ["-t", t]),
      app.db.url,
    ],
    { maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] },
  )
    .toString("utf8")
    .replace(/^\\(un)?restrict .*$/gm, "");
const leaks = (text: string) => identifiers.filter((identifier) => text.toLowerCase().includes(identifier.toLowerCase()));

/** The subject's events, each copied: a subject with years of deliveries (the copies keep their bodies, new event ids). */
async function copyEvents(email: string, copies: number): Promise<void> {
  const { rows } = await app.pool.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_attribute a
      WHERE a.attrelid = 'webhook_inbox'::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
        AND a.attname NOT IN ('id', 'event_id') ORDER BY a.attnum`,
  );
  const columns = rows.map((row) => row.name).join(", ");
  await app.pool.query(
    `INSERT INTO webhook_inbox (id, event_id, ${columns})
     SELECT nextval('webhook_inbox_id_seq'), w.event_id || '-copy-' || g, ${rows.map((row) => `w.${row.name}`).join(", ")}
       FROM webhook_inbox w CROSS JOIN generate_series(1, $2::int) g WHERE w.customer_email = $1`,
    [email, copies],
  );
}

const erasureRow = async () =>
  (
    await app.pool.query<{ id: number; status: string; redacted: number }>(
      "SELECT id, status, COALESCE((counts ->> 'inbox_events')::int, 0) AS redacted FROM privacy_erasures ORDER BY id DESC LIMIT 1",
    )
  ).rows[0];

describe("an erasure killed halfway", () => {
  let total: number;
  let money: unknown;
  let erasureId: number;

  it("is killed with some of the subject's events redacted and some not", async () => {
    for (let n = 0; n < PAYMENTS; n += 1) await ingestCharge({ ...CARLA }, 1000 + n);
    await ingestCharge(OTHER, 777);
    const { rows: pending } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE status = 'pending' ORDER BY id");
    await processEvents(
      processDeps(app),
      pending.map((row) => row.id),
    );
    await copyEvents(CARLA.email, COPIES_PER_EVENT);
    total = PAYMENTS * (COPIES_PER_EVENT + 1);
    money = (await app.pool.query("SELECT provider, gateway_charge_id, status, amount, currency FROM payments ORDER BY id")).rows;
    expect(leaks(dump())).toEqual(expect.arrayContaining([CARLA.name, CARLA.email, CARLA.cpf, CARLA.customer]));

    // `npm run cli -- privacy:erase`, as an operator runs it.
    const child = spawn(process.execPath, ["--import", "tsx", "worker/cli.ts", "privacy:erase", "--email", CARLA.email], {
      env: { ...process.env, ...app.env },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Watched as fast as the database answers (a check every 100 ms could miss a fast machine's whole step).
    const deadline = Date.now() + 120_000;
    let midway = await erasureRow();
    while (!(midway && midway.redacted > 0)) {
      if (Date.now() > deadline) throw new Error("the erasure committed no batch in 120 s");
      midway = await erasureRow();
    }
    child.kill("SIGKILL");
    expect(await exited).toBeNull();
    erasureId = midway.id;
    const { rows } = await app.pool.query<{ status: string; counted: number; redacted: number }>(
      `SELECT e.status, (e.counts ->> 'inbox_events')::int AS counted,
              (SELECT count(*)::int FROM webhook_inbox WHERE customer_email = '${REDACTED}') AS redacted
         FROM privacy_erasures e WHERE e.id = $1`,
      [erasureId],
    );
    // Halfway: its counts are the batches that committed, no more and no fewer.
    expect(rows[0]!.status).toBe("running");
    expect(rows[0]!.counted).toBe(rows[0]!.redacted);
    expect(rows[0]!.redacted).toBeGreaterThan(0);
    expect(rows[0]!.redacted).toBeLessThan(total);
    // Its session's lock goes with its connection, which the server drops once it sees the process gone.
    await waitFor(
      async () =>
        (await app.pool.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND objsubid = 2", [erasureId]))
          .rowCount === 0,
      30_000,
      "the killed erasure's lock released",
    );
  }, 180_000);

  it("run again, finishes: every identifier gone, the money intact, the counts those of the rows changed", async () => {
    const rerun = runCli(app.env, ["privacy:erase", "--email", CARLA.email]);
    expect(rerun.code, rerun.out).toBe(0);
    const erasure = JSON.parse(rerun.stdout) as { id: number; status: string; counts: Record<string, number> };
    // The same erasure, resumed: asked again, the unfinished one is the answer.
    expect(erasure).toMatchObject({ id: erasureId, status: "done" });
    expect(erasure.counts).toMatchObject({ inbox_events: total, payments: PAYMENTS, customer_emails: 1 });
    expect(leaks(dump())).toEqual([]);
    expect((await app.pool.query("SELECT provider, gateway_charge_id, status, amount, currency FROM payments ORDER BY id")).rows).toEqual(
      money,
    );
    const { rows: audit } = await app.pool.query<{ details: { counts: Record<string, number> } }>(
      "SELECT details FROM audit_log WHERE action = 'privacy_erasure' AND (details ->> 'erasure')::int = $1",
      [erasureId],
    );
    expect(audit.map((entry) => entry.details.counts)).toEqual([erasure.counts]);
    const { rows: other } = await app.pool.query("SELECT customer_email FROM payments WHERE customer_id = $1", [OTHER.customer]);
    expect(other).toEqual([{ customer_email: OTHER.email }]);
  }, 180_000);

  it("a third run changes nothing", async () => {
    // Every table but the erasures' own (the third run adds its row).
    const tables = (text: string) =>
      text
        .replace(/^SELECT pg_catalog.setval\('public.privacy_erasures_id_seq'.*$/m, "")
        .split(/^COPY /m)
        .filter((part) => !part.startsWith("public.privacy_erasures"));
    const before = tables(dump());
    const third = runCli(app.env, ["privacy:erase", "--email", CARLA.email]);
    expect(third.code, third.out).toBe(0);
    const erasure = JSON.parse(third.stdout) as { id: number; counts: Record<string, number> };
    expect(erasure.id).not.toBe(erasureId);
    expect(Object.values(erasure.counts).every((count) => count === 0)).toBe(true);
    expect(tables(dump())).toEqual(before);
  }, 180_000);
});
