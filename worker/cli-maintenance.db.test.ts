import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@/lib/testing/cli-process";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The operator CLI's maintenance commands (retention, restore, sweep) as operators run them: a
// process, against DATABASE_URL, archiving to a directory of this file's own.

let app: TestApp;
const archiveDir = mkdtempSync(join(tmpdir(), "cli-archive-"));
const cli = (...args: string[]) => runCli({ ...app.env, USER: "ops", ARCHIVE_DIR: archiveDir }, args);

beforeAll(async () => {
  app = await createTestApp("cli_maintenance");
});
afterAll(async () => {
  await app.close();
  rmSync(archiveDir, { recursive: true, force: true });
});

// Each test starts the CLI up to four times, one after the other: on a loaded machine a start alone
// can take tens of seconds.
describe("npm run cli, maintenance", { timeout: 240_000 }, () => {
  it("retention archives old settled payloads and restore brings them back", async () => {
    const { rows } = await app.pool.query<{ id: number }>(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, processed_at, raw_body)
       VALUES ('stripe', 'old-1', 'charge.succeeded', 'processed', now() - interval '200 days', now(), '\\x7b7d') RETURNING id`,
    );
    const id = rows[0]!.id;
    expect(cli("retention", "--dry-run").out).toMatch(/would archive 1 event, 2 raw bytes, received before .* \(stripe: 1\)/);
    expect(cli("retention").out).toMatch(/archived and purged 1 event,/);
    expect((await app.pool.query("SELECT raw_body FROM webhook_inbox WHERE id = $1", [id])).rows[0].raw_body).toBeNull();
    expect(cli("restore", "--id", String(id)).out).toContain("restored 1 archived event");
    expect((await app.pool.query("SELECT raw_body FROM webhook_inbox WHERE id = $1", [id])).rows[0].raw_body).toEqual(Buffer.from("{}"));
    const bad = cli("restore", "--provider", "stripe", "--from", "yesterday");
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("restore needs --id N, or --provider P --from YYYY-MM-DD --to YYYY-MM-DD");
  });

  it("sweep re-dispatches stale pending events through the sweeper's run, and refuses a negative age", async () => {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
       VALUES ('stripe', 'stale-1', 'charge.succeeded', 'pending', now() - interval '1 hour', '\\x00')`,
    );
    const jobs = async () => (await app.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhooks'")).rows[0].n;
    const before = await jobs();
    const { rows } = await app.pool.query("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'");
    expect(rows[0].n).toBeGreaterThan(0);
    expect(cli("sweep", "--stale-minutes", "30").out).toContain(
      `re-dispatched ${rows[0].n} stale pending event${rows[0].n === 1 ? "" : "s"}`,
    );
    expect(await jobs()).toBe(before + rows[0].n);
    expect(cli("sweep", "--stale-minutes", "30").out).toContain("re-dispatched 0 stale pending events");
    await app.pool.query("DELETE FROM webhook_inbox WHERE event_id = 'stale-1'");
    expect(cli("sweep", "--stale-minutes=-1")).toMatchObject({
      code: 1,
      out: expect.stringContaining("--stale-minutes must be a number >= 0"),
    });
  });
});
