import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Job } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiChecker } from "@/e2e/harness/openapi";
import { startHostReceiver, type HostReceiver } from "@/e2e/simulator/host-receiver";
import { getEventView } from "../console/get-event-view";
import { fanOutChanges } from "../destinations/fan-out-changes";
import { createDestination } from "../destinations/manage-destinations";
import { startDeliveryWorker, type DeliveryWorker } from "../destinations/run-delivery-worker";
import { receiveWebhook } from "../inbox/ingest/receive-webhook";
import { processEvents } from "../inbox/process/process-event";
import { changeFeedQuerySchema, createChangeFeed, readChangeFeed } from "../outbox/read-change-feed";
import { erasuresJob } from "../jobs/definitions/erasures";
import { replaysJob } from "../jobs/definitions/replays";
import { retentionJob } from "../jobs/definitions/retention";
import { processWebhookJobs } from "../jobs/definitions/webhooks";
import { runJob } from "../jobs/work-jobs";
import { configureLogger } from "../observability/logger";
import { eventFilterSchema } from "../inbox/queries/event-filter";
import { listEvents } from "../inbox/queries/list-events";
import { searchPayments } from "../payments/search-payments";
import { replayEvents } from "../inbox/replay/replay-events";
import { startReplayRun } from "../inbox/replay/replay-runs";
import { restoreArchivedEvents } from "../inbox/retention/restore-archived-events";
import { REDACTED } from "../providers/personal-data";
import { readFixture } from "../testing/gateway-fixtures";
import { randomId, signedWebhook, stripeEvent, type SignedWebhook } from "../testing/gateway-events";
import { generateSigningKey, startJwksServer, type JwksServer } from "../testing/jwks-server";
import { processDeps } from "../testing/payment-events";
import { archiveText as archiveTextOf } from "../testing/archive-text";
import { runCli } from "../testing/cli-process";
import { createTestApp, TEST_SECRETS, type TestApp } from "../testing/test-app";
import { testConfig, waitFor } from "../testing/test-worker";
import type { AppConfig } from "../config/env";
import { executeErasure, failAbandonedErasure, getErasure, previewErasure, startErasure } from "./erasures";
import { exportSubject } from "./export-subject";

// A data subject's erasure end to end: one person paying through Stripe, Pagar.me and Mercado Pago
// (name, e-mail, CPF, phone and address in the bodies, the gateways' own shapes), some of it
// archived by retention, their changes pushed to two hosts (one answering with the customer's
// e-mail and id), an ignored event of theirs replayed in bulk by support filtering on their e-mail;
// erased, none of it is left anywhere in the database (pg_dump of the whole database: every table
// of every schema, pg-boss's jobs included, checked to be there), the archive directory or the app's
// log lines (captured from the reception, processing, retention and erasure jobs as the worker runs
// them), and the money and history are intact.

const ANA = {
  name: "Ana Beatriz Quintela",
  email: "ana.quintela@exemplo.com.br",
  cpf: "39053344705",
  cpfFormatted: "390.533.447-05",
  phone: "11976543210",
  street: "Rua Jaguaribe Quintela 1234",
  stripeCustomer: "cus_AnaQuintela01",
  pagarmeCustomer: "cus_PgAnaQuintela",
  mpPayer: "778899001",
};
const BOB = { email: "bob.outro@example.org", name: "Roberto Outro", customer: "cus_BobOther02" };
const MP_SECRET = "mp_privacy_secret";
const HASH_KEY = "privacy-test-hash-key-0123456789abcdef";

let app: TestApp;
let config: AppConfig;
let jwks: JwksServer;
let mpApi: Server;
let receiver: HostReceiver;
let chattyHost: Server;
let worker: DeliveryWorker;
let archiveDir: string;
const pagarmeKey = generateSigningKey("kid-privacy");
const mpPayment = { id: 0, status: "approved", transaction_amount: 150.5, currency_id: "BRL", payer: {} as Record<string, unknown> };

