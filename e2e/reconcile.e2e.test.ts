import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openBrowser, screenshot, signIn } from "./harness/browser";
import { createUser } from "@/lib/auth/users";
import {
  checkFinalStates,
  sendAll,
  historiesAsSent,
  httpSender,
  planWebhooks,
  postWebhook,
  stripeEventsOf,
  withholdWebhooks,
} from "./simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "./simulator/fake-gateway";
import type { SigningSecret, SimulatedProvider } from "@/lib/testing/gateway-events";
import { generateHistories } from "./simulator/history";
import { runScript } from "@/lib/testing/cli-process";

// A gateway that stopped sending, seen from outside: the simulator withholds 10% of each
// gateway's events (every copy) and sends the rest in any order to `next start` and a real worker;
// then the operator's CLI reconciles against the fake gateway's list APIs. Every payment must end in
// its true state with nothing failed, and a second run must find nothing. ~60 s in all.

const PAYMENTS = 30;
const GATEWAYS = ["stripe", "mercadopago", "asaas", "pagarme", "zoop"] as const satisfies readonly SimulatedProvider[];
const SHARED_SECRETS = {
  stripe: TEST_SECRETS.stripe,
  mercadopago: "mp_e2e_webhook_secret",
  asaas: "asaas_e2e_webhook_token",
  zoop: "zoop:e2e-basic-pass",
};

let app: TestApp;
let gateway: FakeGateway;
let server: AppServer;
let env: Record<string, string>;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  gateway = await startFakeGateway();
  app = await createTestApp("reconcile_e2e", {});
  env = {
    DATABASE_URL: app.db.url,
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    ...fakeGatewayEnv(gateway.url),
    WEBHOOK_SECRET_STRIPE: SHARED_SECRETS.stripe,
    WEBHOOK_SECRET_MERCADOPAGO: SHARED_SECRETS.mercadopago,
    WEBHOOK_SECRET_ASAAS: SHARED_SECRETS.asaas,
    WEBHOOK_SECRET_ZOOP: SHARED_SECRETS.zoop,
    PAGARME_SIGNATURES: "rs256",
    // The simulated payments are not registered by a host application: their gateways' events create them.
    PAYMENT_SOURCE_MERCADOPAGO: "gateway",
    PAYMENT_SOURCE_ASAAS: "gateway",
    PAYMENT_SOURCE_PAGARME: "gateway",
    PAYMENT_SOURCE_ZOOP: "gateway",
    // Runs here are the operator's: the worker's schedule stays off so none races them.
    ...Object.fromEntries(GATEWAYS.map((name) => [`RECONCILE_INTERVAL_MINUTES_${name.toUpperCase()}`, "0"])),
    RECONCILE_LAG_SECONDS: "0",
    WORKER_RETRY_DELAYS_SECONDS: "1",
  };
  server = await startAppServer(env);
  for (const role of ["finance", "viewer"] as const)
    await createUser(app.prisma, { email: `${role}@reconcile.test`, role, password: PASSWORD }, "e2e");
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
  await gateway?.close();
});

const CONSOLE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

/** `npm run cli -- reconcile ...` as an operator runs it, against the app's database and gateways. */
function cli(args: string[]): Promise<{ code: number; output: string }> {
  return runScript("worker/cli.ts", args, env);
}

async function drained(provider: string) {
  await waitFor(
    async () => {
      const { rows } = await app.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_inbox WHERE provider = $1 AND status = 'pending'",
        [provider],
      );
      return rows[0]!.n === 0;
    },
    60_000,
    `${provider}'s events settled`,
  );
}

async function failedCount(provider: string): Promise<number> {
  const { rows } = await app.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_inbox WHERE provider = $1 AND status = 'failed'",
    [provider],
  );
  return rows[0]!.n;
}

