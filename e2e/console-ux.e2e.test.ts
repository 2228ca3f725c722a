import type { Page } from "playwright-core";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config/env";
import { runRetention } from "@/lib/inbox/retention/archive-settled-events";
import { TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import type { AppServer } from "./harness/app-server";
import { horizontalOverflow, rendered, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { postSucceeded, postWebhook } from "./simulator/send-webhooks";
import { fakeGatewayEnv } from "./simulator/fake-gateway";
import { webhookFor, type HistoryStep, type PaymentFacts } from "@/lib/testing/gateway-events";
import { generateHistories, type PaymentHistory } from "./simulator/history";

// The console as support and finance use it: one clock, pages that fit 1440 and 390 px, the
// keyboard path to an event, customer search, and a bulk replay whose dry run says what it will do.
// Stripe payments come from the simulator; `standard` payments are host-registered here, so their
// events fail (unknown payment, one attempt) until the host registers them and finance replays.

const ADMIN = "admin@ux.test";
const FINANCE = "finance@ux.test";

let world: ConsoleWorld;
let app: TestApp;
let server: AppServer;
let histories: PaymentHistory[];
const hostPayments: { facts: PaymentFacts; steps: HistoryStep["kind"][] }[] = [];
// The web server restores archived payloads from here; the retention run in a test writes here.
const archiveDir = mkdtempSync(join(tmpdir(), "console-ux-archive-"));

function browserAs(user: string, viewport = { width: 1440, height: 900 }, options: { touch?: boolean } = {}): Promise<Page> {
  return world.browserAs(user, viewport, options);
}

async function scalar<T>(sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await app.pool.query(sql, params);
  return Object.values(rows[0] as Record<string, unknown>)[0] as T;
}

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "console_ux",
    users: { [ADMIN]: "admin", [FINANCE]: "finance" },
    histories: generateHistories(77, 12, ["stripe"], { sameSecondRate: 0.3 }),
    // Stripe disputes are refetched (charge, then its disputes): the fake gateway knows the true state.
    gatewayEnv: (url) => {
      const { STRIPE_API_URL, STRIPE_API_KEY } = fakeGatewayEnv(url);
      return { STRIPE_API_URL: STRIPE_API_URL!, STRIPE_API_KEY: STRIPE_API_KEY! };
    },
    env: {
      WORKER_MAX_ATTEMPTS: "1",
      WORKER_CONCURRENCY: "4",
      REPLAY_CONFIRM_THRESHOLD: "100",
      PAYMENT_SOURCE_STANDARD: "host",
      REFETCH_STRIPE: "",
      PAYMENTS_API_TOKENS: "e2e-payments-token-0123456789",
      ARCHIVE_DIR: archiveDir,
    },
  });
  ({ app, server, histories } = world);
  await world.sendHistories({ duplicateRate: 0.2, shuffle: "full", seed: 3 }, 6);

  // Host-registered payments whose events arrive first: they fail until the host registers them.
  const base = Date.now() - 3_600_000;
  for (const [index, steps] of ([["succeeded", "refund"], ["succeeded"]] as const).entries()) {
    const facts: PaymentFacts = {
      chargeId: `ch_host_${index}`,
      amount: 5000,
      currency: "usd",
      customerId: `cus_host_${index}`,
      customerEmail: `host.buyer${index}@shop.example`,
    };
    hostPayments.push({ facts, steps: [...steps] });
    for (const [position, kind] of steps.entries()) {
      const step: HistoryStep = {
        kind,
        amountRefunded: kind === "refund" ? 5000 : 0,
        occurredAtMs: base + index * 60_000 + position * 1000,
      };
      const webhook = webhookFor("standard", facts, step, TEST_SECRETS.standard);
      const response = await postWebhook(server.url, webhook);
      expect(response.status).toBe(200);
    }
  }
  await world.settled(60_000);
}, 240_000);

afterAll(async () => {
  await world?.close();
  rmSync(archiveDir, { recursive: true, force: true });
});

