import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openBrowser, screenshot, signIn } from "./harness/browser";
import { sendAll, httpSender, planWebhooks } from "./simulator/send-webhooks";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "./simulator/fake-gateway";
import { generateHistories } from "./simulator/history";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { signStripe } from "@/lib/providers/stripe";

// What support and finance quote and ask, on the simulator's data, in Chromium at 1440 and 390 px:
// the end or the middle of an id finds its events and the page says what it searched; a viewer's
// e-mail search is refused in words (page and CSV); payments refunded in the last 24 hours, and
// their CSV with the refund dates, UTF-8 behind a BOM, named after the filter; a bulk replay's
// dry-run counts before its confirmation and rows, and its run running until its events settle;
// support told who replays a failed event; a declined charge says why beside its status.

const PASSWORD = "correct horse battery staple";
const SUPPORT = "support@support.test";
const FINANCE = "finance@support.test";
const VIEWER = "viewer@support.test";
const WIDTHS = [1440, 390] as const;
const secrets = { stripe: TEST_SECRETS.stripe, standard: TEST_SECRETS.standard };

let app: TestApp;
let server: AppServer;
let gateway: FakeGateway;
const contexts: BrowserContext[] = [];

async function browserAs(user: string, width: number): Promise<Page> {
  const context = await openBrowser({ width, height: 900 });
  contexts.push(context);
  return signIn(context, server.url, user, PASSWORD);
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await app.pool.query(sql, params)).rows as T[];
}

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const column = (page: Page, table: string, col: string) =>
  page.locator(`table[aria-label="${table}"] tbody td[data-col=${col}]`).allTextContents();

async function search(page: Page, list: "events" | "payments", term: string): Promise<void> {
  await page.goto(`${server.url}/${list}`);
  await page.locator("input[name=q]").fill(term);
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL((url) => url.searchParams.get("q") === term);
}

beforeAll(async () => {
  app = await createTestApp("console_support", {});
  for (const [user, role] of [
    [SUPPORT, "support"],
    [FINANCE, "finance"],
    [VIEWER, "viewer"],
  ] as const) {
    await createUser(app.prisma, { email: user, role, password: PASSWORD }, "e2e");
  }
  const histories = generateHistories(3131, 60, ["stripe", "standard"], {});
  gateway = await startFakeGateway(histories);
  server = await startAppServer({
    ...fakeGatewayEnv(gateway.url),
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    WEBHOOK_SECRET_STANDARD: TEST_SECRETS.standard,
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    WORKER_CONCURRENCY: "4",
  });
  const plan = planWebhooks(histories, { secrets, duplicateRate: 0, shuffle: "none", seed: 5 });
  expect((await sendAll(plan, httpSender(server.url), { concurrency: 4, secrets })).failed).toBe(0);
  await waitFor(
    async () => (await rows<{ n: number }>("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'"))[0]!.n === 0,
    90_000,
    "events settled",
  );
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await server?.stop();
  await gateway?.close();
  await app?.close();
});