/** Mercado Pago's GET /v1/payments/{id}, as its reference shows a payment: the payer in full. */
async function startMercadoPagoApi(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(mpPayment));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** A host that answers each push quoting its customer (e-mail in the body, id in a header): what an attempt stores. */
async function startChattyHost(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += String(chunk)));
    request.on("end", () => {
      const { data } = JSON.parse(body) as { data: { customer: { id: string | null; email: string | null } } };
      response
        .writeHead(200, { "content-type": "application/json", "x-customer-id": data.customer.id ?? "" })
        .end(JSON.stringify({ applied: true, note: `customer ${data.customer.email} updated` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Every line the app logs while this file runs, at the most detailed level. */
const logLines: string[] = [];

beforeAll(async () => {
  configureLogger({ level: "debug", destination: { write: (line: string) => void logLines.push(line) } });
  jwks = await startJwksServer([pagarmeKey]);
  mpApi = await startMercadoPagoApi();
  archiveDir = mkdtempSync(join(tmpdir(), "privacy-archive-"));
  app = await createTestApp("privacy_erasure", {
    PAGARME_SIGNATURES: "rs256",
    PAGARME_JWKS_URL: jwks.url,
    PAYMENT_SOURCE_PAGARME: "gateway",
    REFETCH_PAGARME: "none",
    WEBHOOK_SECRET_MERCADOPAGO: MP_SECRET,
    PAYMENT_SOURCE_MERCADOPAGO: "gateway",
    MERCADOPAGO_API_URL: `http://127.0.0.1:${(mpApi.address() as AddressInfo).port}`,
    MERCADOPAGO_API_KEY: "APP_USR-test",
    PRIVACY_HASH_KEY: HASH_KEY,
    ARCHIVE_DIR: archiveDir,
    RETENTION_DAYS: "1",
    DESTINATION_RETRY_DELAYS_SECONDS: "0.05",
  });
  config = testConfig(app.env, {});
  const { destination, secret } = await createDestination(
    app.pool,
    { name: "host", url: "http://127.0.0.1:9/x" },
    { actor: "admin@example.com" },
  );
  receiver = await startHostReceiver(secret);
  await app.pool.query("UPDATE destinations SET url = $2 WHERE id = $1", [destination.id, receiver.url]);
  chattyHost = await startChattyHost();
  const chatty = await createDestination(app.pool, { name: "chatty", url: "http://127.0.0.1:9/x" }, { actor: "admin@example.com" });
  await app.pool.query("UPDATE destinations SET url = $2 WHERE id = $1", [
    chatty.destination.id,
    `http://127.0.0.1:${(chattyHost.address() as AddressInfo).port}/hook`,
  ]);
  worker = startDeliveryWorker(app.pool, config, { dead: () => undefined, gone: () => undefined });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  chattyHost?.close();
  await app?.close();
  await jwks?.close();
  mpApi?.close();
});

/** Received as the webhook route receives it, then processed as the worker's webhooks job does. */
async function ingest(webhook: SignedWebhook, receivedAt?: Date): Promise<void> {
  const reply = await receiveWebhook(
    { config, ingestDeps: () => ({ pool: app.pool, boss: app.boss, config, ...(receivedAt ? { now: () => receivedAt } : {}) }) },
    {
      method: "POST",
      provider: webhook.provider,
      headers: webhook.headers,
      query: new URLSearchParams(webhook.query ?? ""),
      readBody: async () => Buffer.from(webhook.body),
    },
  );
  if (reply.status !== 200) throw new Error(`not stored: ${JSON.stringify(reply)}`);
  const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE status = 'pending' ORDER BY id");
  const jobs = rows.map((row) => ({ id: `job-${row.id}`, name: "webhooks", data: { inboxId: row.id } }) as Job<unknown>);
  await processWebhookJobs(processDeps(app, config), jobs);
}

/** A Stripe charge event with the customer's billing details (Stripe's own charge fixture, ours filled in). */
function stripeWebhook(
  chargeId: string,
  who: { name: string; email: string; customer: string; phone?: string; street?: string },
  kind: "succeeded" | "refund",
  at: number,
) {
  const charge = readFixture<Record<string, unknown>>("stripe/charge.json");
  const event = stripeEvent(
    { chargeId, amount: 5000, currency: "brl", customerId: who.customer, customerEmail: who.email },
    { kind, amountRefunded: kind === "refund" ? 2000 : 0, occurredAtMs: at },
  );
  const object = event.data.object as Record<string, unknown>;
  Object.assign(object, {
    billing_details: {
      ...(charge.billing_details as object),
      name: who.name,
      email: who.email,
      phone: who.phone ?? null,
      address: { ...(charge.billing_details as { address: object }).address, line1: who.street ?? null, city: "São Paulo", country: "BR" },
      tax_id: who === BOB ? null : ANA.cpfFormatted,
    },
    receipt_email: who.email,
    description: `Pedido de ${who.email}`,
  });
  return signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe, Math.floor(Math.min(at + 1000, Date.now()) / 1000));
}

/** Pagar.me's charge webhook (its published example), the customer as its customer object documents it. */
function pagarmeWebhook(chargeId: string, type: "charge.paid" | "charge.refunded") {
  const webhook = readFixture<{ id: string; type: string; data: Record<string, unknown> }>("pagarme/charge-refunded-webhook.json");
  const paid = type === "charge.paid";
  const body = {
    ...webhook,
    id: randomId("hook"),
    type,
    data: {
      ...webhook.data,
      id: chargeId,
      status: paid ? "paid" : "canceled",
      ...(paid
        ? { canceled_amount: undefined, canceled_at: undefined, paid_amount: webhook.data.amount, paid_at: new Date().toISOString() }
        : {}),
      customer: {
        id: ANA.pagarmeCustomer,
        name: ANA.name,
        email: ANA.email,
        document: ANA.cpf,
        document_type: "cpf",
        type: "individual",
        phones: { mobile_phone: { country_code: "55", area_code: "11", number: ANA.phone.slice(2) } },
        address: { line_1: ANA.street, zip_code: "01310100", city: "São Paulo", state: "SP", country: "BR" },
      },
    },
  };
  return signedWebhook("pagarme", body.id, JSON.stringify(body), pagarmeKey);
}

function mercadopagoWebhook(paymentId: string) {
  const notification = {
    id: Number(`${Date.now() % 1e6}${Math.floor(Math.random() * 1e6)}`),
    live_mode: false,
    type: "payment",
    date_created: new Date().toISOString().replace("Z", "+00:00"),
    user_id: 987654321,
    api_version: "v1",
    action: "payment.updated",
    data: { id: paymentId },
  };
  return signedWebhook("mercadopago", String(notification.id), JSON.stringify(notification), MP_SECRET);
}

const archiveText = () => archiveTextOf(archiveDir);

/** pg_dump, data only: of the whole database (every schema, pg-boss's included), or of these tables. */
const dump = (...tables: string[]) =>
  execFileSync("pg_dump", ["--data-only", ...tables.flatMap((table) => ["-t", table]), app.db.url], {
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  })
    .toString("utf8")
    // pg_dump's per-run \restrict token is not data.
    .replace(/^\\(un)?restrict .*$/gm, "");

/** Every table holding rows in the database, in every schema (partitions are where a partitioned table's rows are). */
async function everyTable(): Promise<string[]> {
  const { rows } = await app.pool.query<{ name: string }>(
    `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/**
 * What the console's searches find for a part of one of her identifiers: events (the explorer) and
 * payments, through the trigram indexes on ids and the customer_emails index.
 */
async function searchesFind(): Promise<number> {
  let found = 0;
  for (const part of ["AnaQuintela", "quintela@exemplo", ANA.mpPayer.slice(1)]) {
    found += (await listEvents(app.pool, { filter: eventFilterSchema.parse({ search: part }) })).rows.length;
    found += (await searchPayments(app.pool, { search: part })).rows.length;
  }
  return found;
}

/** The tables an erasure changes, for a before and after. */
const ERASED_TABLES = [
  "webhook_inbox*",
  "payments",
  "payment_changes",
  "payment_transitions",
  "deliveries",
  "delivery_attempts",
  "processing_attempts",
  "replay_runs",
  "signature_failures",
  "customer_emails",
  "erased_identifiers",
];

const anaIdentifiers = [
  ANA.name,
  // Mercado Pago's payer names her in two fields; the street names her too.
  "Quintela",
  ANA.mpPayer,
  ANA.email,
  ANA.cpf,
  ANA.cpfFormatted,
  ANA.phone,
  ANA.phone.slice(2),
  ANA.street,
  ANA.stripeCustomer,
  ANA.pagarmeCustomer,
];
const leaks = (text: string) => anaIdentifiers.filter((identifier) => text.toLowerCase().includes(identifier.toLowerCase()));

describe("erasing a data subject", () => {
  const stripeCharge = randomId("ch");
  const pagarmeCharge = `ch_${randomId("pg").slice(3, 19)}`;
  const mpPaymentId = String(Math.floor(Math.random() * 1e10));
  const bobCharge = randomId("ch");
  let erasureId: number;
  let before: Awaited<ReturnType<typeof exportSubject>>;
  let history: unknown;
  let bob: unknown;
  const bobsRows = async () =>
    (
      await app.pool.query(
        `SELECT w.payload, w.raw_body, w.customer_id, w.customer_email, w.redacted_at, p.customer_id AS payment_customer
           FROM webhook_inbox w JOIN payments p ON p.provider = w.provider AND p.gateway_charge_id = w.resource_id
          WHERE w.resource_id = $1 ORDER BY w.id`,
        [bobCharge],
      )
    ).rows;

  it("stores, archives and pushes one person's payments at three gateways, and exports all of it", async () => {
    Object.assign(mpPayment, {
      id: Number(mpPaymentId),
      payer: {
        id: ANA.mpPayer,
        email: ANA.email,
        first_name: "Ana Beatriz",
        last_name: "Quintela",
        identification: { type: "CPF", number: ANA.cpf },
        phone: { area_code: "11", number: ANA.phone.slice(2) },
      },
    });
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    await ingest(stripeWebhook(stripeCharge, { ...ANA, customer: ANA.stripeCustomer }, "succeeded", old.getTime() - 1000), old);
    await ingest(pagarmeWebhook(pagarmeCharge, "charge.paid"), old);
    await ingest(stripeWebhook(bobCharge, BOB, "succeeded", Date.now() - 5000));
    // Retention archives what is older than a day: Ana's first two events go to the archive files.
    const retention = await runJob(retentionJob, processDeps(app, config), {});
    retentionJob.report!(retention);
    expect(retention.events).toBe(2);
    await ingest(stripeWebhook(stripeCharge, { ...ANA, customer: ANA.stripeCustomer }, "refund", Date.now() - 2000));
    await ingest(pagarmeWebhook(pagarmeCharge, "charge.refunded"));
    await ingest(mercadopagoWebhook(mpPaymentId));
    // A late copy of the Stripe charge's success (another event id, older than the refund): ignored.
    await ingest(stripeWebhook(stripeCharge, { ...ANA, customer: ANA.stripeCustomer }, "succeeded", Date.now() - 60_000));
    // Support replays "the ignored events of ana@..." in bulk: the run and its audit entry name her.
    const run = await startReplayRun(
      { pool: app.pool, boss: app.boss },
      eventFilterSchema.parse({ customer: ANA.email, statuses: ["ignored"] }),
      { name: "support@example.com", ip: "203.0.113.9" },
      { confirmThreshold: 100 },
    );
    await runJob(replaysJob, processDeps(app, config), { runId: run.id });
    const { rows: replayed } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE status = 'pending'");
    expect(replayed).toHaveLength(1);
    expect(await processEvents(processDeps(app, config), [replayed[0]!.id])).toEqual(["ignored"]);
    await app.pool.query(
      "INSERT INTO signature_failures (provider, reason, headers, body_excerpt, body_sha256, body_bytes) VALUES ('stripe', 'bad signature', '{}', $1, $2, 10)",
      [`{"receipt_email":"${ANA.email}"}`, "0".repeat(64)],
    );
    await waitFor(async () => receiver.applied.length >= 6 || null, 30_000, "changes pushed to the host");
    await waitFor(
      async () => (await app.pool.query("SELECT 1 FROM delivery_attempts WHERE response_excerpt LIKE $1", [`%${ANA.email}%`])).rowCount,
      30_000,
      "the chatty host's answers quoting her",
    );

    // The dump is the whole database: every table of every schema is in it, pg-boss's jobs with their data.
    const full = dump();
    const tables = await everyTable();
    expect(tables).toEqual(expect.arrayContaining(["pgboss.job_common", "public.payments", "public.audit_log", "public.replay_runs"]));
    for (const table of tables) expect(full, table).toMatch(new RegExp(`^COPY ${table.replace(/\./g, "\\.")} \\(`, "m"));
    expect(full).toMatch(/\{"runId": \d+\}/);
    expect(full).toMatch(/\{"inboxId": \d+[,}]/);
    expect(leaks(full)).toEqual(expect.arrayContaining([ANA.email, ANA.cpf, ANA.name, ANA.stripeCustomer, ANA.mpPayer]));
    expect(leaks(archiveText())).toEqual(expect.arrayContaining([ANA.email, ANA.cpfFormatted, ANA.name]));
    // What privacy:export prints (the CLI, as an operator runs it) holds all of it.
    const printed = runCli(app.env, ["privacy:export", "--email", ANA.email.toUpperCase()]);
    expect(printed.code, printed.out).toBe(0);
    before = JSON.parse(printed.stdout) as Awaited<ReturnType<typeof exportSubject>>;
    expect(before.payments.map((payment) => payment.chargeId).sort()).toEqual([mpPaymentId, pagarmeCharge, stripeCharge].sort());
    expect(before.events).toHaveLength(6);
    expect(before.archiveEntries).toHaveLength(2);
    expect(JSON.stringify(before.archiveEntries)).toContain(ANA.cpfFormatted);
    expect(before.identifiers).toEqual(expect.arrayContaining([ANA.cpf, ANA.stripeCustomer, ANA.pagarmeCustomer, ANA.mpPayer]));
    expect(before.changes.length).toBeGreaterThanOrEqual(5);
    expect(before.deliveries.length).toBeGreaterThanOrEqual(5);
    expect(before.signatureFailures).toHaveLength(1);
    // What support did about her: the bulk replay's run and its audit entry, with the filter as typed.
    expect(before.mentions.replayRuns).toEqual([expect.objectContaining({ filter: expect.objectContaining({ customer: ANA.email }) })]);
    expect(before.mentions.auditEntries).toEqual([expect.objectContaining({ action: "replay", actor: "support@example.com" })]);
    expect(JSON.stringify(before.deliveries)).toContain(`customer ${ANA.email} updated`);
    history = (await app.pool.query("SELECT payment_id, from_status, to_status, to_amount_refunded FROM payment_transitions ORDER BY id"))
      .rows;
    bob = await bobsRows();
    expect(JSON.stringify(bob)).toContain(BOB.name);
    expect(await searchesFind()).toBeGreaterThanOrEqual(6);
  });

  it("redacts them everywhere, killed halfway and rerun, keeping the money and the history", async () => {
    const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
    // The dry run first: what it says would change is what the erasure changes.
    const preview = await previewErasure(deps, { email: ANA.email });
    // Asked as the host API asks: the row and its job, in one transaction.
    erasureId = await startErasure({ ...deps, boss: app.boss }, { email: ANA.email }, { name: "test" });
    await expect(
      executeErasure(deps, erasureId, (step) => {
        if (step === "archive_files") throw new Error("killed");
      }),
    ).rejects.toThrow("killed");
    expect((await getErasure(app.pool, erasureId))!.status).toBe("running");
    // Asked again for the same person, the unfinished erasure is the answer, and it finishes.
    expect(await startErasure(deps, { email: ANA.email }, { name: "test" })).toBe(erasureId);
    await runJob(erasuresJob, processDeps(app, config), { erasureId });
    const erasure = (await getErasure(app.pool, erasureId))!;
    expect(erasure.status).toBe("done");
    // The Mercado Pago notice names nobody: three of the four bodies in the rows change.
    expect(erasure.counts).toMatchObject({
      inbox_events: 3,
      archived_events: 2,
      payments: 3,
      signature_failures: 1,
      customer_emails: 1,
      replay_runs: 1,
      audit_log: 1,
    });
    expect(erasure.counts.delivery_attempts).toBeGreaterThanOrEqual(6);
    const changed = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
    expect(changed(erasure.counts)).toEqual(changed(preview.counts));
    expect(preview.payments.map((payment) => payment.chargeId).sort()).toEqual([mpPaymentId, pagarmeCharge, stripeCharge].sort());
    expect(erasure.payments).toHaveLength(3);

    // One customer.erased message for the erasure, listing its three payments; the feed's entry is the same change.
    await waitFor(
      async () => receiver.received.some((message) => message.type === "customer.erased") || null,
      30_000,
      "customer.erased pushed",
    );
    await fanOutChanges(app.pool);
    const erased = receiver.received.filter((message) => message.type === "customer.erased");
    expect(erased).toHaveLength(1);
    const notice = erased[0]!.change;
    expect(notice.erasure).toEqual({ id: String(erasureId), payments: expect.any(Array) });
    expect(notice.erasure!.payments.map((payment) => payment.chargeId).sort()).toEqual([mpPaymentId, pagarmeCharge, stripeCharge].sort());
    expect(notice.customer.email).toBe(REDACTED);
    // As docs/openapi.json describes the message (its timestamp is the change's commit, as pushed).
    expect(openApiChecker().message("customer.erased", { type: "customer.erased", timestamp: notice.committedAt, data: notice })).toEqual(
      [],
    );
    const feed = createChangeFeed(app.pool);
    // A reader filtered to one gateway and a status none of its payments has still gets it.
    const filtered = await readChangeFeed(
      feed,
      changeFeedQuerySchema.parse({ provider: "mercadopago", status: "charged_back", limit: "1000" }),
    );
    expect(filtered.data).toEqual([{ ...notice, committedAt: expect.any(String) }]);
    expect((await readChangeFeed(feed, changeFeedQuerySchema.parse({ limit: "1000" }))).data.filter((change) => change.erasure)).toEqual(
      filtered.data,
    );

    expect(leaks(dump())).toEqual([]);
    expect(leaks(archiveText())).toEqual([]);
    // No search finds her by a part of an identifier any more (the indexes hold only what the rows do).
    expect(await searchesFind()).toBe(0);
    // The feed still lists every version of her payments (and the erasure's one), each customer redacted.
    const versions = (await readChangeFeed(feed, changeFeedQuerySchema.parse({ limit: "1000" }))).data.filter((change) =>
      [stripeCharge, pagarmeCharge, mpPaymentId].includes(change.chargeId),
    );
    expect(versions).toHaveLength(before.changes.length + 1);
    expect(versions.every((change) => change.customer.email === REDACTED && change.customer.id === REDACTED)).toBe(true);
    // The money and the history stay.
    expect(
      (await app.pool.query("SELECT payment_id, from_status, to_status, to_amount_refunded FROM payment_transitions ORDER BY id")).rows,
    ).toEqual(history);
    const { rows: payments } = await app.pool.query(
      "SELECT gateway_charge_id, status, amount, amount_refunded, customer_email FROM payments WHERE gateway_charge_id = ANY($1) ORDER BY id",
      [[stripeCharge, pagarmeCharge, mpPaymentId]],
    );
    expect(payments.map((payment) => [payment.status, Number(payment.amount_refunded) > 0, payment.customer_email])).toEqual([
      ["partially_refunded", true, REDACTED],
      ["refunded", true, REDACTED],
      ["paid", false, REDACTED],
    ]);
    const { rows: redactedRows } = await app.pool.query(
      "SELECT original_sha256, signature_verified_at FROM webhook_inbox WHERE provider = 'pagarme' OR resource_id = $1",
      [stripeCharge],
    );
    expect(redactedRows.every((row) => row.original_sha256 && row.signature_verified_at)).toBe(true);
    // The event page says so: what the original proved, its digest for a role that sees bytes only.
    const { rows: pagarmeEvent } = await app.pool.query<{ id: number; original_sha256: string }>(
      "SELECT id, original_sha256 FROM webhook_inbox WHERE provider = 'pagarme' AND archived_at IS NULL ORDER BY id LIMIT 1",
    );
    const shown = async (role: "admin" | "viewer") => (await getEventView(app.pool, role, pagarmeEvent[0]!.id, "UTC"))!.event.redaction;
    expect(await shown("admin")).toEqual({
      at: expect.any(Date),
      originalSha256: pagarmeEvent[0]!.original_sha256,
      signatureVerifiedAt: expect.any(Date),
    });
    expect((await shown("viewer"))!.originalSha256).toBeNull();
    // Another customer is untouched.
    expect((await app.pool.query("SELECT customer_email FROM payments WHERE gateway_charge_id = $1", [bobCharge])).rows).toEqual([
      { customer_email: BOB.email },
    ]);
    expect(await bobsRows()).toEqual(bob);
  });

  it("changes nothing the second time, and exports nothing after", async () => {
    const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
    const snapshot = { tables: dump(...ERASED_TABLES), archive: archiveText() };
    const again = (await executeErasure(deps, await startErasure(deps, { email: ANA.email }, { name: "test" })))!;
    expect(Object.values(again.counts).every((count) => count === 0)).toBe(true);
    const printed = runCli(app.env, ["privacy:export", "--email", ANA.email]);
    expect(printed.code, printed.out).toBe(0);
    const after = JSON.parse(printed.stdout) as Awaited<ReturnType<typeof exportSubject>>;
    expect([after.payments, after.events, after.changes, after.deliveries, after.archiveEntries, after.signatureFailures]).toEqual([
      [],
      [],
      [],
      [],
      [],
      [],
    ]);
    expect(after.mentions).toEqual({ auditEntries: [], replayRuns: [], processingErrors: [] });
    expect((await exportSubject(deps, { document: ANA.cpfFormatted }, { name: "test" })).events).toEqual([]);
    expect({ tables: dump(...ERASED_TABLES), archive: archiveText() }).toEqual(snapshot);
  });

  it("restores a rewritten archive and replays a redacted event to settled", async () => {
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE archived_at IS NOT NULL ORDER BY id");
    expect((await restoreArchivedEvents({ pool: app.pool, config }, { ids: rows.map((row) => row.id) }, { actor: "test" })).restored).toBe(
      2,
    );
    const replayed = await replayEvents(
      { pool: app.pool, boss: app.boss, config },
      { statuses: ["processed"], provider: "pagarme" },
      { actor: "test" },
    );
    expect(replayed.total).toBeGreaterThan(0);
    const { rows: pending } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE status = 'pending'");
    const outcomes = await processEvents(
      processDeps(app, config),
      pending.map((row) => row.id),
    );
    expect(outcomes.every((outcome) => outcome === "processed" || outcome === "ignored")).toBe(true);
    expect(leaks(dump())).toEqual([]);
  });

  it("stores a later delivery for the erased person already redacted", async () => {
    await ingest(pagarmeWebhook(pagarmeCharge, "charge.refunded"));
    await ingest(stripeWebhook(randomId("ch"), { ...ANA, customer: ANA.stripeCustomer }, "succeeded", Date.now()));
    expect(leaks(dump())).toEqual([]);
    const { rows } = await app.pool.query(
      "SELECT count(*)::int AS n FROM webhook_inbox WHERE redacted_at IS NOT NULL AND received_at > now() - interval '1 minute'",
    );
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
  });

  it("ends an erasure whose job ran out of retries failed, its scope cleared, audited with why", async () => {
    const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
    const id = await startErasure(deps, { email: "nobody.here@example.com" }, { name: "test" });
    await expect(
      executeErasure(deps, id, (step) => {
        if (step === "payments") throw new Error("disk full near nobody.here@example.com");
      }),
    ).rejects.toThrow(`disk full near ${REDACTED}`);
    await failAbandonedErasure(app.pool, id);
    const { rows } = await app.pool.query(
      "SELECT status, scope, error, finished_at IS NOT NULL AS finished FROM privacy_erasures WHERE id = $1",
      [id],
    );
    expect(rows).toEqual([{ status: "failed", scope: null, error: `disk full near ${REDACTED}`, finished: true }]);
    const { rows: audit } = await app.pool.query("SELECT details FROM audit_log WHERE action = 'privacy_erasure' ORDER BY id DESC LIMIT 1");
    expect(audit[0].details).toMatchObject({ erasure: id, failed: `disk full near ${REDACTED}` });
    expect(JSON.stringify(rows) + JSON.stringify(audit)).not.toContain("nobody.here");
  });

  it("never wrote any of their identifiers to the logs", () => {
    const entries = logLines.map((line) => JSON.parse(line) as { component?: string; msg?: string });
    // The lines are there to be read: each path this file drove logged its own.
    expect([...new Set(entries.map((entry) => entry.component))]).toEqual(expect.arrayContaining(["ingest", "worker", "retention"]));
    expect(entries.filter((entry) => entry.msg === "webhook answered").length).toBeGreaterThanOrEqual(8);
    const text = logLines.join("");
    expect(leaks(text)).toEqual([]);
    expect(text).not.toContain(ANA.mpPayer);
  });
});
