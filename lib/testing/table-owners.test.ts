import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// Table ownership (TABLE_OWNERS and the rule `tables/owner-writes` in eslint.config.js): each form
// SQL takes here, written in the wrong room, fails; the same text in its owner's room and plain reads
// pass; and the tree has no write outside its table's owner.

const root = fileURLToPath(new URL("../..", import.meta.url));
const RULE = "tables/owner-writes";
// Only this rule, without type information: building the TypeScript program is what takes time.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === RULE,
});

async function ownerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  expect(result!.messages.filter((message) => message.fatal)).toEqual([]);
  return result!.messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

const query = (sql: string) => `export const run = (tx: { query(sql: string): unknown }) => tx.query(\`${sql}\`);\n`;

describe("table ownership", () => {
  it("gives every table the migrations create one owner, a room of lib/", async () => {
    const configUrl = pathToFileURL(join(root, "eslint.config.js")).href;
    const { TABLE_OWNERS } = (await import(configUrl)) as { TABLE_OWNERS: Record<string, string> };
    const migrations = join(root, "prisma/migrations");
    const created = readdirSync(migrations)
      .filter((entry) => existsSync(join(migrations, entry, "migration.sql")))
      .flatMap((entry) => [...readFileSync(join(migrations, entry, "migration.sql"), "utf8").matchAll(/^CREATE TABLE (\w+)/gm)])
      .map(([, table]) => (table!.startsWith("webhook_inbox_") ? "webhook_inbox_*" : table!));
    expect(created.length).toBeGreaterThan(20);
    for (const table of created) expect(TABLE_OWNERS, table).toHaveProperty([table]);
    for (const owner of new Set(Object.values(TABLE_OWNERS))) expect(existsSync(join(root, "lib", owner)), owner).toBe(true);
  });

  it("refuses a write outside its table's owner in each form SQL takes", async () => {
    const cases: [file: string, code: string, tables: string, owner: string][] = [
      // What registration did before the inbox's door: a CTE's UPDATE, one room below the inbox.
      [
        "lib/payments/register-payment.ts",
        query(`WITH woken AS (UPDATE webhook_inbox SET next_attempt_at = NULL WHERE status = 'pending' RETURNING id) SELECT id FROM woken`),
        "webhook_inbox",
        "inbox",
      ],
      // UPDATE ... FROM writes its target, not what it reads.
      [
        "lib/inbox/process/x.ts",
        query(`UPDATE payments p SET status = 'paid' FROM webhook_inbox w WHERE w.resource_id = p.gateway_charge_id`),
        "payments",
        "payments",
      ],
      // An upsert, from a constant rather than a query call.
      [
        "lib/payments/x.ts",
        "export const SQL = `INSERT INTO payment_changes (payment_id) VALUES ($1)\n  ON CONFLICT (payment_id) DO UPDATE SET feed_position = NULL`;\n",
        "payment_changes",
        "outbox",
      ],
      ["lib/destinations/x.ts", 'export const SQL = "DELETE\\n  FROM\\n  audit_log WHERE id = $1";\n', "audit_log", "audit"],
      [
        "lib/reconcile/x.ts",
        query(`MERGE INTO payments p USING (VALUES (1)) v(id) ON p.id = v.id WHEN MATCHED THEN DELETE`),
        "payments",
        "payments",
      ],
      [
        "lib/console/x.ts",
        query(`TRUNCATE TABLE ONLY deliveries, delivery_attempts CASCADE`),
        "deliveries,delivery_attempts",
        "destinations",
      ],
      ["lib/alerts/x.ts", query(`copy "public"."payments" (id, status) from stdin`), "payments", "payments"],
      ["lib/alerts/x.ts", query(`update only "reconcile_runs" set finished_at = now()`), "reconcile_runs", "reconcile"],
      // A name built at run time counts as one of the inbox's partitions.
      ["lib/destinations/x.ts", "export const sql = (table: string) => `INSERT INTO ${table} SELECT 1`;\n", "webhook_inbox_*", "inbox"],
      ["lib/console/x.ts", query(`DELETE FROM webhook_inbox_default WHERE id = 1`), "webhook_inbox_*", "inbox"],
      ["lib/runtime/x.ts", "export const f = (prisma: any) => prisma.user.updateMany({ data: {} });\n", "users", "auth"],
      ["lib/auth/x.ts", query(`UPDATE worker_heartbeats SET seen_at = now()`), "worker_heartbeats", "inbox"],
      ["lib/payments/fix.sql", "-- a data fix\nUPDATE webhook_inbox SET status = 'pending';\n", "webhook_inbox", "inbox"],
    ];
    for (const [file, code, tables, owner] of cases) {
      const room = /^lib\/([^/]+)\//.exec(file)![1];
      expect(await ownerErrors(file, code), code).toEqual(
        tables
          .split(",")
          .map(
            (table) =>
              `lib/${room} writes ${table}, which lib/${owner} owns (TABLE_OWNERS, eslint.config.js): call lib/${owner}'s function, or let it take a callback.`,
          ),
      );
      // The same text in the owner's room passes.
      expect(await ownerErrors(file.replace(`lib/${room}/`, `lib/${owner}/`), code), code).toEqual([]);
    }
    expect(await ownerErrors("app/api/x/route.ts", query(`INSERT INTO audit_log (action) VALUES ('x')`))).toEqual([
      "app writes audit_log, which lib/audit owns (TABLE_OWNERS, eslint.config.js): call lib/audit's function, or let it take a callback.",
    ]);
  });

  it("lets every room read: row locks, keys' actions, comments, quoted text and prose are not writes", async () => {
    const reads = [
      query(`SELECT id FROM payments WHERE id = $1 FOR UPDATE`),
      query(`SELECT id FROM webhook_inbox FOR NO KEY UPDATE SKIP LOCKED`),
      query(`SELECT 1 FROM payments p JOIN payment_changes c ON c.payment_id = p.id FOR UPDATE OF p`),
      query(`ALTER TABLE deliveries ADD FOREIGN KEY (destination_id) REFERENCES destinations ON UPDATE CASCADE ON DELETE CASCADE`),
      query(`SELECT 1 -- then UPDATE payments\nFROM audit_log WHERE action = 'DELETE FROM payments'`),
      'export const help = "Update the destination\'s URL, then delete from the list";\n',
    ];
    for (const code of reads) expect(await ownerErrors("lib/console/x.ts", code), code).toEqual([]);
  });

  it("finds no write outside its table's owner in app/, lib/ and worker/", async () => {
    const results = await eslint.lintFiles(["app", "lib", "worker", "*.ts"]);
    const linted = results.map((result) => result.filePath.slice(root.length));
    expect(linted).toEqual(expect.arrayContaining(["lib/inbox/process/wake-waiting-events.ts", "lib/payments/register-payment.ts"]));
    expect(linted.length).toBeGreaterThan(300);
    const errors = results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === RULE || message.fatal)
        .map((message) => `${result.filePath}:${message.line} ${message.message}`),
    );
    expect(errors).toEqual([]);
    // Parsing every file of the tree takes a minute on a loaded 2-core machine.
  }, 240_000);
});