describe("[OPERATOR][RECONCILE]: a gateway that withheld 10% of its webhooks", () => {
  it.each(GATEWAYS)("%s: one run brings every payment to its true state, 0 failed; a second finds nothing", async (provider) => {
    const seed = 4200 + GATEWAYS.indexOf(provider);
    const histories = generateHistories(seed, PAYMENTS, [provider], { startMs: Date.now() - 2 * 3_600_000, spreadMs: 3_600_000 });
    const secrets: Partial<Record<SimulatedProvider, SigningSecret>> = { ...SHARED_SECRETS, pagarme: gateway.pagarmeKey };
    const plan = planWebhooks(histories, { secrets, duplicateRate: 0.2, shuffle: "full", seed });
    gateway.addEvents(stripeEventsOf(plan));
    const { toSend, withheld } = withholdWebhooks(plan, 0.1, seed);
    expect(withheld.length).toBeGreaterThan(0);
    // While the withheld notices were due, the gateway's API showed each payment as of the last one it sent.
    gateway.add(historiesAsSent(histories, toSend));
    const report = await sendAll(toSend, httpSender(server.url), { concurrency: 8, secrets });
    expect(report.failed).toBe(0);
    await drained(provider);
    gateway.add(histories);

    const read = async (history: (typeof histories)[number]) => {
      const { rows } = await app.pool.query<{ status: string; amountRefunded: number }>(
        `SELECT status, amount_refunded AS "amountRefunded" FROM payments WHERE provider = $1 AND gateway_charge_id = $2`,
        [provider, history.payment.chargeId],
      );
      return rows[0] ?? null;
    };
    const since = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const before = await checkFinalStates(histories, read);
    const first = await cli(["reconcile", "--provider", provider, "--since", since]);
    expect(first.code, first.output).toBe(0);
    await drained(provider);
    const check = await checkFinalStates(histories, read);
    // Pagar.me can list a charge refunded in full after capture with no trace of the capture; when
    // every notice that said the money was taken (its charge.paid and its charge.refunded) was
    // withheld, neither the charge nor the ledger can tell, and the payment stays canceled with
    // nothing refunded (docs/reconciliation.md). Only that.
    const unexplained = check.mismatches.filter(
      (mismatch) => !(provider === "pagarme" && mismatch.expected.startsWith("refunded/") && mismatch.actual === "canceled/0"),
    );
    expect(unexplained, JSON.stringify(check.mismatches)).toEqual([]);
    expect(await failedCount(provider)).toBe(0);
    console.log(
      `${provider}: ${withheld.length} of ${new Set(plan.map((webhook) => webhook.eventId)).size} events withheld, ` +
        `${before.mismatches.length} of ${PAYMENTS} payments wrong before reconciling; ${first.output.trim().split("\n")[0]}`,
    );
    // The withholding made a difference the run had to repair.
    expect(before.mismatches.length).toBeGreaterThan(0);

    const second = await cli(["reconcile", "--provider", provider, "--since", since]);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toMatch(/ingested 0 missed events, repaired 0 payments/);

    if (provider === "stripe") {
      // The gateway's late webhook of an event reconciliation already ingested: 200, a duplicate.
      const late = withheld[0]!;
      const response = await postWebhook(server.url, late);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ received: true, duplicate: true });
    }
  });
});

