import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../config/env";
import { ingestEvent } from "../inbox/ingest/ingest-event";
import { archiveInboxPartition } from "../inbox/partitions/archive-inbox-partition";
import { listInboxPartitions } from "../inbox/partitions/list-inbox-partitions";
import { restoreInboxPartition } from "../inbox/partitions/restore-inbox-partition";
import { runRetention } from "../inbox/retention/archive-settled-events";
import { restoreArchivedEvents } from "../inbox/retention/restore-archived-events";
import { randomId, signedWebhook, stripeEvent } from "../testing/gateway-events";
import { archiveText as archiveTextOf } from "../testing/archive-text";
import { createTestApp, TEST_SECRETS, type TestApp } from "../testing/test-app";
import { testConfig } from "../testing/test-worker";
import { executeErasure, previewErasure, startErasure } from "./erasures";
import { exportSubject } from "./export-subject";

// What only the archive files hold: a subject in a whole month archived by RETENTION_PARTITION_MONTHS
// (the partition's rows are dropped) and a subject named only by a document inside a retention
// archive's body. Export finds both, erasure rewrites both files (checksums updated), and the
// restores still verify and bring back the redacted rows.

const HASH_KEY = "archives-test-hash-key-0123456789abcdef";
const DORA = { email: "dora.arquivada@example.com", customer: "cus_DoraArquivada", name: "Dora Arquivada" };
const EVA_CPF = "529.982.247-25";
const OTHER = { email: "otto.kept@example.com", customer: "cus_OttoKept", name: "Otto Kept" };

let app: TestApp;
let config: AppConfig;
let archiveDir: string;

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), "privacy-archives-"));
  app = await createTestApp("privacy_archives", { PRIVACY_HASH_KEY: HASH_KEY, ARCHIVE_DIR: archiveDir, RETENTION_DAYS: "1" });
  config = testConfig(app.env, {});
});
afterAll(async () => app?.close());

