import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { webhookFor, randomId, type SignedWebhook, type PaymentFacts } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import type { AppConfig } from "../../config/env";
import { readManifest, sha256Hex } from "./archive-files";
import { previewRetention, runRetention } from "./archive-settled-events";
import { createGatewayClients } from "../../http/gateway-clients";
import { ingestEvent } from "../ingest/ingest-event";
import { processEvent } from "../process/process-event";
import { replayEvents } from "../replay/replay-events";
import { restoreArchivedEvents } from "./restore-archived-events";

// Retention end to end on a real database and real files: archive, purge, resend, restore, replay.

let app: TestApp;
let archiveDir: string;
let config: AppConfig;

beforeAll(async () => {
  app = await createTestApp("retention");
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, processing_attempts, payment_transitions, audit_log CASCADE");
  archiveDir = await mkdtemp(join(tmpdir(), "inbox-archive-"));
  config = testConfig(app.env, { ARCHIVE_DIR: archiveDir, RETENTION_DAYS: "90", RETENTION_BATCH_SIZE: "3" });
  return () => rm(archiveDir, { recursive: true, force: true });
});

const deps = () => ({ pool: app.pool, boss: app.boss, config });
const processDeps = () => ({ ...deps(), gateways: createGatewayClients(config), workerId: "test" });

function payment(): PaymentFacts {
  return { chargeId: randomId("ch"), amount: 1500, currency: "usd", customerId: "cus_r", customerEmail: "r@example.com" };
}

async function ingest(webhook: SignedWebhook) {
  return ingestEvent(deps(), { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers });
}

/** Ingests, processes and back-dates one event; returns its id and exact bytes. */
async function settledEvent(daysAgo: number) {
  const webhook = webhookFor(
    "stripe",
    payment(),
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 60_000 },
    TEST_SECRETS.stripe,
  );
  const outcome = await ingest(webhook);
  if (outcome.kind !== "stored") throw new Error("not stored");
  expect(await processEvent(processDeps(), outcome.inboxId)).toBe("processed");
  await app.pool.query(`UPDATE webhook_inbox SET received_at = now() - make_interval(days => $2) WHERE id = $1`, [
    outcome.inboxId,
    daysAgo,
  ]);
  return { id: outcome.inboxId, webhook, bytes: Buffer.from(webhook.body) };
}

async function row(id: number) {
  const { rows } = await app.pool.query(
    "SELECT status, raw_body, payload, headers, archived_at, archive_file, archive_sha256, attempts FROM webhook_inbox WHERE id = $1",
    [id],
  );
  return rows[0];
}

