import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { createUser } from "@/lib/auth/users";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The operator CLI as operators run it: a process, against a database given by DATABASE_URL.

let app: TestApp;
const archiveDir = mkdtempSync(join(tmpdir(), "cli-archive-"));

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "worker/cli.ts", ...args], {
    env: { ...process.env, ...app.env, USER: "ops", ARCHIVE_DIR: archiveDir },
    encoding: "utf8",
  });
  return { code: result.status, out: result.stdout + result.stderr };
}

beforeAll(async () => {
  app = await createTestApp("cli");
  for (let i = 0; i < 5; i++) {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, raw_body)
       VALUES ($1, $2, $3, $4, $5, '\\x00')`,
      [
        i < 3 ? "stripe" : "standard",
        `e${i}`,
        i === 0 ? "charge.refunded" : "charge.succeeded",
        i % 2 === 0 ? "failed" : "ignored",
        `2026-01-0${i + 1}T00:00:00Z`,
      ],
    );
  }
});
afterAll(async () => {
  await app.close();
  rmSync(archiveDir, { recursive: true, force: true });
});

// Each test starts the CLI up to four times, one after the other: on a loaded machine a start alone
// can take tens of seconds.
describe("npm run cli", { timeout: 240_000 }, () => {
  it("prints the help made from its command table for an unknown command", () => {
    const result = cli("no-such-command");
    expect(result.code).toBe(2);
    expect(result.out).toMatch(/^usage: npm run cli -- <command> \[options\]\n/);
    for (const name of ["migrate", "replay", "sweep", "retention", "restore", "partitions:archive", "reconcile", "user:reset-password"]) {
      expect(result.out).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
    expect(result.out).toContain("      --since T --until T   received in [T, T) (ISO-8601)\n");
    expect(result.out).toMatch(/--provider P {10}the gateway \(stripe, [a-z, ]+; standard: stuck payments only\)/);
  });

  it("replay --dry-run counts without changing anything", () => {
    const result = cli("replay", "--provider", "stripe", "--status", "failed", "--dry-run");
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toContain("would replay 2 event(s) (stripe: 2)");
  });

  it("replay puts matching events back to pending, dispatches them and audits it", async () => {
    const result = cli(
      "replay",
      "--status",
      "failed,ignored",
      "--since",
      "2026-01-02T00:00:00Z",
      "--until",
      "2026-01-05T00:00:00Z",
      "--type",
      "charge.succeeded",
    );
    expect(result.out).toContain("replayed 3 event(s)");
    const { rows } = await app.pool.query("SELECT event_id FROM webhook_inbox WHERE status = 'pending' ORDER BY event_id");
    expect(rows.map((row) => row.event_id)).toEqual(["e1", "e2", "e3"]);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhooks'")).rows[0].n).toBe(3);
    const { rows: audit } = await app.pool.query("SELECT actor, details->>'count' AS count FROM audit_log WHERE action = 'replay'");
    expect(audit).toEqual([{ actor: expect.stringMatching(/^cli:/), count: "3" }]);
  });

  it("rejects a bad status with a clear message", () => {
    const result = cli("replay", "--status", "lost");
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/statuses\.0: Invalid option/);
  });

  it("user:create adds a user and prints a generated password once", async () => {
    const result = cli("user:create", "--email", "New@Example.com", "--role", "support");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/created support new@example.com with password: \S{24}/);
    expect(cli("user:create", "--email", "new@example.com", "--role", "admin").out).toContain("already exists");
    expect(cli("user:create", "--email", "x@example.com", "--role", "root").code).toBe(1);
  });

  it("retention archives old settled payloads and restore brings them back", async () => {
    const { rows } = await app.pool.query<{ id: number }>(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, received_at, processed_at, raw_body)
       VALUES ('stripe', 'old-1', 'charge.succeeded', 'processed', now() - interval '200 days', now(), '\\x7b7d') RETURNING id`,
    );
    const id = rows[0]!.id;
    expect(cli("retention", "--dry-run").out).toMatch(/would archive 1 event\(s\), 2 raw bytes, received before .* \(stripe: 1\)/);
    expect(cli("retention").out).toMatch(/archived and purged 1 event\(s\)/);
    expect((await app.pool.query("SELECT raw_body FROM webhook_inbox WHERE id = $1", [id])).rows[0].raw_body).toBeNull();
    expect(cli("restore", "--id", String(id)).out).toContain("restored 1 archived event(s)");
    expect((await app.pool.query("SELECT raw_body FROM webhook_inbox WHERE id = $1", [id])).rows[0].raw_body).toEqual(Buffer.from("{}"));
    const bad = cli("restore", "--provider", "stripe", "--from", "yesterday");
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("restore needs --id N, or --provider P --from YYYY-MM-DD --to YYYY-MM-DD");
  });

  it("user:reset-password prints a new password once, ends sessions and audits it", async () => {
    await createUser(app.prisma, { email: "lost@example.com", role: "admin", password: "the first long password" }, "test");
    const before = (await app.pool.query("SELECT password_hash, session_version FROM users WHERE email = 'lost@example.com'")).rows[0];
    const result = cli("user:reset-password", "--email", "LOST@example.com");
    expect(result.code).toBe(0);
    const password = /new password for lost@example.com: (\S{24})\n/.exec(result.out)?.[1];
    expect(password).toBeDefined();
    const after = (await app.pool.query("SELECT password_hash, session_version FROM users WHERE email = 'lost@example.com'")).rows[0];
    expect(after.session_version).toBe(before.session_version + 1);
    expect(await verifyPassword(password!, after.password_hash)).toBe(true);
    expect(await verifyPassword("the first long password", after.password_hash)).toBe(false);
    const { rows: audit } = await app.pool.query("SELECT actor, details FROM audit_log WHERE action = 'password_reset'");
    expect(audit).toEqual([{ actor: expect.stringMatching(/^cli:/), details: { email: "lost@example.com" } }]);
    expect(cli("user:reset-password", "--email", "nobody@example.com")).toMatchObject({ code: 1, out: expect.stringContaining("no user") });
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
    expect(cli("sweep", "--stale-minutes", "30").out).toContain(`re-dispatched ${rows[0].n} stale pending event(s)`);
    expect(await jobs()).toBe(before + rows[0].n);
    expect(cli("sweep", "--stale-minutes", "30").out).toContain("re-dispatched 0 stale pending event(s)");
    await app.pool.query("DELETE FROM webhook_inbox WHERE event_id = 'stale-1'");
    expect(cli("sweep", "--stale-minutes=-1")).toMatchObject({
      code: 1,
      out: expect.stringContaining("--stale-minutes must be a number >= 0"),
    });
  });
});
