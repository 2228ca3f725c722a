import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "@/lib/canonical/money";
import { randomId } from "@/lib/testing/gateway-events";
import { TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import type { AppServer } from "./harness/app-server";
import { horizontalOverflow, rendered, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { generateHistories } from "./simulator/history";
import { postSucceeded } from "./simulator/send-webhooks";

// Support and finance on the simulator's data (payments of two gateways, resends, a full shuffle, so
// some events arrive after later ones and are ignored as stale): fragment searches in the events
// explorer, payments complete with the facts a stale event carried, payments filtered and added up,
// ids searchable by a viewer, and every page at 1440 and 390 px without sideways scrolling.

const SUPPORT = "support@finance.test";
const FINANCE = "finance@finance.test";
const VIEWER = "viewer@finance.test";
const ADMIN = "admin@finance.test";
const PAYMENTS_TOKEN = "e2e-payments-token-0123456789";
const WIDTHS = [1440, 390] as const;

let world: ConsoleWorld;
let app: TestApp;
let server: AppServer;

function browserAs(user: string, width: number): Promise<Page> {
  return world.browserAs(user, { width, height: 900 });
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await app.pool.query(sql, params)).rows as T[];
}

/** A column's cell texts in a table of the rendered page, top to bottom. */
async function column(page: Page, table: string, col: string): Promise<string[]> {
  await rendered(page);
  return page.locator(`table[aria-label="${table}"] tbody td[data-col=${col}]`).allTextContents();
}

async function searchEvents(page: Page, term: string): Promise<void> {
  await page.goto(`${server.url}/events`);
  await page.locator("input[name=q]").fill(term);
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL((url) => url.searchParams.get("q") === term);
  await rendered(page);
}

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "console_finance",
    users: { [SUPPORT]: "support", [FINANCE]: "finance", [VIEWER]: "viewer", [ADMIN]: "admin" },
    histories: generateHistories(4242, 120, ["stripe", "standard"], { sameSecondRate: 0.3 }),
    env: { WORKER_CONCURRENCY: "4", PAYMENTS_API_TOKENS: PAYMENTS_TOKEN },
  });
  ({ app, server } = world);
  await world.sendHistories({ duplicateRate: 0.2, shuffle: "full", seed: 11 }, 6);
  // Whether the shuffle leaves a payment whose customer only an ignored event carried depends on how
  // the worker's batches fall; this one has it for certain. The host registers the payment paid with
  // no customer, then the gateway's notice of that same state (ignored: it changes nothing) names one.
  const registered = { chargeId: randomId("ch"), amount: 2500, currency: "usd", customerId: "cus_late", customerEmail: "late@example.com" };
  const registration = await fetch(`${server.url}/api/payments`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${PAYMENTS_TOKEN}` },
    body: JSON.stringify({ provider: "stripe", chargeId: registered.chargeId, amount: 2500, currency: "usd", status: "paid" }),
  });
  expect(registration.status).toBe(201);
  expect((await postSucceeded(server.url, "stripe", registered, TEST_SECRETS.stripe)).status).toBe(200);
  await world.settled(90_000);
}, 240_000);

afterAll(async () => {
  await world?.close();
});

describe("console for support and finance", () => {
  it("[SUPPORT][SEARCH]: fragments of e-mails and ids find events, exact matches first, at 1440 and 390 px", async () => {
    // customer7@example.com pays, and so do customer70..79: "customer7" lists customer7's events first.
    const exact = (
      await rows<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_inbox w JOIN payments p ON p.provider = w.provider AND p.gateway_charge_id = w.resource_id WHERE p.customer_email = 'customer7@example.com'",
      )
    )[0]!.n;
    expect(exact).toBeGreaterThan(0);
    const [event] = await rows<{ eventId: string; resourceId: string }>(
      'SELECT event_id AS "eventId", resource_id AS "resourceId" FROM webhook_inbox WHERE provider = \'stripe\' ORDER BY id LIMIT 1',
    );
    for (const width of WIDTHS) {
      const page = await browserAs(SUPPORT, width);
      for (const term of ["customer7", "customer7@", "customer7@example"]) {
        await searchEvents(page, term);
        const customers = await column(page, "Events", "customerShown");
        expect(customers.length).toBeGreaterThan(0);
        expect(customers.slice(0, Math.min(exact, 50))).toEqual(Array(Math.min(exact, 50)).fill("customer7@example.com"));
        for (const customer of customers) expect(customer).toMatch(/^customer7\d?@example\.com$/);
        if (term === "customer7") expect(new Set(customers).size).toBeGreaterThan(1);
        expect(await horizontalOverflow(page)).toBe(0);
      }
      await screenshot(page, `finance-search-customer7-${width}`, width > 390);
      await searchEvents(page, event!.eventId.slice(0, -4));
      expect(await column(page, "Events", "eventId")).toContain(`${event!.eventId}Copy`);
      await searchEvents(page, event!.resourceId.slice(0, -3));
      const charges = await column(page, "Events", "resourceId");
      expect(charges.length).toBeGreaterThan(0);
      for (const charge of charges) expect(charge).toContain(event!.resourceId.slice(0, -3));
      // The charge links to its payment; the whole id is on screen.
      await page.locator("table[aria-label=Events] tbody td[data-col=resourceId] a").first().click();
      await page.waitForURL(/\/payments\/\d+$/);
      await searchEvents(page, "ch_unknown");
      expect(await page.getByText("No events match. Ids match by any part of 3 characters or more").isVisible()).toBe(true);
    }
  }, 120_000);

  it("[VIEWER][SEARCH]: a viewer finds events by event or charge id, never by a customer, and is told so", async () => {
    const [event] = await rows<{ eventId: string }>('SELECT event_id AS "eventId" FROM webhook_inbox ORDER BY id DESC LIMIT 1');
    const page = await browserAs(VIEWER, 1440);
    await searchEvents(page, event!.eventId);
    expect(await column(page, "Events", "eventId")).toEqual([`${event!.eventId}Copy`]);
    expect(await page.locator("label", { has: page.locator("input[name=q]") }).textContent()).toBe("Search (event or charge id)");
    await searchEvents(page, "customer7@example.com");
    expect(await page.locator(".banner[role=alert]").textContent()).toContain("Viewers may not search by e-mail");
  });

  it("[SUPPORT][FACTS]: every payment shows its amount, currency and customer, even when the event that carried them was stale", async () => {
    const stalePaid = await rows<{ id: number; chargeId: string }>(
      `SELECT DISTINCT p.id, p.gateway_charge_id AS "chargeId" FROM payments p
         JOIN webhook_inbox w ON w.provider = p.provider AND w.resource_id = p.gateway_charge_id
        WHERE w.status = 'ignored' AND (p.facts_from->'customerEmail'->>'inboxId')::bigint = w.id`,
    );
    // The full shuffle makes some first events arrive late: those payments learnt their customer from an ignored event.
    expect(stalePaid.length).toBeGreaterThan(0);
    expect(
      (
        await rows<{ n: number }>(
          "SELECT count(*)::int AS n FROM payments WHERE amount IS NULL OR currency IS NULL OR customer_email IS NULL",
        )
      )[0]!.n,
    ).toBe(0);
    for (const width of WIDTHS) {
      const page = await browserAs(SUPPORT, width);
      await page.goto(`${server.url}/payments/${stalePaid[0]!.id}`);
      const facts = page.getByTestId("facts-from");
      expect(await facts.textContent()).toMatch(/customer e-mail from .*ignored/);
      await screenshot(page, `finance-payment-facts-${width}`, width > 390);
      await page.goto(`${server.url}/payments`);
      expect(await column(page, "Payments", "amount")).not.toContain("—");
      expect(await column(page, "Payments", "customerShown")).not.toContain("—");
    }
  });

  it("[FINANCE][PAYMENTS]: status, provider and date filters, sorting by amount, and totals per currency that match the data", async () => {
    const totals = await rows<{ currency: string; n: number; amount: string }>(
      "SELECT currency, count(*)::int AS n, COALESCE(sum(amount), 0)::text AS amount FROM payments WHERE status = 'refunded' AND provider = 'stripe' GROUP BY currency",
    );
    const matching = totals.reduce((sum, total) => sum + total.n, 0);
    expect(matching).toBeGreaterThan(0);
    for (const width of WIDTHS) {
      const page = await browserAs(FINANCE, width);
      await page.goto(`${server.url}/payments`);
      await page.getByLabel("Status").selectOption("refunded");
      await page.getByLabel("Provider").selectOption("stripe");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/status=refunded/);
      // The URL changes before the filtered page is rendered: wait for its total first.
      await expect.poll(() => page.getByTestId("payments-total").textContent()).toContain(`${matching} payment`);
      const statuses = await page
        .locator("table[aria-label=Payments] tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-status")));
      expect(statuses).toEqual(Array(Math.min(matching, 50)).fill("refunded"));
      expect(await page.getByTestId("payments-total").textContent()).toContain(`${matching} payment`);
      for (const total of totals) {
        const shown = await page.getByTestId(`payment-total-${total.currency}`).textContent();
        expect(shown).toContain(`${total.n} payment`);
        expect(shown).toContain(formatMoney(Number(total.amount), total.currency));
      }
      // Each amount of the totals reads on one line, also where the line is narrow; the rects are
      // read once the totals are laid out (a busy machine lays them out after the text arrives).
      const amounts = page.locator("[data-testid^=payment-total-] .money");
      await amounts.first().waitFor({ state: "visible" });
      await expect
        .poll(() => amounts.evaluateAll((shown) => shown.map((amount) => amount.getClientRects().length)))
        .toEqual(Array(await amounts.count()).fill(1));
      // Sorting by amount is a URL parameter the server applies: at 1440 px a header's button (which
      // flips the direction when pressed again), at 390 px the cards' sort control, by keyboard.
      // Each amount as its currency's symbol and its number: amounts compare only within a currency.
      const amountsShown = async () =>
        (await column(page, "Payments", "amount")).map((text) => ({
          currency: text.replace(/[\d.,\s]/g, ""),
          value: Number(text.replace(/[^0-9.]/g, "")),
        }));
      const byAmount: Record<string, number[]> = {};
      for (const wanted of ["asc", "desc"]) {
        const before = new URL(page.url()).searchParams.get("sort");
        if (width > 800) await page.locator("table[aria-label=Payments] th button.sort", { hasText: "Amount" }).click();
        else {
          const sortForm = page.getByRole("form", { name: "Sort Payments" });
          await sortForm.getByLabel("Sort by").selectOption("Amount");
          await sortForm.getByLabel("Order").selectOption(wanted === "asc" ? "ascending" : "descending");
          await sortForm.getByRole("button", { name: "Sort", exact: true }).press("Enter");
        }
        await page.waitForURL(
          (url) => url.searchParams.get("sort")?.startsWith("amount_") === true && url.searchParams.get("sort") !== before,
        );
        const direction = new URL(page.url()).searchParams.get("sort")!.slice("amount_".length);
        await page
          .locator(`table[aria-label=Payments] th[aria-sort=${direction === "desc" ? "descending" : "ascending"}]`, { hasText: "Amount" })
          .waitFor({ state: "attached" });
        const shown = await amountsShown();
        // Each currency's payments together, and in order within it.
        const currencies = shown.map(({ currency }) => currency).filter((currency, index, all) => all[index - 1] !== currency);
        expect(currencies).toEqual([...new Set(currencies)]);
        for (const currency of currencies) {
          const values = shown.filter((amount) => amount.currency === currency).map(({ value }) => value);
          expect(values).toEqual([...values].sort((a, b) => (direction === "desc" ? b - a : a - b)));
        }
        byAmount[direction] = shown.map(({ value }) => value);
        if (width <= 800) {
          // The control shows the sort the list has now.
          const sortForm = page.getByRole("form", { name: "Sort Payments" });
          expect(direction).toBe(wanted);
          expect(await sortForm.getByLabel("Sort by").inputValue()).toBe("amount");
          expect(await sortForm.getByLabel("Order").inputValue()).toBe(direction);
        }
      }
      // Pressed again, the header flips the direction; both orders were shown.
      expect(Object.keys(byAmount).sort()).toEqual(["asc", "desc"]);
      expect(byAmount.desc).not.toEqual(byAmount.asc);
      expect(new URL(page.url()).searchParams.get("status")).toBe("refunded");
      await screenshot(page, `finance-payments-filtered-${width}`, width > 390);
      expect(await horizontalOverflow(page)).toBe(0);
      // The CSV of this filter holds every matching payment, the table's among them, audited.
      const csv = await (await page.request.get(`${server.url}${await page.getByTestId("export-payments").getAttribute("href")}`)).text();
      const lines = csv.trim().split("\r\n");
      // The list's columns first (text() drops the byte order mark: console-support reads the bytes).
      expect(lines[0]).toMatch(
        /^provider,charge_id,account,status,decline_code,decline_message,amount,amount_refunded,currency,customer_email/,
      );
      expect(lines).toHaveLength(1 + matching);
      const exported = lines.slice(1).map((line) => line.split(",")[1]);
      const shown = await page
        .locator("table[aria-label=Payments] tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-charge")));
      // In the list's order: the page's rows open the file.
      expect(exported.slice(0, shown.length)).toEqual(shown);
      for (const line of lines.slice(1)) expect(line.split(",")[3]).toBe("refunded");
      expect(
        (await rows<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'export' AND actor = $1", [FINANCE]))[0]!.n,
      ).toBeGreaterThan(0);
      // A date range that ends before anything was created matches nothing, and says so.
      await page.goto(`${server.url}/payments?to=2001-01-01`);
      await page.getByText("No payment matches this filter.").waitFor();
      await page.goto(`${server.url}/payments?q=${"x".repeat(400)}`);
      expect(await page.locator(".banner[role=alert]").textContent()).toMatch(/q: too long \(at most 320 characters\)/);
    }
  });

  it("[ADMIN][LAYOUT]: no console page scrolls sideways at 390 px, and an unknown event is a 404", async () => {
    const [ids] = await rows<{ event: number; payment: number }>(
      "SELECT (SELECT max(id) FROM webhook_inbox) AS event, (SELECT max(id) FROM payments) AS payment",
    );
    const paths = [
      "/",
      "/events",
      `/events/${ids!.event}`,
      "/payments",
      `/payments/${ids!.payment}`,
      "/customers/customer7%40example.com",
      "/replays",
      "/replays/new",
      "/destinations",
      "/audit",
      "/users",
      "/alerts",
      "/signatures",
      "/events?run=1",
    ];
    const overflow: Record<string, number> = {};
    for (const width of WIDTHS) {
      const page = await browserAs(ADMIN, width);
      for (const path of paths) {
        await page.goto(`${server.url}${path}`);
        await page.locator("h1").first().waitFor();
        overflow[`${path}@${width}`] = await horizontalOverflow(page);
        await screenshot(page, `finance-layout-${path.replace(/[^a-z0-9]+/gi, "_")}-${width}`);
      }
      // The bulk replay's dry run (breakdown, effects and sample tables, long event types among them).
      await page.goto(`${server.url}/replays/new?status=ignored`);
      await page.getByTestId("replay-effects").waitFor();
      expect(await page.getByRole("table", { name: "By provider, type and status" }).textContent()).toMatch(/\w+\.\w+/);
      overflow[`/replays/new (dry run)@${width}`] = await horizontalOverflow(page);
      await screenshot(page, `finance-layout-replay-dry-run-${width}`, width > 390);
      // The overview chart's labels are drawn at a readable size, not scaled down with the drawing,
      // and the hour labels shown do not run into each other.
      await page.goto(`${server.url}/`);
      const labels = await page.locator("figure.chart text.axis").evaluateAll((texts) =>
        texts
          .filter((text) => getComputedStyle(text).display !== "none")
          .map((text) => {
            const box = text.getBoundingClientRect();
            const scale = (text as SVGTextElement).getScreenCTM()!.a;
            return { size: parseFloat(getComputedStyle(text).fontSize) * scale, left: box.left, right: box.right, top: box.top };
          }),
      );
      expect(labels.length).toBeGreaterThanOrEqual(5);
      for (const label of labels) expect(label.size).toBeGreaterThanOrEqual(10);
      const hours = labels.filter((label) => label.top === Math.max(...labels.map((other) => other.top)));
      expect(hours.length).toBeGreaterThanOrEqual(4);
      for (const [index, hour] of hours.slice(1).entries()) expect(hour.left).toBeGreaterThan(hours[index]!.right + 4);
      const missing = await page.goto(`${server.url}/events/99999999`);
      expect(missing?.status()).toBe(404);
      // The run filter is shown and kept by Apply.
      await page.goto(`${server.url}/events?run=1`);
      expect(await page.getByLabel("Replay run").inputValue()).toBe("1");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/run=1/);
    }
    expect(overflow).toEqual(Object.fromEntries(Object.keys(overflow).map((key) => [key, 0])));
  }, 120_000);

  // Last: it stops the worker.
  it("[OPS][LIVENESS]: with the worker stopped and events waiting, the overview says no worker is alive, and shows rejected signatures", async () => {
    process.kill(-server.pids.worker, "SIGTERM");
    await waitFor(
      async () => {
        try {
          process.kill(server.pids.worker, 0);
          return false;
        } catch {
          return true;
        }
      },
      30_000,
      "worker stopped",
    );
    // A worker stopped by SIGTERM says so: it stops counting at once, no heartbeat window to wait out.
    for (let index = 0; index < 12; index++) {
      const facts = {
        chargeId: randomId("ch"),
        amount: 1500,
        currency: "usd",
        customerId: "cus_wait",
        customerEmail: "waiting@example.com",
      };
      expect((await postSucceeded(server.url, "stripe", facts, TEST_SECRETS.stripe)).status).toBe(200);
    }
    expect(
      (await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" }))
        .status,
    ).toBe(401);
    for (const width of WIDTHS) {
      const page = await browserAs(ADMIN, width);
      await page.goto(`${server.url}/`);
      expect(await page.getByTestId("no-worker-banner").textContent()).toMatch(/No worker is alive: 12 events wait/);
      expect(await page.locator("table[aria-label=Workers] tbody tr").first().getAttribute("data-state")).toBe("stopped");
      expect(
        await page
          .locator("table[aria-label='Webhooks received per provider'] tr[data-provider=stripe] td[data-col=rejectedLastHour]")
          .textContent(),
      ).toBe("1");
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `finance-overview-stopped-worker-${width}`);
      await page.getByRole("link", { name: /^\d+ pending events$/ }).click();
      await page.waitForURL(/status=pending/);
      await expect.poll(() => page.locator("table[aria-label=Events] tbody tr").count()).toBe(12);
    }
    // The rejected delivery, listed with the account whose URL it came to (the gateway's own: default).
    const page = await browserAs(ADMIN, WIDTHS[0]!);
    await page.goto(`${server.url}/signatures`);
    const rejected = page.locator("table[aria-label='Rejected webhooks'] tbody tr").first();
    expect(await rejected.locator("td[data-col=provider]").textContent()).toBe("stripe");
    expect(await rejected.locator("td[data-col=account]").textContent()).toBe("default");
  }, 120_000);
});