describe("console UX", () => {
  it("[SUPPORT][LAYOUT]: overview, events, event, payment and customer pages fit 1440 and 390 px", async () => {
    const eventId = await scalar<number>("SELECT id FROM webhook_inbox WHERE provider = 'stripe' ORDER BY id LIMIT 1");
    const paymentId = await scalar<number>("SELECT id FROM payments WHERE provider = 'stripe' ORDER BY id LIMIT 1");
    const customer = histories[0]!.payment.customerEmail;
    const pages: [string, string][] = [
      ["overview", "/"],
      ["events", "/events"],
      ["event", `/events/${eventId}`],
      ["payment", `/payments/${paymentId}`],
      ["customer", `/customers/${encodeURIComponent(customer)}`],
    ];
    const overflow: Record<string, number> = {};
    for (const width of [1440, 390]) {
      const page = await browserAs(ADMIN, { width, height: 900 });
      for (const [name, path] of pages) {
        await page.goto(`${server.url}${path}`);
        await page.locator("h1").first().waitFor();
        // The narrow pages are long: their first screen is what shows the layout.
        await screenshot(page, `ux-${name}-${width}`, width > 390);
        overflow[`${name}@${width}`] = await horizontalOverflow(page);
      }
      if (width === 390) {
        // The sidebar is folded away behind a labelled toggle that opens it.
        const toggle = page.getByRole("button", { name: "Menu" });
        const navigation = page.getByRole("navigation", { name: "Console" });
        expect(await toggle.getAttribute("aria-expanded")).toBe("false");
        expect(await navigation.isVisible()).toBe(false);
        await toggle.click();
        // The toggle's state and the menu's visibility are set by React after the click: wait for them.
        await expect.poll(() => toggle.getAttribute("aria-expanded")).toBe("true");
        await navigation.getByRole("link", { name: "Payments" }).click();
        await page.waitForURL(/\/payments$/);
        await expect.poll(() => navigation.isVisible()).toBe(false);
      }
    }
    expect(overflow).toEqual(Object.fromEntries(Object.keys(overflow).map((key) => [key, 0])));
  }, 240_000);

  it("[SUPPORT][WHY]: ignored and failed events say why in a sentence, on the event page and in the list's tooltip", async () => {
    const page = await browserAs(ADMIN);
    const failedId = await scalar<number>("SELECT id FROM webhook_inbox WHERE resource_id = 'ch_host_0' ORDER BY id LIMIT 1");
    await page.goto(`${server.url}/events/${failedId}`);
    expect(await page.getByTestId("outcome-sentence").locator("p").first().textContent()).toBe(
      "Failed: your application had not registered payment ch_host_0 when the retries ran out; replay once it is registered (POST /api/payments).",
    );
    const ignored = await app.pool.query<{ id: number; reason: string }>(
      "SELECT id, ignored_reason AS reason FROM webhook_inbox WHERE status = 'ignored' ORDER BY id LIMIT 1",
    );
    expect(ignored.rows.length).toBe(1);
    await page.goto(`${server.url}/events?status=ignored`);
    const title = await page.locator(`tr[data-event-id="${ignored.rows[0]!.id}"] td[data-col=status] .badge`).getAttribute("title");
    expect(title).toMatch(/^Ignored: .+\.$/);
    expect(title).not.toMatch(/partially_refunded|charged_back|invalid_transition|duplicate_in_meaning|uninteresting_type/);
  });

  it("[SUPPORT][CLOCK]: a time reads the same after a full load and after in-app navigation, in the chosen zone", async () => {
    const page = await browserAs(ADMIN);
    const hydrationErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /hydrat/i.test(message.text())) hydrationErrors.push(message.text());
    });
    const id = await scalar<number>("SELECT id FROM webhook_inbox ORDER BY received_at DESC, id DESC LIMIT 1");
    const row = page.locator(`tr[data-event-id="${id}"]`);
    const listTime = () => row.locator("td[data-col=receivedAt] time").textContent();
    const detailTime = () => page.locator("dt:text-is('Received') + dd time").textContent();

    const readBothWays = async () => {
      await page.goto(`${server.url}/events`);
      const afterLoad = await listTime();
      await page.goto(`${server.url}/`);
      await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Events" }).click();
      await page.waitForURL(/\/events$/);
      await row.waitFor();
      expect(await listTime()).toBe(afterLoad);
      await row.locator("td[data-col=eventType] a").click();
      await page.getByRole("heading", { name: "Payload" }).waitFor();
      const detailViaNavigation = await detailTime();
      await page.reload();
      expect(await detailTime()).toBe(detailViaNavigation);
      expect(detailViaNavigation).toBe(afterLoad);
      return afterLoad!;
    };

    expect(await readBothWays()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    // The browser runs in São Paulo: choosing its zone writes every time (and the chart) there.
    await page.getByLabel("Times in").selectOption("America/Sao_Paulo");
    await expect.poll(() => detailTime()).toMatch(/UTC-03:00$/);
    expect(await readBothWays()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC-03:00$/);
    await page.goto(`${server.url}/`);
    expect(await page.locator("figure.chart figcaption strong").textContent()).toBe("Last 24 hours (UTC-03:00)");
    expect(hydrationErrors).toEqual([]);
  });

  it("[SUPPORT][KEYBOARD]: `/` to search, Enter, a few Tabs to the first row, Enter opens the event", async () => {
    const customer = histories[1]!.payment.customerEmail;
    const page = await browserAs(ADMIN);
    await page.goto(`${server.url}/events`);
    await page.locator("table[aria-label=Events]").waitFor();
    const keys: string[] = [];
    const press = async (key: string) => {
      keys.push(key);
      await page.keyboard.press(key);
    };
    const focused = () =>
      page.evaluate(() => ({ tag: document.activeElement?.tagName, name: document.activeElement?.getAttribute("name") }));

    await press("/");
    expect(await focused()).toEqual({ tag: "INPUT", name: "q" });
    await page.keyboard.type(customer);
    await press("Enter");
    await page.waitForURL(/q=/);
    const expected = await scalar<number>(
      "SELECT count(*)::int FROM webhook_inbox WHERE customer_email = $1 OR resource_id IN (SELECT gateway_charge_id FROM payments WHERE customer_email = $1)",
      [customer],
    );
    await expect.poll(() => page.locator("table[aria-label=Events] tbody tr").count()).toBe(expected);
    expect(await focused()).toEqual({ tag: "INPUT", name: "q" });
    const firstId = await page.locator("table[aria-label=Events] tbody tr").first().getAttribute("data-event-id");
    const activeRow = () => page.evaluate(() => document.activeElement?.getAttribute("data-event-id"));

    // ↓ from the search box to the first row (↓/↑ move between rows), Enter opens it.
    await press("ArrowDown");
    expect(await activeRow()).toBe(firstId);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    expect(await activeRow()).toBe(firstId);
    await press("Enter");
    await page.waitForURL(new RegExp(`/events/${firstId}$`));
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    expect(keys).toEqual(["/", "Enter", "ArrowDown", "Enter"]);

    // Or by Tab: how many stops the compact filters and the sortable headers leave between the
    // search box and the first row; every sortable header is one of them, sorted or not.
    await page.goBack();
    await page.locator(`tr[data-event-id="${firstId}"]`).waitFor();
    await page.keyboard.press("/");
    expect(await focused()).toEqual({ tag: "INPUT", name: "q" });
    let tabs = 0;
    const headers: string[] = [];
    while ((await focused()).tag !== "TR" && tabs < 40) {
      await page.keyboard.press("Tab");
      tabs++;
      const header = await page.evaluate(() => document.activeElement?.closest("th")?.textContent);
      if (header) headers.push(header);
    }
    expect(await activeRow()).toBe(firstId);
    expect(headers).toEqual(await page.locator("table[aria-label=Events] th button.sort").allTextContents());
    expect(headers).toEqual(["Received ▼", "Occurred ↕"]);
    expect(tabs).toBeLessThanOrEqual(9);
    console.log(
      `keyboard path: ${keys.join(" ")} (${keys.length} keys plus typing the e-mail); ${tabs} Tabs from the search box to the first row`,
    );
  });

  it("[SUPPORT][SEARCH]: part of an e-mail finds the customer; their page lists payments with totals and events", async () => {
    const history = histories[3]!;
    const email = history.payment.customerEmail;
    const page = await browserAs(ADMIN);
    for (const partial of [email.slice(0, email.indexOf("@") + 3), email.slice(2, email.indexOf("@"))]) {
      await page.goto(`${server.url}/payments?q=${encodeURIComponent(partial)}`);
      await page.getByRole("table", { name: "Payments" }).getByRole("link", { name: email, exact: true }).first().waitFor();
    }
    await page.getByRole("table", { name: "Payments" }).getByRole("link", { name: email, exact: true }).first().click();
    await page.getByRole("heading", { name: `Customer ${email}` }).waitFor();
    const charges = await page
      .locator("table[aria-label='Customer payments'] tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-charge")));
    const { rows } = await app.pool.query("SELECT gateway_charge_id FROM payments WHERE customer_email = $1 ORDER BY 1", [email]);
    expect(charges.sort()).toEqual(rows.map((row) => row.gateway_charge_id));
    const events = await scalar<number>(
      "SELECT count(*)::int FROM webhook_inbox WHERE customer_email = $1 OR (provider, resource_id) IN (SELECT provider, gateway_charge_id FROM payments WHERE customer_email = $1)",
      [email],
    );
    expect(await page.locator("table[aria-label=Events] tbody tr").count()).toBe(events);
    expect(await page.getByTestId("customer-total-usd").textContent()).toContain(`${rows.length} payment`);
    await screenshot(page, "ux-customer-search-1440");
  });

  it("[FINANCE][REPLAY]: the dry run's effect per payment is what the replay then does; history and run counts follow", async () => {
    for (const { facts } of hostPayments) {
      const response = await fetch(`${server.url}/api/payments`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer e2e-payments-token-0123456789" },
        body: JSON.stringify({
          provider: "standard",
          chargeId: facts.chargeId,
          amount: facts.amount,
          currency: "usd",
          customerEmail: facts.customerEmail,
        }),
      });
      expect(response.status).toBe(201);
    }
    const page = await browserAs(FINANCE);
    await page.goto(`${server.url}/replays/new?provider=standard&status=failed`);
    const effects = page.getByTestId("replay-effects").locator("tbody tr");
    const preview: Record<string, { to: string | null; text: string | null | undefined }> = Object.fromEntries(
      await effects.evaluateAll((rows) =>
        rows.map((row) => [
          row.getAttribute("data-charge"),
          { to: row.getAttribute("data-to"), text: row.querySelector("td[data-label=Effect]")?.textContent },
        ]),
      ),
    );
    expect(preview).toEqual({
      ch_host_0: { to: "refunded", text: "pending → refunded (refunded $0.00 → $50.00)" },
      ch_host_1: { to: "paid", text: "pending → paid" },
    });
    await screenshot(page, "ux-replay-preview-1440");
    await page.getByRole("button", { name: "Replay 3 events" }).click();
    await page.waitForURL(/\/replays\/\d+$/);
    const runId = Number(page.url().split("/").pop());
    await expect.poll(() => page.locator("[data-outcome=processed] .value").textContent(), { timeout: 30_000 }).toBe("3");
    for (const [chargeId, effect] of Object.entries(preview)) {
      expect(await scalar<string>("SELECT status FROM payments WHERE gateway_charge_id = $1", [chargeId])).toBe(effect.to);
    }
    await page.locator("[data-outcome=processed]").click();
    await page.waitForURL(new RegExp(`/events\\?run=${runId}&status=processed`));
    await expect.poll(() => page.locator("table[aria-label=Events] tbody tr").count()).toBe(3);

    // The event keeps its history: attempts numbered on from before the replay, and who replayed it in which run.
    const eventId = await scalar<number>("SELECT id FROM webhook_inbox WHERE resource_id = 'ch_host_1'");
    await page.goto(`${server.url}/events/${eventId}`);
    await rendered(page);
    expect(await page.getByTestId("replay-history").locator("tbody tr").count()).toBe(1);
    expect(await page.getByTestId("replay-history").textContent()).toContain(FINANCE);
    await page
      .getByTestId("replay-history")
      .getByRole("link", { name: `bulk run #${runId}` })
      .waitFor();
    const { rows } = await app.pool.query("SELECT attempt, outcome FROM processing_attempts WHERE inbox_id = $1 ORDER BY id", [eventId]);
    expect(rows).toEqual([
      { attempt: 1, outcome: "failed" },
      { attempt: 2, outcome: "processed" },
    ]);
  });

  it("[SUPPORT][WORDING]: counts, statuses, ids, words, hints and forms read right at 1440 and 390 px, with no console error or warning", async () => {
    // After the replay: one more host payment's event fails (its payment is not registered), with an e-mail holding a comma.
    const facts: PaymentFacts = {
      chargeId: "ch_host_9",
      amount: 700,
      currency: "usd",
      customerId: "cus_host_9",
      customerEmail: "ana,bia@shop.example",
    };
    expect((await postSucceeded(server.url, "standard", facts, TEST_SECRETS.standard)).status).toBe(200);
    await world.settled(30_000);
    expect(await scalar<number>("SELECT count(*)::int FROM webhook_inbox WHERE status = 'failed'")).toBe(1);
    const failedId = await scalar<number>("SELECT id FROM webhook_inbox WHERE resource_id = 'ch_host_9'");
    const providers = await scalar<number>("SELECT count(DISTINCT provider)::int FROM webhook_inbox");
    const statuses = (await app.pool.query<{ status: string }>("SELECT DISTINCT status FROM payments ORDER BY 1")).rows.map(
      (row) => row.status,
    );
    expect(statuses).toContain("partially_refunded");
    const partial = await scalar<number>("SELECT id FROM payments WHERE status = 'partially_refunded' ORDER BY id LIMIT 1");
    const stripeEvent = await scalar<number>("SELECT id FROM webhook_inbox WHERE provider = 'stripe' ORDER BY id LIMIT 1");

    // Where a line breaks inside an id: only right after a separator, never mid-piece ("gebwn" / "h").
    const idBreaks = (page: Page, selector: string) =>
      page.locator(selector).evaluateAll((elements) =>
        elements.flatMap((element) => {
          const text = element.textContent ?? "";
          const range = document.createRange();
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          let previous: { top: number; char: string } | null = null;
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let index = 0; index < node.textContent!.length; index++) {
              range.setStart(node, index);
              range.setEnd(node, index + 1);
              const top = Math.round(range.getClientRects()[0]?.top ?? NaN);
              const char = node.textContent![index]!;
              if (previous && top > previous.top + 2 && !"_-.:/".includes(previous.char)) return [text];
              previous = { top, char };
            }
          }
          return [];
        }),
      );
    // Words (letters) set across two lines: none, outside ids and code.
    const brokenWords = (page: Page, selector: string) =>
      page.locator(selector).evaluateAll((elements) =>
        elements.flatMap((element) => {
          const broken: string[] = [];
          const range = document.createRange();
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement?.closest(".mono, code, pre")) continue;
            for (const match of node.textContent!.matchAll(/\p{L}{2,}/gu)) {
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
              if (tops.size > 1) broken.push(match[0]);
            }
          }
          return broken;
        }),
      );

    // An event type may wrap after each of its dots (a <wbr> there): the dotted names that have fewer.
    const typeBreaks = (page: Page, selector: string) =>
      page.locator(selector).evaluateAll((elements) => {
        const dotted = elements.filter((element) => /\w\.\w/.test(element.textContent!));
        if (dotted.length === 0) return ["no event type found"];
        return dotted
          .filter((element) => element.textContent!.match(/\w\.\w/g)!.length > element.querySelectorAll("wbr").length)
          .map((element) => element.textContent);
      });

    const problems: Record<string, unknown> = {};
    for (const width of [1440, 390]) {
      const page = await browserAs(ADMIN, { width, height: 900 });
      const logged: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") logged.push(`${page.url()}: ${message.text()}`);
      });
      const at = (name: string, value: unknown) => (problems[`${name}@${width}`] = value);

      // Overview: the count agrees with its verb; one row per provider; the figures say they count stored events.
      await page.goto(`${server.url}/`);
      await rendered(page);
      at("failed banner", await page.getByRole("alert").filter({ hasText: "failed event" }).textContent());
      at("by-provider rows", await page.locator("table[aria-label='Events stored per provider'] tbody tr").count());
      at("week header", await page.locator("table[aria-label='Webhooks received per provider'] th").allTextContents());
      at("by-provider header", await page.locator("table[aria-label='Events stored per provider'] th").allTextContents());
      await screenshot(page, `ux-lows-overview-${width}`, width > 390);

      // Payments: a status reads the same on its badge, in the filter and in the totals.
      await page.goto(`${server.url}/payments`);
      await page.getByRole("table", { name: "Payments" }).locator("tbody tr").first().waitFor();
      await rendered(page);
      const labels: Record<string, unknown> = {};
      for (const status of statuses) {
        const option = await page.locator(`select[name=status] option[value=${status}]`).textContent();
        const badge = await page.locator(`tr[data-status=${status}] td[data-col=status] .badge`).first().textContent();
        labels[status] = option === badge && !badge?.includes("_") ? "same" : { option, badge };
      }
      at("status labels", labels);
      at("totals mention", (await page.getByTestId("payment-totals").textContent())?.includes("_") ? "code" : "words");
      at("totals words", await brokenWords(page, ".payment-totals dd"));
      await screenshot(page, `ux-lows-payments-${width}`, false);

      // Events: ids wrap only after a separator, whole in their title; the failed event's e-mail is one link.
      await page.goto(`${server.url}/events`);
      await page.locator(`tr[data-event-id="${failedId}"]`).waitFor();
      await rendered(page);
      at(
        "id breaks",
        await idBreaks(page, "table[aria-label=Events] td[data-col=eventId] .mono, table[aria-label=Events] td[data-col=resourceId] .mono"),
      );
      const eventIdCell = page.locator(`tr[data-event-id="${failedId}"] td[data-col=eventId] .mono`);
      at("id title", (await eventIdCell.getAttribute("title")) === (await eventIdCell.textContent()));
      at("e-mail links", await page.locator(`tr[data-event-id="${failedId}"] td[data-col=customerShown] a`).allTextContents());
      at("search hint", await page.locator("input[name=q]").evaluate((input) => getComputedStyle(input, "::placeholder").color));
      await screenshot(page, `ux-lows-events-${width}`, false);

      // The payment and event pages: words stay whole; the event time's precision in words.
      await page.goto(`${server.url}/payments/${partial}`);
      await page.locator("dl.kv").first().waitFor();
      await rendered(page);
      at("payment words", await brokenWords(page, ".kv dd"));
      at("timeline type breaks", await typeBreaks(page, "table[aria-label=Timeline] td[data-col=eventType] a"));
      await screenshot(page, `ux-lows-payment-${width}`, false);
      await page.goto(`${server.url}/events/${stripeEvent}`);
      await page.getByTestId("occurred-precision").waitFor();
      await rendered(page);
      at("precision", await page.getByTestId("occurred-precision").textContent());
      at("event words", await brokenWords(page, ".kv dd"));
      at("title type breaks", await typeBreaks(page, "h1"));
      await page.goto(`${server.url}/events/${failedId}`);
      await page.getByTestId("occurred-precision").waitFor();
      await rendered(page);
      at("event words (microseconds)", await brokenWords(page, ".kv dd"));
      await screenshot(page, `ux-lows-event-${width}`, false);

      // A destination's providers and statuses: checkboxes under a legend, no multi-select list box.
      await page.goto(`${server.url}/destinations`);
      await page.getByRole("form", { name: "Add a destination" }).waitFor();
      await rendered(page);
      at("list boxes", await page.locator("select[multiple]").count());
      at(
        "provider boxes",
        await page.getByRole("group", { name: "Providers (none: all)" }).getByRole("checkbox", { name: "stripe" }).count(),
      );
      at(
        "status boxes",
        await page.getByRole("group", { name: "Statuses (none: all)" }).getByRole("checkbox", { name: "partially refunded" }).count(),
      );
      await screenshot(page, `ux-lows-destinations-${width}`, false);
      // The guide it names is a link that opens it.
      await page.getByRole("link", { name: "docs/host-integration.md" }).click();
      await page.getByRole("heading", { name: "docs/host-integration.md" }).waitFor();
      at("docs link", (await page.getByTestId("doc-text").textContent())?.startsWith("# ") ? "opens the guide" : "empty");
      await rendered(page);
      at("docs overflow", await horizontalOverflow(page));
      at("console", logged);
    }
    expect(problems).toEqual(
      Object.fromEntries(
        [1440, 390].flatMap((width) =>
          Object.entries({
            "failed banner": "1 failed event needs a person. Review failed events",
            "by-provider rows": providers,
            "week header": ["Provider", "Last event stored", "Events stored, last 7 days", "Rejected signatures, last hour"],
            "by-provider header": [
              "Provider",
              "Stored, last hour",
              "Stored, last 24 h",
              "Stored, last 7 days",
              "Processed, 7 days",
              "Ignored, 7 days",
              "Failed, 7 days",
              "Pending, 7 days",
              "Ignored share, last hour",
              "Ignored share, 7 days",
              "Failed share, 7 days",
            ],
            "timeline type breaks": [],
            "title type breaks": [],
            "status labels": Object.fromEntries(statuses.map((status) => [status, "same"])),
            "totals mention": "words",
            "totals words": [],
            "id breaks": [],
            "id title": true,
            "e-mail links": ["ana,bia@shop.example"],
            "search hint": expect.not.stringMatching(/^rgba\(0, 0, 0, 0\)$/),
            "payment words": [],
            precision: "(the gateway's time, to the second)",
            "event words": [],
            "event words (microseconds)": [],
            "list boxes": 0,
            "provider boxes": 1,
            "status boxes": 1,
            "docs link": "opens the guide",
            "docs overflow": 0,
            console: [],
          }).map(([name, value]) => [`${name}@${width}`, value]),
        ),
      ),
    );

    // On a touch screen the "Press / to search" hint is not shown; a keyboard's `/` still finds the box.
    const phone = await browserAs(ADMIN, { width: 390, height: 844 }, { touch: true });
    await phone.goto(`${server.url}/events`);
    await phone.locator("input[name=q]").waitFor();
    await rendered(phone);
    expect(await phone.locator("input[name=q]").evaluate((input) => getComputedStyle(input, "::placeholder").color)).toBe(
      "rgba(0, 0, 0, 0)",
    );
    await phone.keyboard.press("/");
    expect(await phone.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("q");
  }, 240_000);

  it("[SUPPORT][ARCHIVE]: an event retention archived says so, and Restore brings back its exact bytes", async () => {
    // Last in this file: it moves one settled event past RETENTION_DAYS and archives it.
    const eventId = await scalar<number>(
      "SELECT id FROM webhook_inbox WHERE provider = 'stripe' AND status = 'processed' ORDER BY id LIMIT 1",
    );
    const bytesBefore = await scalar<Buffer>("SELECT raw_body FROM webhook_inbox WHERE id = $1", [eventId]);
    await app.pool.query("UPDATE webhook_inbox SET received_at = now() - interval '100 days' WHERE id = $1", [eventId]);
    const config = loadConfig({ DATABASE_URL: app.db.url, ARCHIVE_DIR: archiveDir });
    expect((await runRetention({ pool: app.pool, config })).events).toBe(1);
    expect(await scalar<Buffer | null>("SELECT raw_body FROM webhook_inbox WHERE id = $1", [eventId])).toBeNull();

    const page = await browserAs(ADMIN, { width: 390, height: 844 });
    await page.goto(`${server.url}/events/${eventId}`);
    await page.getByTestId("archived").waitFor();
    expect(await page.getByTestId("raw-body").count()).toBe(0);
    await page.getByText("Archived with the payload").waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, "ux-event-archived-390");
    await page.getByRole("button", { name: "Restore payload" }).click();
    await page.getByTestId("raw-body").waitFor();
    expect(await page.getByTestId("archived").count()).toBe(0);
    const bytesAfter = await scalar<Buffer>("SELECT raw_body FROM webhook_inbox WHERE id = $1", [eventId]);
    const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
    expect(sha(bytesAfter)).toBe(sha(bytesBefore));
    expect(await page.getByTestId("raw-body").textContent()).toBe(bytesBefore.toString("utf8"));
  });
});
