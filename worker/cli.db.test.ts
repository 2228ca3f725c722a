import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@/lib/testing/cli-process";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The operator CLI as operators run it: a process, against a database given by DATABASE_URL. Its
// users and maintenance commands are in cli-users and cli-maintenance, so the three files (each
// starting the CLI a dozen times) run side by side.

let app: TestApp;
const cli = (...args: string[]) => runCli({ ...app.env, USER: "ops" }, args);

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
    expect(result.out).toContain("would replay 2 events (stripe: 2)");
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
    expect(result.out).toContain("replayed 3 events");
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
});