/** Stores a processed Stripe charge event received at `at`, its description saying `description`. */
async function store(
  who: { email: string; customer: string; name: string },
  at: Date,
  description: string,
  billing: Record<string, unknown> = {},
): Promise<number> {
  const event = stripeEvent(
    { chargeId: randomId("ch"), amount: 2500, currency: "brl", customerId: who.customer, customerEmail: who.email },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: at.getTime() - 1000 },
  );
  Object.assign(event.data.object as Record<string, unknown>, {
    description,
    billing_details: { name: who.name, email: who.email, ...billing },
  });
  const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe, Math.floor(at.getTime() / 1000));
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config, now: () => at },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${outcome.kind}`);
  await app.pool.query("UPDATE webhook_inbox SET status = 'processed', processed_at = received_at WHERE id = $1", [outcome.inboxId]);
  return outcome.inboxId;
}

const archiveText = () => archiveTextOf(archiveDir);

describe("erasing what only the archives hold", () => {
  const deps = () => ({ pool: app.pool, archiveDir, hashKey: HASH_KEY });
  let partition: string;

  it("finds a subject of an archived month, and one named only by a document in a retention archive's body", async () => {
    const target = (await listInboxPartitions(app.pool)).find(
      (candidate) => candidate.state === "attached" && candidate.to.getTime() < Date.now() - 2 * 24 * 3600_000,
    )!;
    partition = target.name;
    const inMonth = new Date(target.to.getTime() - 24 * 3600_000);
    await store(DORA, inMonth, "Pedido 1");
    await store(OTHER, inMonth, "Pedido 2");
    expect(await archiveInboxPartition({ pool: app.pool, archiveDir }, partition, { name: "ops" })).toMatchObject({
      outcome: "archived",
      rows: 2,
    });
    // Eva is named by nobody's column: only her CPF, inside the body that retention archives.
    await store({ email: "", customer: "cus_Anon", name: "" }, new Date(Date.now() - 2 * 24 * 3600_000), `Nota fiscal CPF ${EVA_CPF}`);
    expect((await runRetention({ pool: app.pool, config })).events).toBe(1);
    expect(archiveText()).toContain(DORA.email);
    expect(archiveText()).toContain(EVA_CPF);

    const dora = await exportSubject(deps(), { email: DORA.email }, { name: "test" });
    expect(dora.archiveEntries).toEqual([expect.objectContaining({ partition, provider: "stripe" })]);
    expect(JSON.stringify(dora.archiveEntries)).toContain(DORA.name);
    expect(dora.identifiers).toContain(DORA.customer);
    const eva = await exportSubject(deps(), { document: EVA_CPF }, { name: "test" });
    expect(eva.archiveEntries).toHaveLength(1);
    expect(JSON.stringify(eva.archiveEntries)).toContain(EVA_CPF);
    expect((await previewErasure(deps(), { email: DORA.email })).counts).toMatchObject({ partition_events: 1, partition_archives: 1 });
  });

  it("rewrites the partition's file and the retention archive; both restores verify and bring back redacted rows", async () => {
    const doraErasure = (await executeErasure(deps(), await startErasure(deps(), { email: DORA.email }, { name: "test" })))!;
    expect(doraErasure.counts).toMatchObject({ partition_events: 1, partition_archives: 1 });
    const evaErasure = (await executeErasure(deps(), await startErasure(deps(), { document: EVA_CPF }, { name: "test" })))!;
    expect(evaErasure.counts).toMatchObject({ archived_events: 1, archive_files: 1 });
    const text = archiveText();
    for (const identifier of [DORA.email, DORA.customer, DORA.name, EVA_CPF]) expect(text, identifier).not.toContain(identifier);
    expect(text).toContain(OTHER.email);
    // One file per archive: the replaced ones are gone.
    expect(readdirSync(join(archiveDir, "partitions")).filter((name) => name.endsWith(".ndjson.gz"))).toHaveLength(1);
    // Run again: nothing changes.
    const again = (await executeErasure(deps(), await startErasure(deps(), { email: DORA.email }, { name: "test" })))!;
    expect(again.counts.partition_events ?? 0).toBe(0);

    expect(await restoreInboxPartition({ pool: app.pool, archiveDir }, partition, { actor: "ops" })).toEqual({ restored: 2 });
    const { rows } = await app.pool.query(
      `SELECT customer_email, payload::text LIKE '%' || $1 || '%' AS names, original_sha256 IS NOT NULL AS proved, redacted_at IS NOT NULL AS redacted
         FROM ${partition} ORDER BY id`,
      [DORA.name],
    );
    expect(rows).toEqual([
      { customer_email: "[redacted]", names: false, proved: true, redacted: true },
      { customer_email: OTHER.email, names: false, proved: false, redacted: false },
    ]);
    const { rows: archived } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE archived_at IS NOT NULL");
    expect(
      (await restoreArchivedEvents({ pool: app.pool, config }, { ids: archived.map((row) => row.id) }, { actor: "ops" })).restored,
    ).toBe(1);
    expect(
      (await app.pool.query("SELECT payload::text FROM webhook_inbox WHERE id = $1", [archived[0]!.id])).rows[0].payload,
    ).not.toContain(EVA_CPF);
  });

  it("follows what a retention archive's body names: a later delivery naming only its CPF is stored redacted, one sharing its zip code is not", async () => {
    const fia = { email: "fia.arquivada@example.com", customer: "cus_FiaArquivada", name: "Fia Arquivada" };
    const cpf = "111.444.777-35";
    const address = { line1: "Avenida Paulista 1000", postal_code: "01310-100", city: "São Paulo", country: "BR" };
    const fiaId = await store(fia, new Date(Date.now() - 2 * 24 * 3600_000), "Pedido 3", {
      tax_id: cpf,
      phone: "+55 11 98888-7777",
      address,
    });
    await runRetention({ pool: app.pool, config });
    expect((await app.pool.query("SELECT payload FROM webhook_inbox WHERE id = $1 AND archived_at IS NOT NULL", [fiaId])).rows).toEqual([
      { payload: null },
    ]);
    // Erased by her e-mail: the CPF and phone only her archived body holds are hers too.
    const found = await exportSubject(deps(), { email: fia.email }, { name: "test" });
    expect(found.identifiers).toEqual(expect.arrayContaining([cpf, "+55 11 98888-7777"]));
    const erasure = (await executeErasure(deps(), await startErasure(deps(), { email: fia.email }, { name: "test" })))!;
    expect(erasure.counts).toMatchObject({ archived_events: 1, archive_files: 1 });
    expect(archiveText()).not.toContain(cpf);

    const laterId = await store({ email: "fia.nova@example.com", customer: "cus_FiaNova", name: "F. A." }, new Date(), "Pedido 4", {
      tax_id: cpf.replace(/\D/g, ""),
    });
    const neighbourId = await store(OTHER, new Date(), "Pedido 5", { address });
    const { rows } = await app.pool.query<{ id: number; redacted: boolean; body: string }>(
      "SELECT id, redacted_at IS NOT NULL AS redacted, convert_from(raw_body, 'UTF8') AS body FROM webhook_inbox WHERE id = ANY($1::bigint[]) ORDER BY id",
      [[laterId, neighbourId]],
    );
    expect(rows.map((row) => [row.redacted, row.body.includes(cpf.replace(/\D/g, "")), row.body.includes(OTHER.email)])).toEqual([
      [true, false, false],
      [false, false, true],
    ]);
  });
});