describe("console for support: any part of an id, in words", () => {
  it("[SUPPORT][SEARCH]: the end of an event id and the middle of a charge id find their events, and the page says what it searched", async () => {
    const [event] = await rows<{ eventId: string; resourceId: string }>(
      `SELECT event_id AS "eventId", resource_id AS "resourceId" FROM webhook_inbox WHERE resource_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
    );
    const suffix = event!.eventId.slice(-6);
    const middle = event!.resourceId.slice(2, -2);
    for (const width of WIDTHS) {
      const page = await browserAs(SUPPORT, width);
      await search(page, "events", suffix);
      expect(await column(page, "Events", "eventId")).toContain(`${event!.eventId}Copy`);
      expect(await page.getByTestId("searched").textContent()).toBe(
        `Searched event ids, charge ids and customer ids containing '${suffix}'; customer e-mails starting with or containing it.`,
      );
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `support-search-suffix-${width}`, width > 390);
      await search(page, "events", middle);
      const charges = await column(page, "Events", "resourceId");
      expect(charges.length).toBeGreaterThan(0);
      for (const charge of charges) expect(charge.toLowerCase()).toContain(middle.toLowerCase());
      expect(charges.some((charge) => charge.includes(event!.resourceId))).toBe(true);
      // The same middle finds the payment too.
      await search(page, "payments", middle);
      expect(await page.locator(`table[aria-label=Payments] tbody tr[data-charge="${event!.resourceId}"]`).count()).toBe(1);
      // Nothing found: a hint, not only "no match".
      await search(page, "events", "zq9xk7");
      await page.getByText("No events match. Ids match by any part of 3 characters or more").waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
    }
  }, 300_000);

  it("[VIEWER][SEARCH]: a viewer is told it may not search by e-mail, is not offered it, and its CSV export says so", async () => {
    for (const width of WIDTHS) {
      const page = await browserAs(VIEWER, width);
      await page.goto(`${server.url}/events`);
      expect(await page.locator("label", { has: page.locator("input[name=q]") }).textContent()).toBe("Search (event or charge id)");
      await search(page, "events", "customer7@example.com");
      expect(await page.locator(".banner[role=alert]").textContent()).toContain("Viewers may not search by e-mail");
      await page.goto(`${server.url}/payments`);
      expect(await page.locator("label", { has: page.locator("input[name=q]") }).textContent()).toBe("Search (charge id or amount)");
      await search(page, "payments", "customer7@");
      expect(await page.locator(".banner[role=alert]").textContent()).toContain("Viewers may not search by e-mail");
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `viewer-email-search-${width}`, width > 390);
      for (const list of ["events", "payments"]) {
        const answer = await page.request.get(`${server.url}/api/exports/${list}?q=customer7%40`);
        expect(answer.status()).toBe(403);
        expect(await answer.text()).toContain("Viewers may not search by e-mail");
      }
    }
  }, 300_000);

  it("[FINANCE][EXPORT]: payments refunded in the last 24 hours, and their CSV with the refund dates, BOM and a file name saying the filter", async () => {
    const refunded = (
      await rows<{ chargeId: string }>(
        `SELECT DISTINCT p.gateway_charge_id AS "chargeId" FROM payments p JOIN payment_transitions t ON t.payment_id = p.id
          WHERE t.to_status IN ('refunded', 'partially_refunded') AND t.applied_at >= now() - interval '24 hours'`,
      )
    ).map((row) => row.chargeId);
    expect(refunded.length).toBeGreaterThan(0);
    // One refund from two days ago stays out of the last 24 hours.
    const [old] = await rows<{ chargeId: string }>(
      `UPDATE payment_transitions t SET applied_at = now() - interval '2 days' FROM payments p
        WHERE p.id = t.payment_id AND p.gateway_charge_id = $1 AND t.to_status IN ('refunded', 'partially_refunded')
        RETURNING p.gateway_charge_id AS "chargeId"`,
      [refunded[0]],
    );
    const expected = refunded.filter((charge) => charge !== old!.chargeId).sort();
    for (const width of WIDTHS) {
      const page = await browserAs(FINANCE, width);
      await page.goto(`${server.url}/payments`);
      await page.locator("select[name=on]").selectOption("refunded");
      await page.locator("select[name=range]").selectOption("24h");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL((url) => url.searchParams.get("on") === "refunded");
      const shown = await page
        .locator("table[aria-label=Payments] tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-charge")));
      expect(shown.sort()).toEqual(expected);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `finance-refunded-24h-${width}`, width > 390);
      const answer = await page.request.get(`${server.url}${await page.getByTestId("export-payments").getAttribute("href")}`);
      expect(answer.headers()["content-disposition"]).toMatch(
        /filename="payments-refunded-\d{4}-\d\d-\d\dT\d{4}-to-\d{4}-\d\d-\d\dT\d{4}\.csv"/,
      );
      const bytes = Buffer.from(await answer.body());
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const [header, ...lines] = bytes.toString("utf8").slice(1).trim().split("\r\n");
      const names = header!.split(",");
      expect(names.slice(0, 4)).toEqual(["provider", "charge_id", "account", "status"]);
      const cells = lines.map((line) => line.split(","));
      expect(cells.map((cell) => cell[names.indexOf("charge_id")]).sort()).toEqual(expected);
      for (const cell of cells) {
        const refundedAt = Date.parse(cell[names.indexOf("refunded_at")]!);
        expect(Date.now() - refundedAt).toBeLessThan(86_400_000);
        expect(Date.parse(cell[names.indexOf("created_at")]!)).toBeLessThanOrEqual(refundedAt);
      }
      // Sorted by amount, the file lists them in the order the page shows.
      await page.goto(`${page.url()}&sort=amount_asc`);
      const onScreen = await page
        .locator("table[aria-label=Payments] tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-charge")));
      const sorted = await page.request.get(`${server.url}${await page.getByTestId("export-payments").getAttribute("href")}`);
      const [sortedHeader, ...sortedLines] = (await sorted.text())
        .replace(/^\ufeff/, "")
        .trim()
        .split("\r\n");
      const chargeAt = sortedHeader!.split(",").indexOf("charge_id");
      expect(sortedLines.map((line) => line.split(",")[chargeAt])).toEqual(onScreen);
    }
  }, 300_000);

  it("[FINANCE][BULK]: the dry run's counts and the confirmation come before the rows, and the run is running until its events settle", async () => {
    // The events the simulator's run left ignored (late or repeated news), by payment.
    const [ignored] = await rows<{ events: number; payments: number }>(
      "SELECT count(*)::int AS events, count(DISTINCT (provider, resource_id))::int AS payments FROM webhook_inbox WHERE status = 'ignored'",
    );
    const { events, payments } = ignored!;
    expect(events).toBeGreaterThan(1);
    for (const width of WIDTHS) {
      const page = await browserAs(FINANCE, width);
      await page.goto(`${server.url}/replays/new?status=ignored`);
      const summary = page.getByTestId("replay-summary");
      await summary.waitFor();
      const counts: Record<string, number> = Object.fromEntries(
        await summary
          .locator(".stat")
          .evaluateAll((stats) =>
            stats.map((stat) => [stat.getAttribute("data-outcome"), Number(stat.querySelector(".value")?.textContent)]),
          ),
      );
      expect(Object.keys(counts)).toEqual(["changes", "no_change", "at_replay"]);
      expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(Math.min(payments, 50));
      // The counts are the rows' own outcomes.
      const outcomes = await page
        .getByTestId("replay-effects")
        .locator("tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-outcome")));
      for (const [outcome, count] of Object.entries(counts)) expect(outcomes.filter((o) => o === outcome)).toHaveLength(count);
      // Summary, then the button, then the rows.
      const top = async (locator: ReturnType<Page["locator"]>) => (await locator.boundingBox())!.y;
      const button = page.getByRole("button", { name: `Replay ${events} events` });
      expect(await top(summary)).toBeLessThan(await top(button));
      expect(await top(button)).toBeLessThan(await top(page.getByTestId("replay-effects")));
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `finance-replay-summary-${width}`, width > 390);
      if (width !== WIDTHS[0]) continue;
      await button.click();
      await page.waitForURL(/\/replays\/\d+/);
      await expect.poll(() => page.getByTestId("replay-state").textContent(), { timeout: 60_000 }).toBe(`done: 0 of ${events} pending`);
    }
  }, 300_000);

  it("[SUPPORT][DECLINE]: a declined charge's page says why beside its status, and the payments list shows it under the badge", async () => {
    // stripe/openapi's charge, failed as docs.stripe.com/declines describes an issuer's decline.
    const charge = readFixture<Record<string, unknown> & { outcome: object }>("stripe/charge.json");
    const event = readFixture<{ id: string; type: string; created: number; data: { object: object } }>("stripe/event.json");
    const declined = variant(charge, {
      id: "ch_e2e_declined",
      status: "failed",
      failure_code: "card_declined",
      failure_message: "Your card has insufficient funds.",
      outcome: { ...charge.outcome, reason: "insufficient_funds", type: "issuer_declined" },
    });
    const created = Math.floor(Date.now() / 1000);
    const body = JSON.stringify(variant(event, { id: "evt_e2e_declined", type: "charge.failed", created, data: { object: declined } }));
    const answer = await fetch(`${server.url}/api/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signStripe(TEST_SECRETS.stripe, created, body) },
      body,
    });
    expect(answer.status).toBeLessThan(300);
    await waitFor(
      async () =>
        (await rows("SELECT 1 FROM payments WHERE gateway_charge_id = 'ch_e2e_declined' AND decline_reason IS NOT NULL")).length === 1,
      30_000,
      "declined charge applied",
    );
    const [payment] = await rows<{ id: number }>("SELECT id FROM payments WHERE gateway_charge_id = 'ch_e2e_declined'");
    const sentence = "Declined: Your card has insufficient funds. (code insufficient_funds)";
    for (const width of WIDTHS) {
      const page = await browserAs(SUPPORT, width);
      await page.goto(`${server.url}/payments/${payment!.id}`);
      expect(await page.getByTestId("payment-decline").textContent()).toBe(sentence);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `support-declined-payment-${width}`, width > 390);
      await search(page, "payments", "e2e_declined");
      const row = page.locator('table[aria-label=Payments] tbody tr[data-charge="ch_e2e_declined"]');
      expect(await row.getByTestId("row-decline").getAttribute("title")).toBe(sentence);
      expect(await horizontalOverflow(page)).toBe(0);
    }
  }, 120_000);

  it("[SUPPORT][REPLAY]: a failed event tells support that finance or an admin replays it", async () => {
    const [event] = await rows<{ id: number }>(
      "SELECT id FROM webhook_inbox WHERE provider = 'standard' AND status = 'processed' ORDER BY id LIMIT 1",
    );
    await app.pool.query("UPDATE webhook_inbox SET status = 'failed', last_error = 'Error: simulated' WHERE id = $1", [event!.id]);
    for (const width of WIDTHS) {
      const page = await browserAs(SUPPORT, width);
      await page.goto(`${server.url}/events/${event!.id}`);
      expect(await page.getByTestId("replay-by").textContent()).toBe(
        "Your role can't replay events; finance or an admin can: send them this page's address.",
      );
      expect(await page.getByRole("button", { name: "Replay" }).count()).toBe(0);
      expect(await horizontalOverflow(page)).toBe(0);
    }
  }, 120_000);
});
