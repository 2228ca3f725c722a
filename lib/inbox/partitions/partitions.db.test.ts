import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signedWebhook, stripeEvent } from "@/lib/testing/gateway-events";
import { ingestEvent, type IngestOutcome } from "@/lib/inbox/ingest/ingest-event";
import { clearInbox, createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { archiveInboxPartition, archiveOldPartitions } from "./archive-inbox-partition";
import { ensureInboxPartitions } from "./ensure-inbox-partitions";
import { countStrayEvents, listInboxPartitions } from "./list-inbox-partitions";
import { restoreInboxPartition } from "./restore-inbox-partition";

// The partitioned inbox on a database of this file's own: the ledger decides duplicates across
// partitions, and a whole month leaves (archive + detach) and comes back (restore) while ingest runs.

let app: TestApp;
let archiveDir: string;

beforeAll(async () => {
  app = await createTestApp("partitions");
  archiveDir = await mkdtemp(join(tmpdir(), "inbox-partitions-"));
});
afterAll(async () => {
  await app.close();
  await rm(archiveDir, { recursive: true, force: true });
});
beforeEach(async () => clearInbox(app));

/** Sends one signed Stripe event as if it arrived at `at` (the row's received_at). */
function sendWebhook(eventId: string, at: Date, chargeId = `ch_${eventId}`): Promise<IngestOutcome> {
  const facts = { chargeId, amount: 1000, currency: "usd", customerId: "cus_p", customerEmail: "p@example.com" };
  const event = stripeEvent(facts, { kind: "succeeded", amountRefunded: 0, occurredAtMs: at.getTime() - 1000 }, eventId);
  const webhook = signedWebhook("stripe", eventId, JSON.stringify(event), TEST_SECRETS.stripe, Math.floor(at.getTime() / 1000));
  return ingestEvent(
    { pool: app.pool, boss: app.boss, config: app.config, now: () => at },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
}

async function rowsOf(eventId: string): Promise<{ id: number; partition: string; raw_body: Buffer | null }[]> {
  const { rows } = await app.pool.query<{ id: number; partition: string; raw_body: Buffer | null }>(
    "SELECT id, tableoid::regclass::text AS partition, raw_body FROM webhook_inbox WHERE event_id = $1",
    [eventId],
  );
  return rows;
}

async function jobsFor(eventIds: string[]): Promise<number> {
  const { rows } = await app.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job j JOIN webhook_inbox w ON w.id = (j.data->>'inboxId')::bigint
      WHERE j.name = 'webhooks' AND w.event_id = ANY($1)`,
    [eventIds],
  );
  return rows[0]!.n;
}

const NOW = new Date();
const monthStart = (offset: number) => new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth() + offset, 1));

describe("the dedupe ledger", () => {
  it("calls a resend a month later a duplicate, though it would land in another partition", async () => {
    const first = await sendWebhook("evt_month_apart", new Date(monthStart(0).getTime() - 3 * 24 * 3600_000));
    expect(first).toMatchObject({ kind: "stored" });
    const resend = await sendWebhook("evt_month_apart", new Date(monthStart(0).getTime() + 27 * 24 * 3600_000));
    expect(resend).toEqual({ kind: "duplicate", duplicate: true });
    const rows = await rowsOf("evt_month_apart");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.partition).not.toBe(`webhook_inbox_p${monthStart(0).toISOString().slice(0, 7).replace("-", "")}`);
    expect(await jobsFor(["evt_month_apart"])).toBe(1);
  });

  it("makes one row of concurrent webhooks of one event on both sides of a month boundary", async () => {
    const boundary = monthStart(0).getTime();
    const ids = Array.from({ length: 12 }, (_, index) => `evt_boundary_${index}`);
    // Every other event comes first from after the boundary: the copy that arrives first is the one
    // stored (group commit keeps arrival order), so the stored rows land on both sides.
    const outcomes = await Promise.all(
      ids.flatMap((id, index) => {
        const times = [boundary - 1, boundary, boundary + 1];
        return (index % 2 === 0 ? times : times.reverse()).map((time) => sendWebhook(id, new Date(time)));
      }),
    );
    expect(outcomes.filter((outcome) => outcome.kind === "stored")).toHaveLength(ids.length);
    expect(outcomes.filter((outcome) => outcome.kind === "duplicate")).toHaveLength(ids.length * 2);
    for (const id of ids) expect(await rowsOf(id)).toHaveLength(1);
    const partitions = new Set((await Promise.all(ids.map(rowsOf))).map((rows) => rows[0]!.partition));
    expect(partitions.size).toBe(2);
    expect(await jobsFor(ids)).toBe(ids.length);
  });
});

describe("partitions ahead and strays", () => {
  it("creates months ahead once, and moves rows that waited in the default partition into their month", async () => {
    const far = new Date(Date.UTC(NOW.getUTCFullYear() + 3, 5, 15));
    expect(await sendWebhook("evt_stray", far)).toMatchObject({ kind: "stored" });
    expect(await countStrayEvents(app.pool)).toBe(1);
    const created = await ensureInboxPartitions(app.pool, { now: far, monthsAhead: 1 });
    expect(created).toHaveLength(2);
    expect(await ensureInboxPartitions(app.pool, { now: far, monthsAhead: 1 })).toEqual([]);
    expect(await countStrayEvents(app.pool)).toBe(0);
    expect((await rowsOf("evt_stray"))[0]!.partition).toBe(created[0]);
    const listed = await listInboxPartitions(app.pool);
    expect(listed.filter((partition) => created.includes(partition.name)).map((partition) => partition.state)).toEqual([
      "attached",
      "attached",
    ]);
  });
});

describe("archiving a month", () => {
  it("archives and detaches an old partition while ingest runs, and a restore brings its events back", async () => {
    const old = await listInboxPartitions(app.pool);
    const target = old.find((partition) => partition.state === "attached" && partition.to <= monthStart(0))!;
    const oldIds = Array.from({ length: 30 }, (_, index) => `evt_old_${index}`);
    for (const [index, id] of oldIds.entries()) {
      expect(await sendWebhook(id, new Date(target.to.getTime() - (index + 1) * 3600_000))).toMatchObject({ kind: "stored" });
    }
    const before = await app.pool.query(
      "SELECT id, raw_body, payload, headers, received_at FROM webhook_inbox WHERE event_id = ANY($1) ORDER BY id",
      [oldIds],
    );

    // Pending events hold a partition in place: retention never drops unsettled work.
    expect(await archiveInboxPartition({ pool: app.pool, archiveDir }, target.name, { name: "ops" })).toEqual({
      name: target.name,
      outcome: "unsettled",
    });
    await app.pool.query("UPDATE webhook_inbox SET status = 'processed', processed_at = now() WHERE event_id = ANY($1)", [oldIds]);

    let ingesting = true;
    const live: IngestOutcome[] = [];
    const ingestLoop = (async () => {
      for (let index = 0; ingesting || index < 20; index += 1) live.push(await sendWebhook(`evt_live_${index}`, new Date()));
    })();
    const archived = await archiveInboxPartition({ pool: app.pool, archiveDir }, target.name, { name: "ops" });
    ingesting = false;
    await ingestLoop;

    expect(archived).toMatchObject({ outcome: "archived", rows: oldIds.length });
    const archiveAudit = await app.pool.query(
      "SELECT actor, details FROM audit_log WHERE action = 'archive' AND details->>'partition' = $1",
      [target.name],
    );
    expect(archiveAudit.rows).toEqual([
      {
        actor: "ops",
        details: { partition: target.name, rows: oldIds.length, file: archived.outcome === "archived" ? archived.file : null },
      },
    ]);
    expect(live.every((outcome) => outcome.kind === "stored")).toBe(true);
    const { rows: liveRows } = await app.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_inbox WHERE event_id LIKE 'evt_live_%'",
    );
    expect(liveRows[0]!.n).toBe(live.length);
    expect(await rowsOf(oldIds[0]!)).toEqual([]);
    expect((await listInboxPartitions(app.pool)).find((partition) => partition.name === target.name)).toMatchObject({
      state: "archived",
      rows: oldIds.length,
    });
    // Its month can't be recreated empty over the archive's record.
    await expect(ensureInboxPartitions(app.pool, { now: new Date(target.to.getTime() - 1), monthsAhead: 0 })).rejects.toThrow(
      /was archived: restore it/,
    );
    // The ledger kept the keys: a resend of an archived event is still a duplicate.
    expect(await sendWebhook(oldIds[0]!, new Date())).toEqual({ kind: "duplicate", duplicate: true });

    expect(await restoreInboxPartition({ pool: app.pool, archiveDir }, target.name, { actor: "ops@example.com" })).toEqual({
      restored: oldIds.length,
    });
    const after = await app.pool.query(
      "SELECT id, raw_body, payload, headers, received_at FROM webhook_inbox WHERE event_id = ANY($1) ORDER BY id",
      [oldIds],
    );
    expect(after.rows).toEqual(before.rows);
    expect((await rowsOf(oldIds[1]!))[0]!.partition).toBe(target.name);
    expect(await sendWebhook(oldIds[1]!, new Date())).toEqual({ kind: "duplicate", duplicate: true });
    const { rows: audit } = await app.pool.query("SELECT details FROM audit_log WHERE action = 'restore'");
    expect(audit).toEqual([{ details: { partition: target.name, count: oldIds.length } }]);
  });

  it("archives, on retention's schedule, only the months that ended before the cutoff", async () => {
    const partitions = await listInboxPartitions(app.pool);
    const ended = partitions
      .filter((partition) => partition.state === "attached" && partition.to <= monthStart(0))
      .map((partition) => partition.name);
    expect(ended.length).toBeGreaterThan(0);
    expect(await sendWebhook("evt_retained_old", new Date(monthStart(0).getTime() - 3600_000))).toMatchObject({ kind: "stored" });
    expect(await sendWebhook("evt_retained_now", new Date())).toMatchObject({ kind: "stored" });
    await app.pool.query("UPDATE webhook_inbox SET status = 'processed', processed_at = now()");
    const outcomes = await archiveOldPartitions({ pool: app.pool, archiveDir }, monthStart(0), { name: "retention" });
    expect(outcomes.map((outcome) => [outcome.name, outcome.outcome])).toEqual(ended.map((name) => [name, "archived"]));
    expect(await rowsOf("evt_retained_old")).toEqual([]);
    expect(await rowsOf("evt_retained_now")).toHaveLength(1);
    for (const name of ended) await restoreInboxPartition({ pool: app.pool, archiveDir }, name, { actor: "ops@example.com" });
  });
});
