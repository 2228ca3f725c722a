import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { declineReasonJsonSql } from "@/lib/outbox/payment-change";
import { resendDeliveries } from "@/lib/destinations/resend-deliveries";
import { sendTestMessage } from "@/lib/destinations/send-test-message";
import { generateSecret, signedHeaders } from "@/lib/destinations/sign-message";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, stopChild, type AppServer } from "./harness/app-server";
import { blocksRunBy, type DocBlock } from "./harness/doc-blocks";
import { generateHistories } from "./simulator/history";
import { httpSender, planWebhooks, sendAll } from "./simulator/send-webhooks";

// [HOST][DOCS] The receiver docs/host-integration.md gives, exactly as written: its three blocks run
// in an empty directory (npm init and install, receiver.js, the command that starts it), the app's
// destination pointed at it, a simulator run sent through the app, every delivery sent again, Send
// test pressed, a forged message and one that makes its handler throw. The receiver's own output
// and files are the evidence: each push verified, each change applied once, the process alive.

const DOC = "docs/host-integration.md";
const TOKEN = "e2e-receiver-doc-token-0123456789";
let app: TestApp;
let server: AppServer;
let receiver: ChildProcess;
let dir: string;
let url: string;
let output = "";
const secret = generateSecret();

async function runShell(block: DocBlock, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn("bash", ["-c", block.code], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.on("data", (chunk) => (text += String(chunk)));
  child.stderr.on("data", (chunk) => (text += String(chunk)));
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  if (code !== 0) throw new Error(`${block.file}:${block.line} exited ${code}:\n${text}`);
  return text;
}

const lines = (pattern: RegExp) => [...output.matchAll(pattern)].map((match) => match[1]!);

beforeAll(async () => {
  const blocks = blocksRunBy("e2e/host-receiver-doc.e2e.test.ts", DOC);
  expect(blocks.map(({ language }) => language)).toEqual(["sh", "js", "sh"]);
  const [install, code, start] = blocks as [DocBlock, DocBlock, DocBlock];
  dir = mkdtempSync(join(tmpdir(), "host-receiver-doc-"));
  await runShell(install, dir);
  // The doc says "Save this as `receiver.js`" and starts it with `node receiver.js`.
  expect(readFileSync(DOC, "utf8")).toContain("Save this as `receiver.js`:");
  writeFileSync(join(dir, "receiver.js"), code.code);
  // The start command with the destination's secret where the doc shows its placeholder.
  expect(start.code).toContain("PAYMENTS_WEBHOOK_SECRET=whsec_... node receiver.js");
  const port = await freePort();
  receiver = spawn("bash", ["-c", start.code.replace("whsec_...", secret)], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  receiver.stdout!.on("data", (chunk) => (output += String(chunk)));
  receiver.stderr!.on("data", (chunk) => (output += String(chunk)));
  url = `http://127.0.0.1:${port}/webhooks`;
  await waitFor(async () => output.includes(`receiver on http://localhost:${port}/webhooks`), 30_000, `the receiver to listen:\n${output}`);

  app = await createTestApp("host_receiver_doc");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    WEBHOOK_SECRET_STANDARD: TEST_SECRETS.standard,
    REFETCH_STRIPE: "none",
    REFETCH_STANDARD: "none",
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    PAYMENTS_API_TOKENS: TOKEN,
    DESTINATION_URL: url,
    DESTINATION_SECRET: secret,
    DESTINATION_TIMEOUT_MS: "1000",
    DESTINATION_RETRY_DELAYS_SECONDS: "0.2,0.5,1,1,1,1,1,1,1,1,1,1,1,1,1",
    DESTINATION_BREAKER_COOLDOWN_SECONDS: "1",
  });
});
afterAll(async () => {
  await server?.stop();
  if (receiver) await stopChild(receiver);
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function count(sql: string): Promise<number> {
  return (await app.pool.query<{ n: number }>(sql)).rows[0]!.n;
}

async function allDelivered(what: string): Promise<number> {
  const changes = await count("SELECT count(*)::int AS n FROM payment_changes");
  await waitFor(
    async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'")) === changes,
    120_000,
    `${what}: all ${changes} changes delivered`,
  );
  return changes;
}

const hostPayments = () =>
  JSON.parse(readFileSync(join(dir, "payments.json"), "utf8")) as Record<
    string,
    { version: number; status: string; amountRefunded: number; declineReason: { code: string | null; message: string | null } | null }
  >;

describe("[HOST][DOCS] the documented receiver, pasted as written", () => {
  const histories = generateHistories(3131, 40, ["stripe", "standard"], { sameSecondRate: 0 });

  it("verifies every push of a simulator run and applies each change once; the receiver's payments end in their true states", async () => {
    const plan = planWebhooks(histories, { secrets: TEST_SECRETS, duplicateRate: 0.3, shuffle: "full", seed: 31 });
    expect((await sendAll(plan, httpSender(server.url), { concurrency: 8, secrets: TEST_SECRETS })).failed).toBe(0);
    // Stopped for a moment mid-run: answers time out, the app sends again what the receiver had already handled.
    await waitFor(async () => lines(/^handled (chg_\d+)/gm).length >= 10 || null, 60_000, "deliveries under way");
    process.kill(-receiver.pid!, "SIGSTOP");
    await new Promise((resume) => setTimeout(resume, 2500));
    process.kill(-receiver.pid!, "SIGCONT");
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'")) === 0,
      120_000,
      "inbox drained",
    );
    await allDelivered("the run");

    const { rows } = await app.pool.query<{ id: string }>("SELECT 'chg_' || id AS id FROM payment_changes ORDER BY id");
    const handled = lines(/^handled (chg_\d+) payment\.updated$/gm);
    expect([...handled].sort()).toEqual(rows.map(({ id }) => id).sort());
    expect(lines(/^(rejected|failed) /gm)).toEqual([]);

    const { rows: payments } = await app.pool.query<{
      key: string;
      version: number;
      status: string;
      amount: number;
      amountRefunded: number;
      currency: string;
      customerEmail: string | null;
      declineReason: { code: string | null; message: string | null } | null;
    }>(
      `SELECT provider || '/' || gateway_charge_id AS key, version, status, amount, amount_refunded AS "amountRefunded", currency,
              customer_email AS "customerEmail", ${declineReasonJsonSql("decline_reason")} AS "declineReason"
         FROM payments`,
    );
    const host = hostPayments();
    for (const { key, ...payment } of payments) expect(host[key], key).toEqual(payment);
    for (const history of histories) {
      expect(host[`${history.provider}/${history.payment.chargeId}`], history.payment.chargeId).toMatchObject(history.truth);
    }
    console.log(
      `[receiver doc] ${rows.length} changes handled once; ${lines(/^duplicate (chg_\d+)/gm).length} repeats recognised during the stop`,
    );
  });

  it("recognises every change sent again as a duplicate and changes nothing", async () => {
    const before = hostPayments();
    const repeatsBefore = lines(/^duplicate (chg_\d+)/gm).length;
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM destinations");
    // Every delivery made resendable, then resent as the console's "Resend all" does: same webhook-id each.
    await app.pool.query("UPDATE deliveries SET status = 'dead' WHERE status = 'delivered'");
    const resent = await resendDeliveries(app.pool, { destinationId: rows[0]!.id }, { actor: "e2e" });
    expect(resent).toBe(await count("SELECT count(*)::int AS n FROM payment_changes"));
    await allDelivered("the resend");
    await waitFor(async () => lines(/^duplicate (chg_\d+)/gm).length - repeatsBefore >= resent || null, 30_000, "the repeats logged");
    expect(lines(/^duplicate (chg_\d+)/gm).length - repeatsBefore).toBe(resent);
    expect(hostPayments()).toEqual(before);
  });

  it("acknowledges Send test, refuses a forged message (400), answers 500 to one that makes it throw, and keeps running", async () => {
    // The receiver prints after it answers, and its output reaches us later still: poll for each line.
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM destinations");
    const test = await sendTestMessage(app.pool, app.config.destinations, rows[0]!.id, { actor: "e2e" });
    expect(test?.statusCode).toBe(204);
    await expect.poll(() => output).toMatch(/^handled test_[\w-]+ destination\.test$/m);

    const post = (body: string, headers: Record<string, string>) => fetch(url, { method: "POST", headers, body });
    const broken = JSON.stringify({ type: "payment.updated", timestamp: new Date().toISOString(), data: null });
    const forged = signedHeaders("chg_forged", broken, [generateSecret()]);
    expect((await post(broken, forged)).status).toBe(400);
    await expect.poll(() => output).toContain("rejected chg_forged: the signature did not verify");
    // Signed with the right secret, but the handler throws on it (no data): 500, the process lives on.
    expect((await post(broken, signedHeaders("chg_broken", broken, [secret]))).status).toBe(500);
    await expect.poll(() => output).toMatch(/^failed chg_broken: /m);
    const later = JSON.stringify({ type: "destination.test", timestamp: new Date().toISOString(), data: { id: "test_after" } });
    expect((await post(later, signedHeaders("test_after", later, [secret]))).status).toBe(204);
    await expect.poll(() => output).toMatch(/^handled test_after destination\.test$/m);
    expect(receiver.exitCode).toBeNull();
  });
});