describe("[FINANCE][RECONCILE]: the Reconciliation page and what it recovered, in Chromium", () => {
  it("previews, runs (audited) and lists runs; a recovered event and its payment say so", async () => {
    const histories = generateHistories(4300, 4, ["stripe"], { startMs: Date.now() - 3_600_000, spreadMs: 600_000 });
    gateway.add(histories);
    const plan = planWebhooks(histories, { secrets: SHARED_SECRETS, duplicateRate: 0, shuffle: "none", seed: 4300 });
    gateway.addEvents(stripeEventsOf(plan));
    // Nothing sent at all: every event is one the gateway never sent.
    const events = new Set(plan.map((webhook) => webhook.eventId)).size;

    const context = await openBrowser();
    try {
      const page = await signIn(context, server.url, "finance@reconcile.test", PASSWORD);
      await page.goto(`${server.url}/reconciliation`);
      await page.getByRole("link", { name: "Reconciliation", exact: true }).waitFor();
      await page.getByLabel("Gateway").selectOption("stripe");
      await page.getByLabel("Since").fill(new Date(Date.now() - 2 * 3_600_000).toISOString());
      await page.getByRole("button", { name: "Preview" }).click();
      await page.getByTestId("reconcile-result").getByText("Preview (nothing written)").waitFor();
      expect(await page.getByTestId("reconcile-missing").textContent()).toBe(String(events));
      // The window is written like every console time (zone named), not as raw ISO.
      const windowTimes = await page.getByTestId("reconcile-result").locator("p time").allTextContents();
      expect(windowTimes).toEqual([expect.stringMatching(CONSOLE_TIME), expect.stringMatching(CONSOLE_TIME)]);
      expect(await page.getByTestId("reconcile-result").textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
      const runsBefore = await page.getByTestId("reconcile-run").count();
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page
        .getByTestId("reconcile-result")
        .getByText(/^Run #\d+/)
        .waitFor();
      expect(await page.getByTestId("reconcile-missing").textContent()).toBe(String(events));
      await waitFor(async () => (await page.getByTestId("reconcile-run").count()) === runsBefore + 1, 10_000, "the new run listed");
      await screenshot(page, "reconciliation");
      const audit = await app.pool.query("SELECT actor FROM audit_log WHERE action = 'reconcile' AND actor = 'finance@reconcile.test'");
      expect(audit.rows).toHaveLength(1);

      await drained("stripe");
      const { rows } = await app.pool.query<{ id: string; payment_id: string }>(
        `SELECT w.id, p.id AS payment_id FROM webhook_inbox w JOIN payments p ON p.provider = w.provider AND p.gateway_charge_id = w.resource_id
          WHERE w.source = 'reconcile' AND w.resource_id = $1 LIMIT 1`,
        [histories[0]!.payment.chargeId],
      );
      await page.goto(`${server.url}/events/${rows[0]!.id}`);
      expect(await page.getByTestId("recovered-label").first().textContent()).toMatch(/recovered by reconciliation on \S/);
      await page.goto(`${server.url}/payments/${rows[0]!.payment_id}`);
      expect(await page.getByTestId("recovered-label").first().textContent()).toMatch(/recovered by reconciliation on \S/);
      await screenshot(page, "payment-recovered");

      const viewer = await signIn(await openBrowser(), server.url, "viewer@reconcile.test", PASSWORD);
      expect((await viewer.goto(`${server.url}/reconciliation`))?.status()).toBe(403);
      await viewer.context().close();
    } finally {
      await context.close();
    }
  });
});

describe("[AVAILABILITY][RECONCILE]: a gateway answering a 400 MB list page to the console's Preview", () => {
  it("the worker stops reading at the bound and says so; the web process never reads it and stays up", async () => {
    let sent = 0;
    const MB = 1024 * 1024;
    const piece = `{"id":"evt_padding","type":"charge.succeeded","pad":"${"a".repeat(MB)}"},`;
    gateway.intercept((path) =>
      path.startsWith("/v1/events")
        ? {
            status: 200,
            body: Readable.from(
              (function* () {
                yield '{"object":"list","has_more":false,"data":[';
                for (; sent < 400 * MB; sent += piece.length) yield piece;
                yield "{}]}";
              })(),
            ),
          }
        : undefined,
    );
    const context = await openBrowser();
    try {
      const page = await signIn(context, server.url, "finance@reconcile.test", PASSWORD);
      await page.goto(`${server.url}/reconciliation`);
      await page.getByLabel("Gateway").selectOption("stripe");
      await page.getByLabel("Since").fill(new Date(Date.now() - 3_600_000).toISOString());
      await page.getByRole("button", { name: "Preview" }).click();
      await page.getByTestId("reconcile-result").getByText("Preview (nothing written)").waitFor({ timeout: 60_000 });
      expect(await page.getByTestId("reconcile-result").textContent()).toContain("answered more than 8388608 bytes to GET /v1/events");
      // A few MB in flight beyond the bound, not the whole page.
      expect(sent).toBeLessThan(64 * MB);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      expect(() => process.kill(server.pids.web, 0)).not.toThrow();
    } finally {
      gateway.intercept(null);
      await context.close();
    }
  });
});