describe("retention", () => {
  it("archives settled events, purges them, keeps dedupe, restores exact bytes and replays", async () => {
    const old = await Promise.all([settledEvent(120), settledEvent(120), settledEvent(100), settledEvent(95)]);
    const recent = await settledEvent(10);
    // As an older version under the default umask left it.
    await chmod(archiveDir, 0o755);
    // Old but not settled: pending and failed are never archived.
    const pending = await settledEvent(200);
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending', processed_at = NULL WHERE id = $1", [pending.id]);
    const failed = await settledEvent(200);
    await app.pool.query("UPDATE webhook_inbox SET status = 'failed' WHERE id = $1", [failed.id]);
    const paymentsBefore = await app.pool.query("SELECT id, status FROM payments ORDER BY id");

    const preview = await previewRetention(deps());
    expect(preview).toMatchObject({ events: 4, byProvider: { stripe: 4 } });
    expect(preview.bytes).toBe(old.reduce((sum, event) => sum + event.bytes.length, 0));

    const result = await runRetention(deps());
    expect(result).toMatchObject({ events: 4, skipped: false });
    expect(result.batches).toBe(2);

    for (const event of old) {
      const archived = await row(event.id);
      expect(archived).toMatchObject({ status: "processed", raw_body: null, payload: null, headers: {}, attempts: 1 });
      expect(archived.archived_at).toBeInstanceOf(Date);
      expect(archived.archive_sha256).toBe(sha256Hex(event.bytes));
    }
    for (const kept of [recent, pending, failed]) expect((await row(kept.id)).raw_body).toEqual(kept.bytes);
    expect((await app.pool.query("SELECT id, status FROM payments ORDER BY id")).rows).toEqual(paymentsBefore.rows);

    // The files: gzip members listed in a manifest with checksums, one file per provider per day.
    const file = (await row(old[0]!.id)).archive_file as string;
    expect(file).toMatch(/^stripe\/\d{4}-\d{2}-\d{2}\.ndjson\.gz$/);
    // Payloads hold card numbers and e-mails: the archive is the owner's alone.
    expect((await stat(join(archiveDir, file))).mode & 0o777).toBe(0o600);
    expect((await stat(join(archiveDir, file.replace(".ndjson.gz", ".manifest.ndjson")))).mode & 0o777).toBe(0o600);
    expect((await stat(archiveDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(archiveDir, file, ".."))).mode & 0o777).toBe(0o700);
    const manifest = await readManifest(archiveDir, file);
    const data = await readFile(join(archiveDir, file));
    expect(manifest.reduce((sum, entry) => sum + entry.bytes, 0)).toBe(data.length);
    for (const entry of manifest) expect(sha256Hex(data.subarray(entry.offset, entry.offset + entry.bytes))).toBe(entry.sha256);
    expect(gunzipSync(data).toString()).not.toContain(String(pending.id) + ',"provider"');

    // A resend of an archived event is still a duplicate.
    expect(await ingest(old[0]!.webhook)).toEqual({ kind: "duplicate", duplicate: true });

    // Nothing left to archive: a second run is a no-op.
    expect((await runRetention(deps())).events).toBe(0);

    // Restore by id gives back the exact bytes.
    expect(await restoreArchivedEvents(deps(), { ids: [old[0]!.id] }, { actor: "ops@example.com" })).toEqual({ restored: 1 });
    const restored = await row(old[0]!.id);
    expect(sha256Hex(restored.raw_body)).toBe(sha256Hex(old[0]!.bytes));
    expect(restored.raw_body).toEqual(old[0]!.bytes);
    expect(restored.archived_at).toBeNull();
    expect(restored.payload).toMatchObject({ id: JSON.parse(old[0]!.webhook.body).id });
    expect(restored.headers).toHaveProperty("stripe-signature");

    // Replay of an archived event restores it first, then it processes again.
    const replayed = await replayEvents(deps(), { ids: [old[1]!.id], statuses: ["processed"] }, { actor: "finance@example.com" });
    expect(replayed.total).toBe(1);
    expect((await row(old[1]!.id)).raw_body).toEqual(old[1]!.bytes);
    expect(await processEvent(processDeps(), old[1]!.id)).toBe("processed");

    // Restore by provider and day range; audited.
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
    const ranged = await restoreArchivedEvents(deps(), { provider: "stripe", from: day(121), to: day(94) }, { actor: "cli:ops" });
    expect(ranged.restored).toBe(2);
    const { rows: audits } = await app.pool.query("SELECT action, actor FROM audit_log WHERE action = 'restore' ORDER BY id");
    expect(audits).toEqual([
      { action: "restore", actor: "ops@example.com" },
      { action: "restore", actor: "cli:ops" },
    ]);
  });

  it("refuses to restore bytes that don't match their checksum", async () => {
    const event = await settledEvent(100);
    await runRetention(deps());
    const file = (await row(event.id)).archive_file as string;
    const data = await readFile(join(archiveDir, file));
    const at = data.length - 5;
    data.writeUInt8(data.readUInt8(at) ^ 0xff, at);
    await writeFile(join(archiveDir, file), data);
    await expect(restoreArchivedEvents(deps(), { ids: [event.id] }, { actor: "ops", ip: "192.0.2.7" })).rejects.toThrow(/checksum/);
    expect((await row(event.id)).raw_body).toBeNull();
    const { rows: audit } = await app.pool.query("SELECT action, ip, details FROM audit_log WHERE actor = 'ops' ORDER BY id DESC LIMIT 1");
    expect(audit[0]).toMatchObject({ action: "restore_failed", ip: "192.0.2.7", details: { ids: [event.id], count: 0 } });
    expect(audit[0].details.error).toMatch(/checksum/);
  });

  it("the database refuses a pending row without its payload", async () => {
    const event = await settledEvent(100);
    await runRetention(deps());
    await expect(app.pool.query("UPDATE webhook_inbox SET status = 'pending' WHERE id = $1", [event.id])).rejects.toThrow(/archived_check/);
  });

  it("a dry run changes nothing, and only one run holds the lock", async () => {
    const event = await settledEvent(100);
    expect(await runRetention(deps(), { dryRun: true })).toMatchObject({ dryRun: true, events: 1 });
    expect((await row(event.id)).raw_body).toEqual(event.bytes);
    const holder = await app.pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(72310557)");
      expect(await runRetention(deps())).toMatchObject({ skipped: true, events: 0 });
    } finally {
      await holder.query("SELECT pg_advisory_unlock(72310557)");
      holder.release();
    }
    expect((await runRetention(deps())).events).toBe(1);
  });
});
